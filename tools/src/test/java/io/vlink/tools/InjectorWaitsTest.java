package io.vlink.tools;

import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionBounds;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.inject.InjectorArbiter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulator's own check of the waits: a wait beyond its bound ends the run as a bug. */
class InjectorWaitsTest
{
    // one round-robin class of two injectors, 1-cell packets, a drain of 100: a high wait of at most
    // N + 1 + floor((X + 2P - 2) / D) = 2 + 1 + 0 = 3 steps, any wait 3 + ceil((C + P - 1) / D) = 4
    private final InjectionConfig config = new InjectionConfig().shape(2, 1).sharedCells(4).reservedCells(0)
        .marks(0, 1).marks(1, 4, 8);
    private final CellBuffer cells = new CellBuffer(config);
    private final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
    private final InjectorWaits waits = new InjectorWaits(config, arbiter, 1, 100);

    @Test
    void aHighInjectorWaitingBeyondItsBoundEndsTheRun()
    {
        assertEquals(3, InjectionBounds.highWait(config, 1, 1, 100));
        final boolean[] waiting = {false, true};
        for (int step = 1; step <= 3; step++)
        {
            waits.step(waiting, InjectorArbiter.NONE);
        }
        assertEquals(3, waits.maxWait(1));
        final IllegalStateException broken =
            assertThrows(IllegalStateException.class, () -> waits.step(waiting, InjectorArbiter.NONE));
        assertTrue(broken.getMessage().contains("injector 1 waited 4 steps (4 of them high)"), broken.getMessage());
    }

    @Test
    void aWaitLowByTheMarksCountsOnlyTowardsTheBoundOnAnyWait()
    {
        arbiter.ready(0, 1);
        assertEquals(0, arbiter.select(0));
        assertTrue(!arbiter.isHigh(0) && cells.occ(0) == 1, "OCC 1 at its high mark 1, above its low mark 0");
        assertEquals(4, InjectionBounds.anyWait(config, 0, 1, 100));
        final boolean[] waiting = {true, false};
        for (int step = 1; step <= 4; step++)
        {
            waits.step(waiting, InjectorArbiter.NONE);
        }
        final IllegalStateException broken =
            assertThrows(IllegalStateException.class, () -> waits.step(waiting, InjectorArbiter.NONE));
        assertTrue(broken.getMessage().contains("injector 0 waited 5 steps (0 of them high)"), broken.getMessage());
    }

    @Test
    void beingChosenEndsAWait()
    {
        final boolean[] waiting = {true, true};
        for (int step = 1; step <= 10; step++)
        {
            waits.step(waiting, step % 2);
        }
        assertEquals(1, waits.maxWait(0));
        assertEquals(1, waits.maxWait(1));
    }
}
