package io.vlink.tools;

import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;

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
        final Result<InjectScenario> parsed = TextLines.read(scenario, InjectScenario.reader(scenario.toString()));
        Diagnostics.print(err, parsed);
        err.flush();
        if (!parsed.ok())
        {
            return Vlink.EXIT_FAILURE;
        }
        parsed.value().run(out::println);
        out.flush();
        return 0;
    }
}
