package io.vlink.tools.fuzz;

import io.vlink.core.fuzz.Fuzz;
import io.vlink.core.fuzz.FuzzInputs;
import io.vlink.core.fuzz.FuzzTries;
import io.vlink.core.fuzz.Mutator;
import io.vlink.core.wire.Packets;
import io.vlink.tools.Cli;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the commands that read user files, in-process through {@link Cli#run}: {@code vlink decode} on mutated
 * real captures, {@code vlink arb simulate}, {@code vlink sched simulate} and {@code vlink inject simulate} on
 * mutated scenarios and arbitrary bytes, {@code vlink qos check} on mutated OpenSM files. Exit code 0, 1 or 2 only; findings on stderr as
 * {@code file:line: message} with a line of the file; never a stack trace; every run bounded.
 */
@AddLifecycleHook(FuzzTries.class)
class CliFuzzTest
{
    /** Valid {@code vlink sched simulate} scenarios (spec injection.md). */
    static final List<List<String>> SCHED_SCENARIOS = List.of(
        List.of(
            "slat 0:512,1:256",
            "qp 10 0",
            "qp 20 1",
            "message 10 1024",
            "message 20 512"),
        List.of(
            "# every directive",
            "mtu 256",
            "tenure 1024 3",
            "slat 0:300,1:256,2:0,1:512   # SL 0 overdraws",
            "qp 1 0",
            "qp 2 0",
            "qp 3 1",
            "qp 16777215 2",
            "message 1 700",
            "message 2 4096 3",
            "message 3 0",
            "message 16777215 100 2",
            "packets 40"));

    /** A valid {@code vlink inject simulate} scenario with every directive. */
    static final List<String> INJECT_SCENARIO = List.of(
        "cell 128", "shared 20", "mtu 512", "idc-threshold 200", "idc-marks 2 6",
        "class 0 weight 8 reserved 6", "class 1 weight 3 reserved 5 policy first",
        "injector 0 class 0 marks 4 8", "injector 1 class 0 marks 1 3 timer 5", "injector 2 class 1 marks 2 9 timer 2",
        "command 0 dma 3000 3", "command 0 idc 150 4", "command 1 idc 64 7", "command 2 dma 700 5",
        "drain 3", "reset 7", "steps 60");

    private static final Path DIR = Fuzz.tempDir("cli-fuzz");
    private static final byte[] CAPTURE = Packets.captureBytes();
    private static final Pattern STACK_TRACE = Pattern.compile("(?m)^\\s+at [\\w.$]+\\(|Exception|Error:");

    @Property(tries = 150, seed = "7501")
    void decodeMutatedCaptures(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final Path file = write("capture.pcap", mutator.mutate(CAPTURE, 1 + mutator.random().nextInt(6)));
        final boolean json = mutator.random().nextBoolean();
        final Cli cli = json ? Cli.run("decode", "--json", file.toString()) : Cli.run("decode", file.toString());
        final String input = "seed " + seed;
        assertTrue(cli.exitCode == 0 || cli.exitCode == 1, input + ": " + cli);
        noStackTrace(cli, input);
        for (final String line : cli.out.split("\n", -1))
        {
            if (!line.isEmpty())
            {
                assertTrue(json ? line.startsWith("{\"index\":") && line.endsWith("}") : line.matches("\\d+ \\w+.*"),
                    input + ": " + line);
                assertFalse(line.contains("null"), input + ": " + line);
            }
        }
        if (cli.exitCode == 1)
        {
            assertTrue(cli.err.contains("vlink decode: ") || cli.err.startsWith(file + ": error: "), input + ": " + cli);
        }
    }

    @Property(tries = 150, seed = "7502")
    void arbSimulateMutatedScenarios(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final List<String> valid = FuzzInputs.ARB_SCENARIOS.get(mutator.random().nextInt(FuzzInputs.ARB_SCENARIOS.size()));
        simulate("arb", mutator.mutateText(valid, 1 + mutator.random().nextInt(5))
            .getBytes(StandardCharsets.ISO_8859_1), "seed " + seed);
    }

    @Property(tries = 150, seed = "7503")
    void schedSimulateMutatedScenarios(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final List<String> valid = SCHED_SCENARIOS.get(mutator.random().nextInt(SCHED_SCENARIOS.size()));
        final String text = mutator.mutateText(valid, 1 + mutator.random().nextInt(5));
        // half as UTF-8 (unicode tokens become several bytes), half as Latin-1
        simulate("sched", text.getBytes(mutator.random().nextBoolean() ? StandardCharsets.UTF_8 :
            StandardCharsets.ISO_8859_1), "seed " + seed);
    }

    @Property(tries = 100, seed = "7504")
    void simulateArbitraryBytes(@ForAll @Size(max = 300) final byte[] bytes, @ForAll final boolean arb) throws IOException
    {
        simulate(arb ? "arb" : "sched", bytes, Base64.getEncoder().encodeToString(bytes));
    }

    @Property(tries = 150, seed = "7506")
    void injectSimulateMutatedScenarios(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final String text = mutator.mutateText(INJECT_SCENARIO, 1 + mutator.random().nextInt(5));
        simulate("inject", text.getBytes(mutator.random().nextBoolean() ? StandardCharsets.UTF_8 :
            StandardCharsets.ISO_8859_1), "seed " + seed);
    }

    @Property(tries = 100, seed = "7507")
    void injectSimulateArbitraryBytes(@ForAll @Size(max = 300) final byte[] bytes) throws IOException
    {
        simulate("inject", bytes, Base64.getEncoder().encodeToString(bytes));
    }

    @Property(tries = 100, seed = "7505")
    void qosCheckMutatedFiles(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final List<String> valid = FuzzInputs.OPENSM_FILES.get(mutator.random().nextInt(FuzzInputs.OPENSM_FILES.size()));
        final byte[] bytes = mutator.mutateText(valid, 1 + mutator.random().nextInt(5)).getBytes(StandardCharsets.ISO_8859_1);
        final Path file = write("opensm.conf", bytes);
        final String[] portTypes = {"ca", "swe", "sw0", "rtr", "sw2sw"};
        final String portType = portTypes[mutator.random().nextInt(portTypes.length)];
        final Cli cli = mutator.random().nextBoolean() ?
            Cli.run("qos", "check", file.toString(), "--port-type", portType, "--strict") :
            Cli.run("qos", "show", file.toString(), "--port-type", portType);
        final String input = "seed " + seed;
        assertTrue(cli.exitCode == 0 || cli.exitCode == 1, input + ": " + cli);
        noStackTrace(cli, input);
        findingsInsideTheFile(cli.err, file.toString(), Fuzz.lines(bytes), input);
    }

    private static void simulate(final String command, final byte[] bytes, final String input) throws IOException
    {
        final Path file = write("scenario.txt", bytes);
        final Cli cli = Cli.run(command, "simulate", file.toString());
        assertTrue(cli.exitCode == 0 || cli.exitCode == 1, input + ": " + cli);
        noStackTrace(cli, input);
        findingsInsideTheFile(cli.err, file.toString(), Fuzz.lines(bytes), input);
        if (cli.exitCode == 1)
        {
            assertFalse(cli.err.isEmpty(), input + ": a refusal says why");
            assertTrue(cli.err.startsWith(file + ":"), input + ": " + cli);
        }
    }

    /** Every stderr line that names the file gives a line of it (and a column within it, when it gives one). */
    private static void findingsInsideTheFile(
        final String err, final String file, final List<String> lines, final String input)
    {
        final Pattern location = Pattern.compile("^" + Pattern.quote(file) + ":(\\d+)(?::(\\d+))?: ");
        for (final String line : err.split("\n", -1))
        {
            if (!line.startsWith(file))
            {
                continue;
            }
            final Matcher m = location.matcher(line);
            if (!m.find())
            {
                // the whole-file form FILE: message (a finding about the defaults, or the file as a whole)
                assertTrue(line.startsWith(file + ": "), input + ": " + line);
                continue;
            }
            final int lineNumber = Integer.parseInt(m.group(1));
            assertTrue(lineNumber >= 1 && lineNumber <= lines.size(),
                input + ": line " + lineNumber + " of " + lines.size() + ": " + line);
            if (m.group(2) != null)
            {
                final int column = Integer.parseInt(m.group(2));
                assertTrue(column >= 1 && column <= lines.get(lineNumber - 1).length() + 1, input + ": " + line);
            }
        }
    }

    private static void noStackTrace(final Cli cli, final String input)
    {
        assertFalse(STACK_TRACE.matcher(cli.err).find(), input + ": " + cli);
        assertEquals(-1, cli.out.indexOf("\tat "), input + ": " + cli);
    }

    private static Path write(final String name, final byte[] bytes) throws IOException
    {
        return Files.write(DIR.resolve(name), bytes);
    }
}
