package io.vlink.tools;

import io.vlink.core.arb.Scenario;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.TextLines;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code vlink arb}: the VL arbitration tools (spec {@code vl-arbitration.md}).
 */
@Command(
    name = "arb",
    mixinStandardHelpOptions = true,
    description = "VL arbitration: the deterministic simulator of the engine's arbiter.",
    subcommands = {ArbCommand.Simulate.class})
public final class ArbCommand implements Runnable
{
    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "Missing command: see 'vlink arb --help'");
    }

    /**
     * {@code vlink arb simulate SCENARIO}: runs the real arbiter against a scenario and prints what it grants.
     */
    @Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the engine's VL arbiter (the same class) against a scenario and prints each slot's grant, then " +
                "each data VL's share.",
            "Scenario lines: qos_* options and max_op_vls as in opensm.conf, port_type ca|swe|sw0|rtr|sw2sw, " +
                "data_vls N, low_burst weight|packet, packets VL SIZE COUNT, sl_packets SL SIZE COUNT, " +
                "smp SIZE COUNT [before G], fcp COUNT [before G], credits VL BLOCKS, grants N. # starts a comment."})
    static final class Simulate implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SCENARIO", description = "The scenario file.")
        Path scenario;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final TextLines text = TextLines.read(scenario);
            if (text.error() != null)
            {
                err.println(text.error());
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            final Scenario.Parsed parsed = Scenario.parse(scenario.toString(), text.lines());
            for (final Diagnostic d : parsed.diagnostics())
            {
                // Spec form of a malformed scenario: file:line: message (warnings keep their label); a finding
                // about OpenSM's defaults has no line (0) and reads file: warning: message, as Diagnostic prints it
                err.println(d.file() + (d.line() > 0 ? ":" + d.line() : "") + ": " + (d.isError() ? "" : "warning: ") +
                    d.message());
            }
            if (parsed.scenario() == null)
            {
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            parsed.scenario().run(out::println);
            out.flush();
            return 0;
        }
    }
}
