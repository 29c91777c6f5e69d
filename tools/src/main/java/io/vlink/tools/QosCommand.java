package io.vlink.tools;

import io.vlink.core.config.Result;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosPort;
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
 * {@code vlink qos}: checks and shows the QoS options of an OpenSM {@code opensm.conf}, as OpenSM programs them on
 * a port (docs/qos.md).
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
     * The file, port type and port both subcommands take.
     */
    static final class QosFile
    {
        @Parameters(index = "0", paramLabel = "FILE", description = "An opensm.conf (non-QoS keys are ignored).")
        Path file;

        @Option(names = "--port-type", paramLabel = "T", defaultValue = "ca",
            description = "Which qos_<type>_ options apply: ca, swe, sw0, rtr or sw2sw (default: ${DEFAULT-VALUE}).")
        PortType portType;

        @Option(names = "--vl-cap", paramLabel = "N", defaultValue = "15",
            description = "The port's VL capability: 1, 2, 4, 8 or 15 data VLs (default: ${DEFAULT-VALUE}, a vlink " +
                "port); OpenSM masks every VL to the operational ones.")
        int vlCap;

        @Option(names = "--peer-vl-cap", paramLabel = "N",
            description = "The neighbour's VL capability (default: the port's own).")
        Integer peerVlCap;

        @Option(names = "--cap", paramLabel = "N", defaultValue = "8",
            description = "Entries the port's VLArbitration tables hold, LowCap and HighCap, 1..64 (default: " +
                "${DEFAULT-VALUE}, as ConnectX adapters and ibsim report); OpenSM programs no more.")
        int cap;

        QosPort port(final CommandSpec spec)
        {
            final int peer = null == peerVlCap ? vlCap : peerVlCap;
            if (!QosConfig.isDataVlCount(vlCap) || !QosConfig.isDataVlCount(peer))
            {
                throw new ParameterException(spec.commandLine(), "--vl-cap " + vlCap + (null == peerVlCap ? "" :
                    ", --peer-vl-cap " + peerVlCap) + ": a port has 1, 2, 4, 8 or 15 data VLs");
            }
            if (cap < 1 || cap > QosPort.MAX_CAP)
            {
                throw new ParameterException(spec.commandLine(), "--cap " + cap + ": a VLArbitration table holds 1.." +
                    QosPort.MAX_CAP + " entries");
            }
            return QosPort.vlink().vlCap(vlCap).peerVlCap(peer).caps(cap, cap);
        }

        Result<QosConfig> read(final CommandSpec spec, final QosReader.Mode mode, final boolean strict)
        {
            return QosReader.read(file, portType, port(spec), mode, strict);
        }
    }

    /**
     * {@code vlink qos check FILE}: exit 0 when OpenSM programs the file as written (warnings are printed), 1 with
     * every error otherwise.
     */
    @Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = "Validates the qos_* options of an opensm.conf: exit 0 when OpenSM programs them as written " +
            "(warnings on stderr), 1 with every error otherwise, each place OpenSM would change without saying " +
            "(a misread list, a folded or masked VL, a lost entry) among them.")
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
            final Result<QosConfig> result = qos.read(spec, QosReader.Mode.CHECK, strict);
            if (Diagnostics.refused(err, qos.file, result, "nothing is applied"))
            {
                return Vlink.EXIT_FAILURE;
            }
            final QosConfig config = result.value();
            out.println(qos.file + ": ok: port type " + qos.portType.label() + ", " +
                Diagnostics.count(config.dataVls(), "data VL") + ", VLHighLimit " + config.highLimit() + ", " +
                Diagnostics.count(result.warnings(), "warning"));
            out.flush();
            err.flush();
            return 0;
        }
    }

    /**
     * {@code vlink qos show FILE}: the tables OpenSM programs, as {@code smpquery vlarb} and {@code smpquery sl2vl}
     * print them, then VLHighLimit and the data VLs.
     */
    @Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = "Prints the tables OpenSM programs on the port, quirks included, the way smpquery vlarb and " +
            "smpquery sl2vl do, then VLHighLimit and the data VLs; each place OpenSM changes what the file says " +
            "is a warning on stderr.")
    static final class Show implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Mixin
        QosFile qos;

        @Option(names = "--lid", paramLabel = "L",
            description = "Head the tables 'Lid L port P' as smpquery does (default: the port type).")
        Integer lid;

        @Option(names = "--port", paramLabel = "P", defaultValue = "1",
            description = "The switch port whose tables are shown (swe, sw2sw: its SL2VL rows read 'out P'; " +
                "default: ${DEFAULT-VALUE}).")
        int port;

        @Option(names = "--ports", paramLabel = "N", defaultValue = "36",
            description = "The switch's external ports (swe, sw2sw: an SL2VL row per input port 0..N, as smpquery " +
                "prints; default: ${DEFAULT-VALUE}).")
        int ports;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final boolean externalPort = qos.portType == PortType.SWE || qos.portType == PortType.SW2SW;
            if (ports < 1 || ports > 254 || port < (externalPort ? 1 : 0) || port > ports)
            {
                throw new ParameterException(spec.commandLine(), "--ports " + ports + ", --port " + port + ": a switch " +
                    "has 1..254 external ports and the port is one of them");
            }
            final Result<QosConfig> result = qos.read(spec, QosReader.Mode.APPLY, false);
            if (Diagnostics.refused(err, qos.file, result, "nothing to show"))
            {
                return Vlink.EXIT_FAILURE;
            }
            final QosConfig config = result.value();
            final int shownPort = externalPort ? port : qos.portType == PortType.SW0 ? 0 : port;
            final String name = null == lid ? qos.portType.label() : "Lid " + lid + " port " + shownPort;
            final StringBuilder text = new StringBuilder();
            SmpqueryFormat.vlarb(text, config, name);
            SmpqueryFormat.sl2vl(text, config, null == lid ? qos.portType.label() : "Lid " + lid,
                externalPort ? ports : 0, externalPort ? port : 0);
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
