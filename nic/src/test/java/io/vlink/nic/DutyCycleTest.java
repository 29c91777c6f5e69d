package io.vlink.nic;

import io.vlink.nic.agent.DutyCycle;
import io.vlink.nic.agent.DutyCycleClock;
import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DutyCycleTest
{
    private final List<String> calls = new ArrayList<>();
    private long time = 100;
    private boolean clockFails;
    private boolean captureFails;

    private final DutyCycleClock clock = new DutyCycleClock(() ->
    {
        if (clockFails)
        {
            throw new IllegalStateException("clock");
        }
        calls.add("clock");
        return time++;
    });

    private final Agent capture = new Agent()
    {
        public int doWork()
        {
            if (captureFails)
            {
                throw new IllegalStateException("capture");
            }
            calls.add("capture at " + clock.nanoTime());
            return 3;
        }

        public void onClose()
        {
            calls.add("capture closed");
            throw new IllegalStateException("capture close");
        }

        public String roleName()
        {
            return "capture";
        }
    };

    @Test
    void thePartsRunInOrderOnTheTimeReadAtTheStartOfTheCycle() throws Exception
    {
        final DutyCycle cycle = new DutyCycle(clock, null, null, null, null, null, capture, true);
        calls.clear();
        assertEquals(3, cycle.doWork());
        assertEquals(List.of("clock", "capture at 101"), calls);
        assertEquals("[clock,capture]", cycle.roleName());
    }

    @Test
    void aPartThatThrowsEndsTheCycleAndTheNextCycleGoesOnAfterIt() throws Exception
    {
        final DutyCycle cycle = new DutyCycle(clock, null, null, null, null, null, capture, true);
        calls.clear();
        clockFails = true;
        assertThrows(IllegalStateException.class, cycle::doWork);
        assertEquals(List.of(), calls, "nothing after the failing part");
        // the next cycle resumes after the clock: the capture runs on the time of the last good read
        assertEquals(3, cycle.doWork());
        assertEquals(List.of("capture at 100"), calls);
        calls.clear();
        clockFails = false;
        assertEquals(3, cycle.doWork());
        assertEquals(List.of("clock", "capture at 101"), calls, "then whole cycles again");
    }

    @Test
    void aLastPartThatThrowsLeavesTheNextCycleWhole() throws Exception
    {
        final DutyCycle cycle = new DutyCycle(clock, null, null, null, null, null, capture, true);
        calls.clear();
        captureFails = true;
        assertThrows(IllegalStateException.class, cycle::doWork);
        assertEquals(List.of("clock"), calls, "the parts before the failing one ran");
        calls.clear();
        captureFails = false;
        assertEquals(3, cycle.doWork());
        assertEquals(List.of("clock", "capture at 102"), calls, "nothing was left to resume: a whole cycle");
        calls.clear();
        assertEquals(3, cycle.doWork());
        assertEquals(List.of("clock", "capture at 103"), calls);
    }

    @Test
    void closeRethrowsAPartsFailureAndAnEmptyCycleIsRefused()
    {
        final DutyCycle cycle = new DutyCycle(clock, null, null, null, null, null, capture, true);
        calls.clear();
        final IllegalStateException thrown = assertThrows(IllegalStateException.class, cycle::onClose);
        assertEquals("capture close", thrown.getMessage());
        assertEquals(List.of("capture closed"), calls);
        assertThrows(IllegalArgumentException.class, () -> new DutyCycle(null, null, null, null, null, null, null, true));
    }
}
