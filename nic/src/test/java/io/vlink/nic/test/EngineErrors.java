package io.vlink.nic.test;

import io.vlink.nic.status.CountersFile;
import org.agrona.concurrent.errors.ErrorLogReader;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Agents survive exceptions (they are logged and counted); a test that expects none checks the log.
 */
public final class EngineErrors
{
    private EngineErrors()
    {
    }

    /**
     * @param file the engine's counters file.
     * @return the distinct errors logged, one per line, with their counts.
     */
    public static String of(final CountersFile file)
    {
        final StringBuilder errors = new StringBuilder();
        ErrorLogReader.read(file.errorLogBuffer(),
            (count, first, last, encoded) -> errors.append(count).append(" x ").append(encoded).append('\n'));
        return errors.toString();
    }

    /**
     * @param file the engine's counters file.
     */
    public static void assertNone(final CountersFile file)
    {
        assertEquals("", of(file), "no agent error");
    }
}
