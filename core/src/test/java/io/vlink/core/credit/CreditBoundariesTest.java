package io.vlink.core.credit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edges of the credit rules (docs/flow-control.md): the exact 2048-block window, the FCP schedule's due time and
 * early threshold taken inclusively, what a reset of the schedule forgets, the limits the configuration takes, and
 * the line-rate arithmetic the FCP period comes from.
 */
class CreditBoundariesTest
{
    @Test
    void aPacketMayTakeTheCreditWindowUpToExactly2048Blocks()
    {
        // (CL - CR) mod 4096 <= 2048 with CR = FCTBS + NP: a CL exactly 2048 ahead is current, one more reads as behind
        assertTrue(Credits.mayTransmit(2048, 0, 0));
        assertFalse(Credits.mayTransmit(2049, 0, 0));
        assertTrue(Credits.mayTransmit(2048 + 100, 100, 0));
        assertTrue(Credits.mayTransmit(4, 4000, 100), "across the 4096 wrap: CR = 4100 reaches CL = 4 + 4096");
        assertFalse(Credits.mayTransmit(4, 4000, 101), "one block past CL");
        assertEquals(2048, Credits.available(2048, 0));
        assertEquals(0, Credits.available(2049, 0), "a CL more than 2048 ahead is stale: no credit");

        final CreditTransmitter transmitter = new CreditTransmitter(2);
        assertEquals(2, transmitter.dataVls());
        transmitter.onCreditLimit(1, 2048);
        assertTrue(transmitter.tryTransmit(1, 2048), "the whole window in one go");
        assertFalse(transmitter.mayTransmit(1, 1));
        assertEquals(2048, transmitter.blocksSent(1));
        assertEquals(0, transmitter.blocksSent(0), "VLs are independent");
    }

    @Test
    void aReceiveBufferOfExactlyOneChunkIsTakenAndSmallerIsRefused()
    {
        // 128-byte chunks: two blocks each
        final CreditReceiver receiver = new CreditReceiver(2, new int[] {2, 4}, 128);
        assertEquals(2, receiver.dataVls());
        assertEquals(2, receiver.bufferBlocks(0));
        assertEquals(4, receiver.bufferBlocks(1));
        assertEquals(1, receiver.capacityBlocks(0), "one free chunk advertises one block");
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(1, 1, 128));
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(1, 3, 128));
    }


    @Test
    void anFcpIsDueExactlyOnePeriodAfterTheLastOneAndEarlyAtExactlyTheThreshold()
    {
        final int[] fccl = new int[1];
        final FcpSchedule schedule = new FcpSchedule(1, 1000, 64, vl -> fccl[vl]);
        assertEquals(64, schedule.earlyThresholdBlocks());
        schedule.reset(0);
        assertEquals(0, schedule.poll(0), "due at once after a reset");
        fccl[0] = 100;
        schedule.onFcpSent(0, 0, 100);
        assertEquals(FcpSchedule.NONE, schedule.poll(999));
        assertEquals(0, schedule.poll(1000), "due exactly one period later");

        schedule.onFcpSent(0, 1000, 100);
        fccl[0] = 100 + 63;
        assertEquals(FcpSchedule.NONE, schedule.poll(1001), "63 blocks of new credit: not yet");
        fccl[0] = 100 + 64;
        assertEquals(0, schedule.poll(1001), "64 blocks of new credit: early");
        fccl[0] = (4090 + 64) & Credits.MASK;
        schedule.onFcpSent(0, 1001, 4090);
        assertEquals(0, schedule.poll(1002), "the advance is counted across the 4096 wrap");
    }

    @Test
    void aScheduleResetForgetsWhatWasAdvertisedAndMakesEveryVlDue()
    {
        final FcpSchedule schedule = new FcpSchedule(2, 1000, 2048, vl -> vl == 0 ? 700 : 900);
        schedule.onFcpSent(0, 50, 700);
        schedule.onFcpSent(1, 50, 900);
        assertEquals(FcpSchedule.NONE, schedule.poll(60));
        schedule.reset(60);
        assertEquals(0, schedule.advertisedFccl(0), "nothing advertised since the link came up");
        assertEquals(0, schedule.advertisedFccl(1));
        assertEquals(60, schedule.dueNs(1));
        assertEquals(0, schedule.poll(60));
        schedule.onFcpSent(0, 60, 0);
        assertEquals(1, schedule.poll(60));
    }

    @Test
    void theEarlyThresholdIsOneTo2048Blocks()
    {
        assertEquals(1, new FcpSchedule(1, 1, 1, vl -> 0).earlyThresholdBlocks());
        assertEquals(2048, new FcpSchedule(1, 1, 2048, vl -> 0).earlyThresholdBlocks());
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1, 0, vl -> 0));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1, 2049, vl -> 0));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 0, 64, vl -> 0));
    }

    @Test
    void symbolTimesConvertAtTheDataRateAndRefuseWhatCannotBeComputed()
    {
        assertEquals(0, LineRate.nanosOf(0, 1), "no symbols take no time");
        assertEquals(8, LineRate.nanosOf(1, 1_000_000_000L), "a byte at 1 Gb/s is 8 ns");
        final long largest = Long.MAX_VALUE / (8 * 1_000_000_000L);
        assertEquals(largest, LineRate.nanosOf(largest, 8_000_000_000L), "the largest count that cannot overflow");
        assertThrows(IllegalArgumentException.class, () -> LineRate.nanosOf(largest + 1, 8_000_000_000L));
        assertThrows(IllegalArgumentException.class, () -> LineRate.nanosOf(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> LineRate.nanosOf(1, 0));
    }
}
