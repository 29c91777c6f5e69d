package io.vlink.nic.status;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.port.CreditCounters;
import io.vlink.core.port.ReceiveCounters;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Counters with owners: each part that writes a port's counters is handed its own, once; every discard reason has
 * one counting part on a port; readers get a view of what the writers wrote. And "credits recovered", the one
 * definition ({@link CreditRecovery}), read from those counters.
 */
class PortCounterSetTest
{
    @TempDir
    File dir;

    @Test
    void eachWriterIsHandedItsCountersOnce()
    {
        try (CountersFile file = CountersFile.create(dir, "owners", 512, 64 * 1024, new CachedEpochClock()))
        {
            final PortCounterSet set = new PortCounterSet(file, 0, 4);
            final List<Supplier<Object>> parts = List.of(set::receive, set::credit, set::transmit, set::link,
                set::inject, set::application, set::forward);
            final List<String> refusals = new ArrayList<>();
            for (final Supplier<Object> part : parts)
            {
                assertNotNull(part.get());
                refusals.add(assertThrows(IllegalStateException.class, part::get).getMessage());
            }
            assertEquals(List.of(
                "port 0: the receive half's counters were handed out already (each has one writer)",
                "port 0: the credit half's counters were handed out already (each has one writer)",
                "port 0: the transmit half's counters were handed out already (each has one writer)",
                "port 0: the link's counters were handed out already (each has one writer)",
                "port 0: the injection agent's counters were handed out already (each has one writer)",
                "port 0: the application's counters were handed out already (each has one writer)",
                "port 0: the forwarding counters were handed out already (each has one writer)"), refusals);
            assertSame(set.view(), set.view(), "readers share one view");
        }
    }

    @Test
    void everyDiscardReasonHasOneCountingPartOnAPort()
    {
        final Set<DiscardReason> forwarding =
            EnumSet.of(DiscardReason.NO_ROUTE, DiscardReason.SL2VL_UNMAPPED, DiscardReason.HOQ_LIFETIME);
        final Set<DiscardReason> counted = EnumSet.noneOf(DiscardReason.class);
        for (final List<DiscardReason> part : List.of(ReceiveCounters.REASONS, CreditCounters.REASONS,
            List.copyOf(forwarding)))
        {
            for (final DiscardReason reason : part)
            {
                assertTrue(counted.add(reason), reason + " counted by two parts");
            }
        }
        assertEquals(EnumSet.allOf(DiscardReason.class), counted, "every reason has a counting part");

        try (CountersFile file = CountersFile.create(dir, "reasons", 512, 64 * 1024, new CachedEpochClock()))
        {
            final PortCounterSet set = new PortCounterSet(file, 0, 2);
            final ForwardCounters forward = set.forward();
            forward.discards(DiscardReason.HOQ_LIFETIME.id()).increment();
            assertEquals(1, set.view().discards(DiscardReason.HOQ_LIFETIME.id()).get());
            assertEquals("FCP_STALE is not counted by a switch's forwarding", assertThrows(IllegalStateException.class,
                () -> forward.discards(DiscardReason.FCP_STALE.id())).getMessage());
            // a CA port's injection agent counts an unmapped SL there instead (a port is one or the other)
            set.inject().sl2vlUnmapped().increment();
            assertEquals(1, set.view().discards(DiscardReason.SL2VL_UNMAPPED.id()).get());
        }
    }

    @Test
    void theViewReadsWhatTheLinksWriterWrote()
    {
        try (CountersFile file = CountersFile.create(dir, "view", 512, 64 * 1024, new CachedEpochClock()))
        {
            final PortCounterSet set = new PortCounterSet(file, 3, 1);
            final LinkCounters link = set.link();
            link.backPressure().increment();
            link.helloSendErrors().increment();
            link.helloSendErrors().increment();
            final PortCounters view = set.view();
            assertEquals(1, view.linkBackPressure().get());
            assertEquals(2, view.linkHelloSendErrors().get());
            assertEquals(0, view.linkReceiveErrors().get());
            assertEquals(0, view.txLinkFull().get(), "a refused claim is the link's to count, once");
            assertEquals(3, view.port());
        }
    }

    @Test
    void theViewReadsTheCellsTheInjectionAgentPublished()
    {
        try (CountersFile file = CountersFile.create(dir, "cells", 512, 64 * 1024, new CachedEpochClock()))
        {
            final PortCounterSet set = new PortCounterSet(file, 0, 2);
            final InjectCounters inject = set.inject();
            inject.txCells(1).setRelease(6);
            inject.txCells(PortCounters.VL15).setRelease(2);
            final PortCounters view = set.view();
            assertEquals(0, view.txCells(0).get());
            assertEquals(6, view.txCells(1).get());
            assertEquals(2, view.txCells(PortCounters.VL15).get());
            assertNull(view.txCells(2), "a VL the port lacks has no counter");
            assertNull(inject.txCells(2));
        }
    }

    @Test
    void creditsAreBackWhenFctbsIsAbrTheBufferIsFreeAndTheSenderMaySendWhatItAdvertises()
    {
        assertTrue(CreditRecovery.recovered(100, 612, 100, 512, 512));
        assertTrue(CreditRecovery.recovered(4090, (4090 + 512) & 0xFFF, 4090, 512, 512), "CL - FCTBS mod 4096");
        assertTrue(CreditRecovery.recovered(7, 7 + 2048, 7, 4096, 4096), "at most 2048 advertised");
        assertFalse(CreditRecovery.recovered(100, 612, 99, 512, 512), "a block not accounted");
        assertFalse(CreditRecovery.recovered(100, 611, 100, 511, 512), "a block not released");
        assertFalse(CreditRecovery.recovered(100, 611, 100, 512, 512), "a stale CL");
    }

    @Test
    void whatIsNotBackIsNamedByCableEndAndVl()
    {
        try (CountersFile file = CountersFile.create(dir, "recovery", 512, 64 * 1024, new CachedEpochClock()))
        {
            final PortCounterSet a = new PortCounterSet(file, 1, 2);
            final PortCounterSet b = new PortCounterSet(file, 2, 2);
            for (int vl = 0; vl < 2; vl++)
            {
                a.txFctbs[vl].set(40);
                a.txCreditLimit[vl].set(40 + 256);
                b.rxAbr[vl].set(40);
                b.rxFreeBlocks[vl].set(256);
            }
            assertEquals(List.of(), CreditRecovery.unrecovered("A[1]", a.view(), b.view(), 256));

            b.rxFreeBlocks[1].set(252);
            assertEquals(List.of("A[1] VL1: FCTBS 40, CL 296, CL-FCTBS 256, ABR 40, free 252 of 256"),
                CreditRecovery.unrecovered("A[1]", a.view(), b.view(), 256));
            assertEquals(List.of("A[1] VL1: the receive buffer has 252 of 256 blocks free"),
                CreditRecovery.unrecovered("A[1]", null, b.view(), 256), "the sender in another process");
            assertEquals(List.of(), CreditRecovery.unrecovered("A[1]", a.view(), null, 256),
                "the receiver in another process: the sender alone is checked");

            a.txCreditLimit[0].set(40 + 255);
            assertEquals(List.of("A[1] VL0: FCTBS 40, CL 295, CL-FCTBS 255, the idle peer's buffer 256"),
                CreditRecovery.unrecovered("A[1]", a.view(), null, 256));
        }
    }
}
