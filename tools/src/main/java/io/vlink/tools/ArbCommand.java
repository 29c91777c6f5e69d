package io.vlink.tools;

import io.vlink.core.arb.Scenario;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code vlink arb}: the VL arbitration tools (docs/arbitration.md).
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
        throw new ParameterException(spec.commandLine(), "missing command");
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
                "smp SIZE COUNT [before G], fcp COUNT [before G], credits VL BLOCKS, grants N. # starts a comment.",
            "Packets that can never be sent (their VL's credits are spent, or no table entry gives it a weight) are " +
                "reported on stderr per VL: a warning when other traffic was sent, an error when nothing could be."},
        footer = {
            "",
            "Exit status: 0 the run completed; 1 the scenario is malformed or cannot be read, or nothing in it can " +
                "ever be sent; 2 usage error."})
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
            final Result<Scenario> parsed = Scenario.read(scenario);
            if (parsed.stopped())
            {
                Diagnostics.print(err, parsed);   // not read: the one line every command prints
            }
            else
            {
                print(err, parsed.diagnostics());
                if (null != parsed.more())
                {
                    err.println(parsed.more());
                }
            }
            if (!parsed.ok())
            {
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            final List<Diagnostic> stranded = parsed.value().run(out::println);
            out.flush();
            final boolean failed = print(err, stranded);
            err.flush();
            return failed ? Vlink.EXIT_FAILURE : 0;
        }

        /**
         * Spec form of a malformed scenario: file:line: message (warnings keep their label); a finding about OpenSM's
         * defaults has no line (0) and reads file: warning: message, as Diagnostic prints it.
         *
         * @return whether any was an error.
         */
        private static boolean print(final PrintWriter err, final List<Diagnostic> diagnostics)
        {
            boolean errors = false;
            for (final Diagnostic d : diagnostics)
            {
                err.println(d.file() + (d.line() > 0 ? ":" + d.line() : "") + ": " + (d.isError() ? "" : "warning: ") +
                    d.message());
                errors |= d.isError();
            }
            return errors;
        }
    }
}
