package io.vlink.tools;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A {@code vlink} command in a JVM of its own (the flags the launcher gives), its stdout read line by line and its
 * stderr in a file: for the tests of processes that die, stop or are interrupted. Every wait has a deadline.
 */
final class VlinkProcess
{
    static final long DEADLINE_S = 60;
    private static final String EOF = "\u0000EOF";

    final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> out = new ArrayList<>();

    private VlinkProcess(final Process process, final Path stderr)
    {
        this.process = process;
        this.stderr = stderr;
        final Thread reader = new Thread(this::read, "vlink-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param stderr where its stderr goes.
     * @param args   the command and its arguments.
     * @return the running command.
     */
    static VlinkProcess start(final Path stderr, final String... args) throws IOException
    {
        return new VlinkProcess(new ProcessBuilder(command(args)).redirectError(stderr.toFile()).start(), stderr);
    }

    /**
     * @param args the command and its arguments.
     * @return the vlink command in a JVM of its own, with the flags the launcher gives it.
     */
    static List<String> command(final String... args)
    {
        final List<String> command = new ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 24)
        {
            // JDK 24 and later warn on stderr that Chronicle Bytes (captures) uses sun.misc.Unsafe (the README says so)
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Vlink.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * @param regex what the line must match, whole.
     * @return the first line on stdout from here that does.
     */
    String awaitLine(final String regex) throws InterruptedException, IOException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        String line;
        do
        {
            line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(line, "no line matching " + regex + " within " + DEADLINE_S + " s: " + out + "\n" +
                stderr());
            assertNotEquals(EOF, line, "the process ended before a line matching " + regex + ": " + out + "\n" +
                stderr());
            out.add(line);
        }
        while (!line.matches(regex));
        return line;
    }

    /**
     * @return the process's exit status, once it ended (within the deadline).
     */
    int awaitExit() throws InterruptedException
    {
        assertTrue(process.waitFor(DEADLINE_S, TimeUnit.SECONDS), "the process did not end within " + DEADLINE_S +
            " s");
        return process.exitValue();
    }

    /**
     * @return all of stdout, once the process closed it.
     */
    String stdout() throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        String line;
        while (null != (line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS)) &&
            !EOF.equals(line))
        {
            out.add(line);
        }
        return String.join("\n", out);
    }

    String stderr() throws IOException
    {
        return Files.readString(stderr);
    }

    /**
     * @param name a signal's name ({@code INT}, {@code STOP}, ...).
     * @param pid  the process.
     */
    static void signal(final String name, final long pid) throws Exception
    {
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
        assertTrue(kill.waitFor(DEADLINE_S, TimeUnit.SECONDS) && 0 == kill.exitValue(), "kill -" + name);
    }

    private void read()
    {
        try (BufferedReader in =
            new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = in.readLine()))
            {
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("(stdout: " + ex + ")");
        }
        lines.add(EOF);
    }
}
