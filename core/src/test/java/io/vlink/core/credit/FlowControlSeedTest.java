package io.vlink.core.credit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked examples of seed 001 (Link-Level Flow Control), number for number, as flow-control.md lists them:
 * one transmitter (this side's VL0) and the peer's receiver with a 3072-block buffer.
 */
class FlowControlSeedTest
{
    private static final int VL = 0;

    private final CreditTransmitter transmitter = new CreditTransmitter(1);
    private final CreditReceiver receiver = new CreditReceiver(1, 3072, 64);

    /** The receiver sends an FCP: the transmitter's CL becomes its FCCL. */
    private void receiverSendsFcp()
    {
        transmitter.onCreditLimit(VL, receiver.fccl(VL));
    }

    /** The transmitter checks, sends and the receiver accepts a packet of {@code blocks}. */
    private void transfer(final int blocks)
    {
        assertTrue(transmitter.tryTransmit(VL, blocks), "credit check");
        assertTrue(receiver.accept(VL, blocks), "receiver accepts");
    }

    @Test
    void anEmptyBufferOf3072BlocksAdvertisesTheCapOf2048()
    {
        // steps 1-3: FCCL = ABR (0) + min(3072, 2048)
        assertEquals(0, receiver.blocksReceived(VL));
        assertEquals(3072, receiver.freeBlocks(VL));
        assertEquals(2048, receiver.fccl(VL));
        // step 4: the init FCP sets CL
        receiverSendsFcp();
        assertEquals(2048, transmitter.creditLimit(VL));
    }

    @Test
    void tenThenFiveBlocksGive2058Then2063()
    {
        receiverSendsFcp();
        // step 6: CR = 0 + 10, CL - CR = 2038
        assertEquals(2038, Credits.distance(transmitter.creditLimit(VL), Credits.add(transmitter.blocksSent(VL), 10)));
        transfer(10);
        // steps 7-8
        assertEquals(10, transmitter.blocksSent(VL));
        assertEquals(10, receiver.blocksReceived(VL));
        assertEquals(3062, receiver.freeBlocks(VL));
        assertEquals(2058, receiver.fccl(VL));
        // step 9: CR = 10 + 5 = 15 against the unchanged CL 2048
        assertTrue(transmitter.mayTransmit(VL, 5));
        transfer(5);
        // steps 9-11
        assertEquals(15, transmitter.blocksSent(VL));
        assertEquals(15, receiver.blocksReceived(VL));
        assertEquals(3057, receiver.freeBlocks(VL));
        assertEquals(2063, receiver.fccl(VL));
    }

    @Test
    void after1024BlocksHeldFcclStays3072UntilSomethingIsReleased()
    {
        // step 13: 1024 blocks received and held, FCTBS and ABR agree, an FCP carried FCCL 3072
        receiverSendsFcp();
        for (int i = 0; i < 16; i++)
        {
            transfer(64);
        }
        assertEquals(2048, receiver.freeBlocks(VL));
        assertEquals(3072, receiver.fccl(VL));
        receiverSendsFcp();
        assertEquals(3072, transmitter.creditLimit(VL));

        // steps 15-17: a 3-block packet
        transfer(3);
        assertEquals(1027, transmitter.blocksSent(VL));
        assertEquals(1027, receiver.blocksReceived(VL));
        assertEquals(2045, receiver.freeBlocks(VL));
        assertEquals(3072, receiver.fccl(VL));

        // "the FCCL will not change until the Receiver starts offloading blocks"
        transfer(5);
        transfer(100);
        assertEquals(3072, receiver.fccl(VL));
        receiver.release(VL, 3);
        assertEquals(3075, receiver.fccl(VL));
    }

    @Test
    void aFullBufferBlocksTheNextBlockUntilOneIsReleasedAndTheNewFcclArrives()
    {
        receiverSendsFcp();
        for (int i = 0; i < 16; i++)
        {
            transfer(64);
        }
        receiverSendsFcp();
        for (int i = 0; i < 32; i++)
        {
            transfer(64);
        }
        // 3072 blocks sent, nothing offloaded
        assertEquals(3072, transmitter.blocksSent(VL));
        assertEquals(0, receiver.freeBlocks(VL));
        assertEquals(3072, receiver.fccl(VL));
        assertEquals(3072, transmitter.creditLimit(VL));

        // CR = 3073 > CL = 3072: (CL - CR) mod 4096 = 4095, above 2048
        assertEquals(4095, Credits.distance(3072, Credits.add(transmitter.blocksSent(VL), 1)));
        assertFalse(transmitter.mayTransmit(VL, 1));
        assertFalse(transmitter.tryTransmit(VL, 1));
        assertEquals(3072, transmitter.blocksSent(VL), "a refused packet is not counted");

        // one block offloaded: FCCL 3073, but the transmitter waits for the FCP that carries it
        receiver.release(VL, 1);
        assertEquals(3073, receiver.fccl(VL));
        assertFalse(transmitter.mayTransmit(VL, 1));
        receiverSendsFcp();
        assertEquals(3073, transmitter.creditLimit(VL));
        assertTrue(transmitter.mayTransmit(VL, 1));
        assertFalse(transmitter.mayTransmit(VL, 2));
        transfer(1);
        assertEquals(3073, transmitter.blocksSent(VL));
    }

    @Test
    void rolloverCl000AndCrE03Leave509()
    {
        // the spec's numbers: CL = 0x000, CR = 0xE03 (3587)
        assertEquals(3587, 0xE03);
        assertEquals(509, Credits.distance(0x000, 0xE03));
        // a transmitter at FCTBS 0xE02 holding CL 0x000 may send a 1-block packet (CR 0xE03)
        transmitter.onCreditLimit(VL, 0x000);
        for (int i = 0; i < 0xE02; i++)
        {
            transmitter.onTransmit(VL, 1);
        }
        assertEquals(0xE02, transmitter.blocksSent(VL));
        assertTrue(transmitter.mayTransmit(VL, 1));
        assertTrue(transmitter.mayTransmit(VL, 510));
        assertFalse(transmitter.mayTransmit(VL, 511));
    }

    @Test
    void fcclRolloverNarrative()
    {
        // build the seed's Figure 25-14 state through real traffic: 3586 blocks sent and received, 2568 held
        // (free 504), so the last FCP carried FCCL 3586 + 504 = 4090
        receiverSendsFcp();
        int held = 0;
        int sent = 0;
        while (sent < 3586)
        {
            final int blocks = Math.min(64, 3586 - sent);
            if (!transmitter.mayTransmit(VL, blocks))
            {
                final int toRelease = Math.min(held - 2568, 64);
                receiver.release(VL, toRelease);
                held -= toRelease;
                receiverSendsFcp();
                continue;
            }
            transfer(blocks);
            sent += blocks;
            held += blocks;
        }
        while (held > 2568)
        {
            final int toRelease = Math.min(held - 2568, 64);
            receiver.release(VL, toRelease);
            held -= toRelease;
        }
        assertEquals(3586, receiver.blocksReceived(VL));
        assertEquals(504, receiver.freeBlocks(VL));
        receiverSendsFcp();
        assertEquals(4090, transmitter.creditLimit(VL));

        // five blocks offloaded: FCCL 4095; one more: free 510 and FCCL 3586 + 510 = 4096 rolls over to 0x000
        receiver.release(VL, 5);
        assertEquals(4095, receiver.fccl(VL));
        receiver.release(VL, 1);
        assertEquals(510, receiver.freeBlocks(VL));
        assertEquals(0x000, receiver.fccl(VL));

        // step 2: the transmitter still has CL 4090; a 1-block packet gives CR 3587 and 4090 - 3587 = 503: go
        assertEquals(503, Credits.distance(transmitter.creditLimit(VL), Credits.add(transmitter.blocksSent(VL), 1)));
        transfer(1);
        // steps 3-4
        assertEquals(3587, transmitter.blocksSent(VL));
        assertEquals(3587, receiver.blocksReceived(VL));
        assertEquals(509, receiver.freeBlocks(VL));
        assertEquals(0x000, receiver.fccl(VL), "ABR up one, free down one: FCCL unchanged");

        // steps 5-7: the FCP sets CL to 0x000; CL - CR by two's complement is 509, the receiver's free count
        receiverSendsFcp();
        assertEquals(0x000, transmitter.creditLimit(VL));
        assertEquals(509, transmitter.available(VL));
        assertTrue(transmitter.mayTransmit(VL, 509));
        assertFalse(transmitter.mayTransmit(VL, 510));
    }
}
