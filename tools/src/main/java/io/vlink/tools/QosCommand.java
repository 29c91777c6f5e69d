package io.vlink.tools;

import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosReader;
import io.vlink.core.qos.SmpqueryFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code vlink qos}: checks and shows the QoS options of an OpenSM {@code opensm.conf}
 * (docs/qos.md).
 */
@Command(
    name = "qos",
    mixinStandardHelpOptions = true,
    description = "QoS options of an OpenSM opensm.conf: check them, show the effective tables.",
    subcommands = {QosCommand.Check.class, QosCommand.Show.class})
public final class QosCommand implements Runnable
{
    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "missing command");
    }

    /**
     * The file and port type both subcommands take.
     */
    static final class QosFile
    {
        @Parameters(index = "0", paramLabel = "FILE", description = "An opensm.conf (non-QoS keys are ignored).")
        Path file;

        @Option(names = "--port-type", paramLabel = "T", defaultValue = "ca",
            description = "Which qos_<type>_ options apply: ca, swe, sw0, rtr or sw2sw (default: ${DEFAULT-VALUE}).")
        PortType portType;

        QosReader.Result read(final boolean strict)
        {
            return QosConfig.read(file, portType, strict);
        }
    }

    /**
     * {@code vlink qos check FILE}: exit 0 when the file can be applied (warnings are printed), 1 with every
     * error otherwise.
     */
    @Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = "Validates the qos_* options of an opensm.conf as the engine reads them: exit 0 when they can " +
            "be applied (warnings on stderr), 1 with every error otherwise.")
    static final class Check implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Mixin
        QosFile qos;

        @Option(names = "--strict", description = "Every warning is an error.")
        boolean strict;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final QosReader.Result result = qos.read(strict);
            final int errors = Diagnostics.print(err, result.diagnostics());
            final int warnings = result.diagnostics().size() - errors;
            if (!result.ok())
            {
                err.println(qos.file + ": refused: " + Diagnostics.count(errors, "error") + ", " +
                    Diagnostics.count(warnings, "warning") + "; nothing is applied");
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            final QosConfig config = result.config();
            out.println(qos.file + ": ok: port type " + qos.portType.label() + ", " +
                Diagnostics.count(config.dataVls(), "data VL") + ", VLHighLimit " + config.highLimit() + ", " +
                Diagnostics.count(warnings, "warning"));
            out.flush();
            err.flush();
            return 0;
        }
    }

    /**
     * {@code vlink qos show FILE}: the effective tables as {@code smpquery vlarb} and {@code smpquery sl2vl}
     * print them, then VLHighLimit and the data VLs.
     */
    @Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = "Prints the effective tables the way smpquery vlarb and smpquery sl2vl do, then VLHighLimit " +
            "and the data VLs.")
    static final class Show implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Mixin
        QosFile qos;

        @Option(names = "--cap", paramLabel = "N",
            description = "Entries shown per table, like LowCap/HighCap (default: the entry count rounded up to a " +
                "multiple of 8, at least 8); must be at least the table's entry count, at most 64.")
        Integer cap;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final QosReader.Result result = qos.read(false);
            final int errors = Diagnostics.print(err, result.diagnostics());
            if (!result.ok())
            {
                err.println(qos.file + ": refused: " + Diagnostics.count(errors, "error") + "; nothing to show");
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            final QosConfig config = result.config();
            final int lowCap = cap == null ? SmpqueryFormat.defaultCap(config.low()) : cap;
            final int highCap = cap == null ? SmpqueryFormat.defaultCap(config.high()) : cap;
            final int entries = Math.max(config.low().size(), config.high().size());
            if (cap != null && (cap < entries || cap > 64))
            {
                throw new ParameterException(spec.commandLine(), "--cap " + cap + ": the effective tables have up to " +
                    entries + " entries; a cap must be " + entries + "..64 so that no entry is hidden");
            }
            final String port = qos.portType.label();
            final StringBuilder text = new StringBuilder();
            SmpqueryFormat.vlarb(text, config, port, lowCap, highCap);
            SmpqueryFormat.sl2vl(text, config, port);
            text.append("VLHighLimit: ").append(config.highLimit()).append('\n');
            final int dataVls = config.dataVls();
            text.append("DataVLs: ").append(dataVls).append(dataVls == 1 ? " (VL0)" : " (VL0-" + (dataVls - 1) + ")")
                .append('\n');
            out.print(text);
            out.flush();
            err.flush();
            return 0;
        }
    }
}
