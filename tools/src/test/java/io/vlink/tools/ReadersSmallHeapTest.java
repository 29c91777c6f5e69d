package io.vlink.tools;

import io.vlink.core.arb.Scenario;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import io.vlink.core.credit.LineRate;
import io.vlink.core.fabric.LftReader;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Peers;
import io.vlink.core.fabric.Topology;
import io.vlink.core.fabric.TopologyReader;
import io.vlink.core.fuzz.FuzzTries;
import io.vlink.core.fuzz.Mutator;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosPort;
import io.vlink.core.qos.QosReader;
import io.vlink.nic.link.LinkKey;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.SkipExecutionHook;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every reader of vlink on the inputs that ate the machine (issue 31): {@code /dev/zero}, {@code /dev/urandom}, an
 * endless pipe, huge and mutated text. Runs in its own surefire execution with {@code -Xmx64m} (tools' pom,
 * "small-heap"): a reader that held a file whole, or kept something per line of an endless file, ends in an
 * {@link OutOfMemoryError} here. Each command answers in one line on stderr, exit 1, nothing on stdout, no trace.
 */
@AddLifecycleHook(FuzzTries.class)
@AddLifecycleHook(ReadersSmallHeapTest.SmallHeapOnly.class)
class ReadersSmallHeapTest
{
    /** The heap this class runs in: the small-heap execution's {@code -Xmx64m}. */
    private static final long SMALL_HEAP = 64L << 20;
    private static final Topology FABRIC = TopologyReader.parse("topo", text("/topology/net.2sw2path4hca"),
        LineRate.EDR_4X).orThrow();

    /** A reader of each kind with a valid input to mutate and a valid line to repeat without end. */
    private enum Kind
    {
        TOPOLOGY(TextLines.MAX_TABLE_BYTES, text("/topology/net.2sw2path4hca"), "[1] \"H\"[1]",
            f -> TopologyReader.reader(f, LineRate.EDR_4X, 0)),
        LFT(TextLines.MAX_TABLE_BYTES, "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n" +
            "0x0001 000\n0x0002 001\n0x0003 003\n", "0x0002 001 # the same row again", f -> LftReader.reader(f, FABRIC)),
        PEERS(TextLines.MAX_FILE_BYTES, "Switch1 127.0.0.1:47000\nSwitch2 127.0.0.1:47100\n", "Switch1 127.0.0.1:47000",
            f -> Peers.reader(f, FABRIC)),
        SL_MAP(TextLines.MAX_FILE_BYTES, "2 3 1\n3 2 4\n", "2 3 1", f -> PathSl.reader(f, FABRIC)),
        QOS(TextLines.MAX_FILE_BYTES, example("opensm-qos.conf"), "qos_vlarb_low 0:64,1:64,2:64",
            f -> QosReader.reader(f, PortType.CA, QosPort.vlink(), QosReader.Mode.CHECK, false)),
        ARB(TextLines.MAX_FILE_BYTES, example("seed-figure-25-10.scn"), "packets 6 4096 10",
            Scenario::reader),
        SCHED(TextLines.MAX_FILE_BYTES, example("tenure.sched"), "message 10 8192 2",
            f -> new SchedCommand.SchedScenario.Parser(f)),
        INJECT(TextLines.MAX_FILE_BYTES, example("inject-marks.inj"), "command 0 dma 8192",
            InjectScenario::reader),
        KEY(LinkKey.MAX_FILE_BYTES, "# a key\n00112233445566778899aabbccddeeff\n", "00112233445566778899aabbccddeeff",
            LinkKey::reader);

        final int maxFileBytes;
        final String valid;
        final String repeated;
        final Function<String, LineReader<?>> reader;

        Kind(final int maxFileBytes, final String valid, final String repeated,
            final Function<String, LineReader<?>> reader)
        {
            this.maxFileBytes = maxFileBytes;
            this.valid = valid;
            this.repeated = repeated;
            this.reader = reader;
        }

        Result<?> read(final InputStream in, final int maxFileBytes)
        {
            return TextLines.read(name(), in, maxFileBytes, TextLines.MAX_LINE_BYTES, reader.apply(name()));
        }
    }

    /**
     * @return whether this JVM's heap is the small one: run alone ({@code -Dtest}) in the default execution's heap as
     * well, this class would prove nothing there and is skipped (it runs in the small-heap execution all the same).
     */
    static boolean smallHeap()
    {
        return Runtime.getRuntime().maxMemory() <= SMALL_HEAP;
    }

    /** Skips the properties outside the small heap, as {@link EnabledIf} skips the tests (jqwik reads no JUnit condition). */
    public static final class SmallHeapOnly implements SkipExecutionHook
    {
        @Override
        public SkipResult shouldBeSkipped(final LifecycleContext context)
        {
            return smallHeap() ? SkipResult.doNotSkip() : SkipResult.skip("runs in the small-heap execution (-Xmx64m)");
        }

        @Override
        public PropagationMode propagateTo()
        {
            return PropagationMode.ALL_DESCENDANTS;
        }
    }

    @Test
    @EnabledIf("smallHeap")
    void theValidInputsAreValid()
    {
        for (final Kind kind : Kind.values())
        {
            final Result<?> result = kind.read(bytes(kind.valid), kind.maxFileBytes);
            assertTrue(result.ok(), kind + ": " + result);
        }
    }

    @Test
    @EnabledIf("smallHeap")
    void devicesAndBinaryFilesAnswerInOneLine()
    {
        final String topo = resource("/topology/net.2sw2path4hca");
        for (final String device : new String[] {"/dev/zero", "/dev/urandom"})
        {
            assumeTrue(Files.isReadable(Path.of(device)), "no " + device);
            for (final String[] command : new String[][] {
                {"fabric", "check", device}, {"fabric", "routes", device}, {"fabric", "routes", topo, "--lft", device},
                {"fabric", "check", topo, "--qos", device}, {"qos", "check", device}, {"qos", "show", device},
                {"arb", "simulate", device}, {"sched", "simulate", device}, {"inject", "simulate", device},
                {"fabric", "run", topo, "--nodes", "Switch1", "--peers", device}})
            {
                assertOneLine(Cli.run(command), device + ":", "a NUL byte: binary data, not a text file");
            }
        }
    }

    @Test
    @EnabledIf("smallHeap")
    void endlessPipesAnswerInOneLine() throws Exception
    {
        final String topo = resource("/topology/net.2sw2path4hca");
        final String comment = " # " + "x".repeat(1000) + "\n";
        // 811,898 lines of errors from fabric check on main: here one line at the 64 MiB limit
        piped("garbage" + comment, TextLines.MAX_TABLE_BYTES, "file longer than 67108864 bytes", fifo ->
            Cli.run("fabric", "check", fifo));
        piped("0x0002 001" + comment, TextLines.MAX_TABLE_BYTES, "file longer than 67108864 bytes", fifo ->
            Cli.run("fabric", "routes", topo, "--lft", fifo));
        piped("qos_max_vls 8" + comment, TextLines.MAX_FILE_BYTES, "file longer than 1048576 bytes", fifo ->
            Cli.run("qos", "check", fifo));
        piped("packets 0 64 1\n", TextLines.MAX_FILE_BYTES, "file longer than 1048576 bytes", fifo ->
            Cli.run("arb", "simulate", fifo));
        piped("Switch1 127.0.0.1:47000\n", TextLines.MAX_FILE_BYTES, "file longer than 1048576 bytes", fifo ->
            Cli.run("fabric", "run", topo, "--nodes", "Switch1", "--peers", fifo));
        // a key from a pipe took 1.5 GB on main: here the 4096-byte line limit
        piped("0123456789abcdef", LinkKey.MAX_FILE_BYTES, "file longer than 4096 bytes", fifo ->
            Cli.run("soak", "--link", "udp", "--key", fifo, "--seconds", "1"));
    }

    /** Zeros, random bytes, or a valid line repeated past the limit: one finding, or a bounded answer. */
    @Property(tries = 60, seed = "3131")
    void endlessAndHugeInputs(@ForAll final Kind kind, @ForAll @IntRange(max = 2) final int shape,
        @ForAll final long seed)
    {
        // 4 MiB for the tables (their own 64 MiB is read once, by the pipe test): the same reading, a sixteenth of it
        final int limit = Math.min(kind.maxFileBytes, 4 << 20);
        final Endless in = new Endless(shape == 0 ? new byte[] {0} : shape == 1 ? random(seed) :
            (kind.repeated + "\n").getBytes(StandardCharsets.ISO_8859_1));
        final Result<?> result = kind.read(in, limit);
        assertTrue(result.stopped(), kind + ": " + result);
        assertEquals(1, result.diagnostics().size(), result::toString);
        assertTrue(in.taken <= (long)limit + TextLines.MAX_LINE_BYTES + (64 << 10), () -> in.taken + " bytes taken");
    }

    /** Mutations of a valid input: read, or refused with at most {@link Findings#MAX_KEPT} findings; never thrown. */
    @Property(tries = 400, seed = "3132")
    void mutatedInputs(@ForAll final Kind kind, @ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final byte[] bytes = mutator.mutate(kind.valid.getBytes(StandardCharsets.ISO_8859_1),
            1 + mutator.random().nextInt(6));
        final Result<?> result = kind.read(new ByteArrayInputStream(bytes), kind.maxFileBytes);
        assertTrue(result.diagnostics().size() <= Findings.MAX_KEPT, result::toString);
        assertEquals(result.ok(), result.errors() == 0, result::toString);
        if (result.stopped())
        {
            assertEquals(1, result.diagnostics().size(), result::toString);
        }
        for (final Diagnostic d : result.diagnostics())
        {
            assertFalse(d.toString().chars().anyMatch(c -> c < 0x20 || (c >= 0x7F && c <= 0x9F)), d::toString);
            assertTrue(d.toString().length() < 1024, d::toString);
        }
    }

    /** Thousands of bad lines: the first {@link Findings#MAX_KEPT} are kept, the others counted, in one summary. */
    @Test
    @EnabledIf("smallHeap")
    void manyBadLinesKeepAHundredAndCountTheRest()
    {
        for (final Kind kind : Kind.values())
        {
            final String bad = (kind == Kind.QOS ? "qos_max_vls " : "") + "\u00e9t\u00e9 " + kind.name() + "\n";
            final Result<?> result = kind.read(bytes(bad.repeat(5_000)), kind.maxFileBytes);
            if (kind == Kind.KEY)
            {
                assertEquals(1, result.errors(), "a key file's first mistake is its one finding: " + result);
                continue;
            }
            assertEquals(Findings.MAX_KEPT, result.diagnostics().size(), kind + ": " + result);
            assertTrue(result.errors() >= 5_000, kind + ": " + result.errors());
            assertTrue(result.more().startsWith("... and 4,9"), kind + ": " + result.more());
        }
    }

    private static void piped(final String pattern, final long limit, final String message,
        final Function<String, Cli> command) throws Exception
    {
        final Path dir = Files.createTempDirectory("vlink-pipe");
        final Path fifo = dir.resolve("endless");
        try
        {
            final Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).start();
            assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
            final byte[] chunk = (pattern.repeat(Math.max(1, (64 << 10) / pattern.length())))
                .getBytes(StandardCharsets.ISO_8859_1);
            final long[] written = new long[1];
            final java.util.concurrent.atomic.AtomicBoolean opened = new java.util.concurrent.atomic.AtomicBoolean();
            final Thread writer = new Thread(() ->
            {
                try (OutputStream out = Files.newOutputStream(fifo))
                {
                    opened.set(true);
                    while (!Thread.currentThread().isInterrupted())
                    {
                        out.write(chunk);
                        written[0] += chunk.length;
                    }
                }
                catch (final IOException closedByTheReader)
                {
                    // a broken pipe: the reader stopped, as it should
                }
            }, "endless-writer");
            writer.setDaemon(true);
            writer.start();
            final Cli cli = command.apply(fifo.toString());
            if (!opened.get())
            {
                // the command never opened the pipe, so the writer is (or will be) blocked in its open: open the read
                // end here so that it returns, then close. Never when the writer has opened: it may have ended since,
                // and an open of the read end with no writer would wait for ever
                try (InputStream unblock = Files.newInputStream(fifo))
                {
                    unblock.readNBytes(1);
                }
            }
            writer.interrupt();
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(writer.isAlive(), "the writer ended");
            assertOneLine(cli, fifo + ":", message);
            assertTrue(written[0] <= limit + (1 << 20), () -> written[0] + " bytes went into the pipe");
        }
        finally
        {
            Files.deleteIfExists(fifo);
            Files.deleteIfExists(dir);
        }
    }

    private static void assertOneLine(final Cli cli, final String prefix, final String message)
    {
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals("", cli.out, cli::toString);
        final String[] lines = cli.err.split("\n");
        assertEquals(1, lines.length, cli::toString);
        assertTrue(lines[0].startsWith(prefix) && lines[0].contains(": error: " + message), cli::toString);
        assertFalse(cli.err.contains("Exception") || cli.err.contains("Error:") || cli.err.contains("\tat "),
            cli::toString);
    }

    private static InputStream bytes(final String text)
    {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] random(final long seed)
    {
        final byte[] bytes = new byte[64 << 10];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static String text(final String resource)
    {
        try (InputStream in = ReadersSmallHeapTest.class.getResourceAsStream(resource))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String example(final String name)
    {
        try
        {
            return Files.readString(Path.of("../examples", name));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String resource(final String name)
    {
        try
        {
            final Path file = Files.createTempFile("vlink-topo", "");
            Files.writeString(file, text(name));
            file.toFile().deleteOnExit();
            return file.toString();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** An endless stream repeating a pattern, that counts what it gave. */
    private static final class Endless extends InputStream
    {
        private final byte[] pattern;
        private int at;
        long taken;

        Endless(final byte[] pattern)
        {
            this.pattern = Arrays.copyOf(pattern, pattern.length);
        }

        @Override
        public int read()
        {
            taken++;
            final int b = pattern[at] & 0xFF;
            at = (at + 1) % pattern.length;
            return b;
        }

        @Override
        public int read(final byte[] b, final int off, final int len)
        {
            for (int i = 0; i < len; i++)
            {
                b[off + i] = pattern[at];
                at = (at + 1) % pattern.length;
            }
            taken += len;
            return len;
        }
    }
}
