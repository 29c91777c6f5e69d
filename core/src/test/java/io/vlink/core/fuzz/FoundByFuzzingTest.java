package io.vlink.core.fuzz;

import io.vlink.core.arb.Scenario;
import io.vlink.core.arb.SimulatedPort;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inputs the fuzzers found a bug with, each as a regression test (docs/fuzzing.md lists them).
 */
class FoundByFuzzingTest
{
    /**
     * Bug 1: {@code packets 0 64 2147483647} queued one array slot per packet: with {@code grants 3} the run died
     * growing the queue (a 2^31-element array: OutOfMemoryError, then NegativeArraySizeException) before its first
     * slot. Queues now hold runs of equal packets.
     */
    @Test
    void twoBillionPacketsWithAGrantLimitRunInConstantMemory()
    {
        final Result<Scenario> parsed = Scenario.parse("huge.txt", List.of("packets 0 64 2147483647", "grants 3"));
        assertEquals(List.of(), parsed.diagnostics());
        final List<String> out = new ArrayList<>();
        parsed.value().run(out::add);
        assertEquals(List.of(
            "grant 1 vl=0 bytes=64 from=high",
            "grant 2 vl=0 bytes=64 from=high",
            "grant 3 vl=0 bytes=64 from=high",
            "share vl=0 packets=3 bytes=192 fraction=1.0000"), out);
    }

    @Test
    void aQueueHoldsMoreThanTwoBillionPackets()
    {
        final SimulatedPort port = new SimulatedPort()
            .enqueue(2, 64, Integer.MAX_VALUE).enqueue(2, 64, Integer.MAX_VALUE).enqueue(2, 128, 1);
        assertEquals(2L * Integer.MAX_VALUE + 1, port.queued(2));
        assertEquals(64, port.headSize(2));
    }

    /**
     * Bug 2: without {@code grants}, {@code packets 0 64 2147483647} ran 2^31 slots (a line each: hours of output,
     * an out-of-memory error for a caller that collects it). A run is now limited to {@link Scenario#MAX_SLOTS}: the
     * scenario is refused at the COUNT that crosses it.
     */
    @Test
    void twoBillionPacketsWithoutAGrantLimitAreRefusedAtTheirCount()
    {
        final Result<Scenario> parsed = Scenario.parse("huge.txt", List.of("data_vls 1", "packets 0 64 2147483647"));
        assertNull(parsed.value());
        final Diagnostic d = single(parsed);
        assertEquals(2, d.line());
        assertEquals(14, d.column());
        assertTrue(d.message().startsWith("the run would take up to 2147483647 slots by this line, more than the " +
            "simulator's 1000000"), d.message());
    }

    /** Bug 2 again: an arrival at slot 2^31 - 1 meant 2^31 - 2 idle slots first; refused at its G. */
    @Test
    void anArrivalTwoBillionSlotsAwayIsRefusedAtItsSlot()
    {
        final Result<Scenario> parsed = Scenario.parse("late.txt", List.of("smp 8 1 before 2147483647"));
        assertNull(parsed.value());
        final Diagnostic d = single(parsed);
        assertEquals(1, d.line());
        assertEquals(16, d.column());
    }

    @Test
    void theLimitItselfIsAccepted()
    {
        final Result<Scenario> atLimit = Scenario.parse("limit.txt", List.of(
            "packets 0 64 999990", "fcp 5 before 6", "grants 2147483647"));
        assertNotNull(atLimit.value(), atLimit.diagnostics()::toString);
        final Result<Scenario> over = Scenario.parse("limit.txt", List.of("packets 0 64 999990", "fcp 5 before 7"));
        assertNull(over.value());
        assertEquals(2, single(over).line());
        assertEquals(14, single(over).column());
    }

    private static Diagnostic single(final Result<Scenario> parsed)
    {
        final List<Diagnostic> errors = parsed.diagnostics().stream().filter(Diagnostic::isError).toList();
        assertEquals(1, errors.size(), errors::toString);
        return errors.get(0);
    }
}
