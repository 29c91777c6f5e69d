package io.vlink.tools;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code vlink inject}: the injector arbitration of the transmit path (docs/injection.md).
 * <p>
 * {@code vlink inject simulate SCENARIO} runs core's injector arbiter and cell buffer, step by step on an injected
 * clock, over a scenario file and prints one line per release, priority change and injection, then each class's
 * share of the cells and each injector's figures.
 */
@Command(
    name = "inject",
    mixinStandardHelpOptions = true,
    description = "Injector arbitration: water marks, priority timers, weighted classes over a shared cell buffer.")
public final class InjectCommand implements Runnable
{
    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "missing command");
    }

    /**
     * @param scenario the scenario file.
     * @return 0, or 1 when the scenario is malformed ({@code file:line:column: error: message} on stderr).
     */
    @Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        description = {
            "Simulate the engine's injector arbiter and cell buffer with a draining wire, one step a tick: each step " +
                "the wire releases, then resets and timers apply, then at most one packet is injected.",
            "Directives, one a line, '#' comments: cell BYTES | shared CELLS | mtu BYTES | idc-threshold BYTES | " +
                "idc-marks LOW HIGH | class K weight W reserved R [policy rr|first] | " +
                "injector I class K marks LOW HIGH [timer STEPS] | command I idc|dma BYTES [COUNT] | drain CELLS | " +
                "reset STEP | steps N.",
            "Defaults: cell 256, shared 624, mtu 2048, idc-threshold 224, idc-marks 4 8, drain 8, no timer; the run " +
                "ends when every command is sent and every cell released (at most " + InjectScenario.MAX_STEPS +
                " steps)."})
    public int simulate(@Parameters(paramLabel = "SCENARIO", description = "the scenario file") final Path scenario)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String file = scenario.toString();
        if (Files.isDirectory(scenario))
        {
            err.println(Diagnostic.cannotRead(file, Diagnostic.IS_A_DIRECTORY));
            return Vlink.EXIT_FAILURE;
        }
        final byte[] bytes;
        try (InputStream in = Files.newInputStream(scenario))
        {
            bytes = in.readNBytes(InjectScenario.MAX_FILE_BYTES + 1);
        }
        catch (final IOException ex)
        {
            err.println(Diagnostic.cannotRead(file, ex));
            return Vlink.EXIT_FAILURE;
        }
        if (bytes.length > InjectScenario.MAX_FILE_BYTES)
        {
            err.println(new Diagnostic(file, 0, 0, Diagnostic.Severity.ERROR, "the scenario is more than " +
                InjectScenario.MAX_FILE_BYTES + " bytes; a scenario is a few dozen directives (use COUNT for " +
                "repeated commands)"));
            return Vlink.EXIT_FAILURE;
        }
        // byte for byte, as the other simulators read: a Latin-1 comment is fine, a bad byte in a directive is an
        // error at its line; lines end at LF, CR or CRLF
        final List<String> lines = new String(bytes, StandardCharsets.ISO_8859_1).lines().collect(Collectors.toList());
        final InjectScenario parsed;
        try
        {
            parsed = InjectScenario.parse(file, lines);
        }
        catch (final ConfigException ex)
        {
            Diagnostics.print(err, ex.diagnostics());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        parsed.run(out::println);
        out.flush();
        return 0;
    }
}
