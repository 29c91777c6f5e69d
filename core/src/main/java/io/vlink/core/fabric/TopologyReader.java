package io.vlink.core.fabric;

import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import io.vlink.core.credit.LineRate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a fabric topology in the format {@code ibnetdiscover} prints and {@code ibsim} reads: node records of a
 * header line ({@code Switch N "ID"}, {@code Ca N "ID"}, {@code Hca N "ID"}, {@code Rt N "ID"}) followed by one line
 * per connected port, ended by a blank line or the next header.
 * <pre>
 * switchguid=0x2c902004a5ad8(2c902004a5ad8)
 * Switch  36 "S-0002c902004a5ad8"   # "MF0;switch-1:IS5030/U1" base port 0 lid 3 lmc 0
 * [1]     "H-0002c903000e8f4c"[1](2c903000e8f4d)   # "node1 HCA-1" lid 5 4xQDR
 *
 * Ca      2 "H-0002c903000e8f4c"    # "node1 HCA-1"
 * [1](2c903000e8f4d)  "S-0002c902004a5ad8"[1]   # lid 5 lmc 0 "MF0;switch-1:IS5030/U1" lid 3 4xQDR
 * </pre>
 * Every form {@code ibnetdiscover} prints is read: the default, {@code -g} (chassis groups, {@code [ext N]} port
 * suffixes), {@code -s} (its {@code DR path ...} progress lines), {@code -f} ({@code s= w= v=} in the comments) and
 * {@code -m}. Every error is reported in one pass as {@code FILE:LINE:COL: error: what; how to fix}, and a topology
 * with an error is refused whole. Links must be named from both ends.
 * <p>
 * GUIDs the file does not give are the ones {@code ibsim} gives the same file: switches from 0x200000 upward (one
 * each), channel adapters from 0x100000 (node GUID, then one per port: a CA of N ports takes N + 1), routers from 0;
 * a {@code switchguid=}/{@code caguid=}/{@code rtguid=} line sets the next node's GUID of that kind, as in ibsim.
 * Ports without a LID in the file get the LIDs OpenSM assigns on a fresh fabric: first the subnet manager's port
 * (ibsim runs it on the file's first node: a switch's port 0, a CA's port 1), then every other port in the order of
 * OpenSM's port table (port GUIDs compared as the little-endian machine stores them, byte-swapped), each the lowest
 * free range of {@code 2^lmc} LIDs aligned to its size (a switch's port 0 takes one LID), a range's LIDs skipped for
 * alignment lost (docs/fabric.md).
 */
public final class TopologyReader
{
    private static final Pattern HEADER = Pattern.compile(
        "^(Switch|Ca|Hca|Rt)([ \\t]+)(\\d+)[ \\t]+\"([^\"]*)\"[ \\t]*(#.*)?$");
    private static final Pattern PORT = Pattern.compile(
        "^\\[(\\d+)\\](?:\\[ext \\d+\\])?(\\(([0-9A-Fa-fx]+)\\))?[ \\t]+\"([^\"]*)\"\\[(\\d+)\\](?:\\[ext \\d+\\])?" +
        "([ \\t]*\\(([0-9A-Fa-fx]+)\\))?([ \\t]+w=(\\d+))?[ \\t]*(#.*)?$");
    private static final Pattern SWITCH_LID = Pattern.compile("(?:base|enhanced)\\s+port\\s+0\\s+lid\\s+(\\d+)\\s+lmc\\s+(\\d+)");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");
    private static final Pattern LID = Pattern.compile("\\blid\\s+(\\d+)(?:\\s+lmc\\s+(\\d+))?");
    private static final Pattern SPEED = Pattern.compile("\\b(1|2|4|8|12)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\\b");
    private static final Pattern CHASSIS = Pattern.compile("^Chassis \\d+( \\(guid 0x[0-9A-Fa-f]+\\))?$");
    private static final Pattern GUID_LINE = Pattern.compile(
        "^(switchguid|caguid|hcaguids|rtguid|sysimgguid)=0x([0-9A-Fa-f]{1,16})(?:\\(([0-9A-Fa-f]{1,16})\\))?\\s*(#.*)?$");
    /** ibsim's first GUID of each kind of node (switch, CA, router). */
    private static final long[] IBSIM_GUID_BASE = {0x200000L, 0x100000L, 0L};

    private TopologyReader()
    {
    }

    /**
     * @param file        the topology file.
     * @param defaultRate the rate of links whose line does not give one.
     * @return the topology (LMC 0 for ports the file gives none), or every finding.
     */
    public static Result<Topology> read(final Path file, final LineRate defaultRate)
    {
        return read(file, defaultRate, 0);
    }

    /**
     * @param file        the topology file, read within {@link TextLines}' limits.
     * @param defaultRate the rate of links whose line does not give one.
     * @param lmc         the LMC (0..7) OpenSM runs with ({@code opensm -l}): the LMC of every CA and router port
     *                    the file gives no LID ({@code 2^lmc} LIDs each); a switch's port 0 always takes one LID.
     * @return the topology, or every finding.
     */
    public static Result<Topology> read(final Path file, final LineRate defaultRate, final int lmc)
    {
        return TextLines.read(file, TextLines.MAX_TABLE_BYTES, TextLines.MAX_LINE_BYTES,
            reader(file.toString(), defaultRate, lmc));
    }

    /**
     * @param file        the name to report findings against.
     * @param text        the file's text.
     * @param defaultRate the rate of links whose line does not give one.
     * @return the topology (LMC 0), or every finding.
     */
    public static Result<Topology> parse(final String file, final String text, final LineRate defaultRate)
    {
        return parse(file, text, defaultRate, 0);
    }

    /**
     * @param file        the name to report findings against.
     * @param text        the file's text.
     * @param defaultRate the rate of links whose line does not give one.
     * @param lmc         OpenSM's LMC (0..7), as in {@link #read(Path, LineRate, int)}.
     * @return the topology, or every finding.
     */
    public static Result<Topology> parse(final String file, final String text, final LineRate defaultRate, final int lmc)
    {
        return TextLines.parse(file, text, TextLines.MAX_TABLE_BYTES, reader(file, defaultRate, lmc));
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe).
     *
     * @param file        the name to report findings against.
     * @param defaultRate the rate of links whose line does not give one.
     * @param lmc         OpenSM's LMC (0..7), as in {@link #read(Path, LineRate, int)}.
     * @return a fresh reader of one topology.
     */
    public static LineReader<Topology> reader(final String file, final LineRate defaultRate, final int lmc)
    {
        if (lmc < 0 || lmc > 7)
        {
            throw new IllegalArgumentException("lmc must be 0..7, got " + lmc);
        }
        return new Parse(file, defaultRate, lmc);
    }

    /** A node record as written, before links are resolved. */
    private static final class NodeRecord
    {
        Topology.NodeType type;
        String id;
        String description;
        long guid;
        boolean guidGiven;
        long portGuid;
        long systemGuid;
        int ports;
        int line;
        int idColumn;
        int lid;
        int lmc;
        /** The LID and LMC as written, for the findings. */
        String lidText;
        String lmcText;
        int lidColumn;
        final List<PortRecord> portLines = new ArrayList<>();
        Topology.Node node;
    }

    /** A port line as written. */
    private static final class PortRecord
    {
        NodeRecord owner;
        int line;
        int port;
        int portColumn;
        String remote;
        int remoteColumn;
        int remotePort;
        String remotePortText;
        int remotePortColumn;
        int width;
        int ownLid;
        int ownLmc;
        String ownLidText;
        String ownLmcText;
        int ownLidColumn;
        int remoteLid;
        String remoteLidText;
        int remoteLidColumn;
        long ownGuid;
        LineRate rate;
        int rateWidth;
        boolean linked;
    }

    private static final class Parse implements LineReader<Topology>
    {
        private final String file;
        private final LineRate defaultRate;
        private final Findings findings = new Findings();
        private final List<NodeRecord> records = new ArrayList<>();
        private final Map<String, NodeRecord> byId = new HashMap<>();
        private final int lmc;
        private NodeRecord current;
        /** The GUID the next node of each kind gets (switch, CA, router), as ibsim counts. */
        private final long[] nextGuid = IBSIM_GUID_BASE.clone();
        private final boolean[] guidLine = new boolean[3];
        private long pendingPortGuid;
        private long pendingSystemGuid;
        /** Port lines under a refused header: already reported with the header, so passed over. */
        private final NodeRecord refused = new NodeRecord();

        Parse(final String file, final LineRate defaultRate, final int lmc)
        {
            this.file = file;
            this.defaultRate = defaultRate;
            this.lmc = lmc;
        }

        @Override
        public Result<Topology> finish()
        {
            final Topology.Builder builder = new Topology.Builder();
            for (final NodeRecord record : records)
            {
                record.node = builder.node(record.type, record.id, record.description, record.guid, record.guidGiven,
                    record.systemGuid, record.ports);
                builder.portGuid(record.node, 0, record.portGuid);
                for (int p = 1; p <= record.ports; p++)
                {
                    builder.portGuid(record.node, p, record.guid + p);
                }
                for (final PortRecord port : record.portLines)
                {
                    if (port.ownGuid != 0)
                    {
                        builder.portGuid(record.node, port.port, port.ownGuid);
                    }
                }
            }
            links(builder);
            lids(builder);
            findings.sort();
            if (!findings.hasErrors() && records.isEmpty())
            {
                error(0, 0, "no node records; a topology has at least one 'Switch N \"ID\"' or 'Ca N \"ID\"' record");
            }
            return Result.of(findings.hasErrors() ? null : builder.build(), findings);
        }

        @Override
        public void line(final int number, final String line)
        {
            final String trimmed = line.strip();
            if (trimmed.isEmpty())
            {
                current = null;
                return;
            }
            if (trimmed.startsWith("#") || trimmed.equals("Non-Chassis Nodes") || CHASSIS.matcher(trimmed).matches() ||
                trimmed.startsWith("vendid=") || trimmed.startsWith("devid=") || trimmed.startsWith("Hostname: ") ||
                trimmed.startsWith("DR path "))
            {
                return;   // ibnetdiscover's comments, -g chassis headings, -s progress lines
            }
            final int indent = line.indexOf(trimmed.charAt(0));
            if (trimmed.startsWith("switchguid=") || trimmed.startsWith("caguid=") || trimmed.startsWith("hcaguids=") ||
                trimmed.startsWith("rtguid=") || trimmed.startsWith("sysimgguid="))
            {
                guid(number, indent, trimmed);
                return;
            }
            final Matcher header = HEADER.matcher(trimmed);
            if (header.matches())
            {
                header(number, indent, header);
                return;
            }
            if (trimmed.startsWith("["))
            {
                final Matcher port = PORT.matcher(trimmed);
                if (!port.matches())
                {
                    error(number, indent + 1, "malformed port line; write '[P] \"REMOTE\"[Q]', optionally " +
                        "followed by '(GUID)', 'w=4' and a '# ...' comment");
                    return;
                }
                if (null == current)
                {
                    error(number, indent + 1, "port line outside a node record; put it under its node's header " +
                        "line, with no blank line between");
                    return;
                }
                if (current != refused)
                {
                    port(number, indent, port);
                }
                return;
            }
            for (final String keyword : new String[]{"Switch", "Ca", "Hca", "Rt"})
            {
                if (trimmed.startsWith(keyword) && trimmed.length() > keyword.length() &&
                    Character.isWhitespace(trimmed.charAt(keyword.length())))
                {
                    error(number, indent + 1, "malformed " + keyword + " header; write '" + keyword +
                        " N \"ID\"' with N the port count (1.." + Topology.MAX_PORTS + ") and a quoted, unique ID");
                    current = refused;
                    return;
                }
            }
            error(number, indent + 1, "unknown line '" + quote(trimmed) + "'; a topology has node headers " +
                "(Switch, Ca, Hca, Rt), port lines '[P] \"REMOTE\"[Q]', GUID lines and '#' comments");
        }

        private void guid(final int number, final int indent, final String trimmed)
        {
            final Matcher m = GUID_LINE.matcher(trimmed);
            if (!m.matches())
            {
                error(number, indent + trimmed.indexOf('=') + 2,
                    "malformed GUID; write it as ibnetdiscover does, e.g. switchguid=0x2c902004a5ad8");
                return;
            }
            final long value = Long.parseUnsignedLong(m.group(2), 16);
            switch (m.group(1))
            {
                case "sysimgguid" -> pendingSystemGuid = value;
                case "switchguid" ->
                {
                    nextGuid[0] = value;
                    guidLine[0] = true;
                    pendingPortGuid = null == m.group(3) ? 0 : Long.parseUnsignedLong(m.group(3), 16);
                }
                case "rtguid" ->
                {
                    nextGuid[2] = value;
                    guidLine[2] = true;
                }
                default ->
                {
                    nextGuid[1] = value;
                    guidLine[1] = true;
                }
            }
        }

        private void header(final int number, final int indent, final Matcher m)
        {
            final NodeRecord record = new NodeRecord();
            record.line = number;
            record.type = switch (m.group(1))
            {
                case "Switch" -> Topology.NodeType.SWITCH;
                case "Rt" -> Topology.NodeType.ROUTER;
                default -> Topology.NodeType.CA;
            };
            final int portsColumn = indent + m.start(3) + 1;
            record.ports = parseInt(m.group(3));
            record.id = m.group(4);
            record.idColumn = indent + m.start(4);
            final int kind = record.type == Topology.NodeType.SWITCH ? 0 : record.type == Topology.NodeType.CA ? 1 : 2;
            final String comment = m.group(5);
            record.description = record.id;
            current = refused;
            if (record.ports < 1 || record.ports > Topology.MAX_PORTS)
            {
                error(number, portsColumn, "port count " + m.group(3) + " is out of range 1.." + Topology.MAX_PORTS +
                    "; write the node's number of external ports");
                return;
            }
            if (record.id.isEmpty())
            {
                error(number, record.idColumn, "empty node ID; give every node a unique quoted ID");
                return;
            }
            final NodeRecord twin = byId.get(record.id);
            if (null != twin)
            {
                error(number, record.idColumn, "node ID \"" + quote(record.id) + "\" is already used at line " +
                    twin.line + "; node IDs must be unique");
                return;
            }
            if (null != comment)
            {
                final int commentColumn = indent + m.start(5) + 1;
                final Matcher quoted = QUOTED.matcher(comment);
                if (quoted.find())
                {
                    record.description = quoted.group(1);
                }
                final Matcher lid = SWITCH_LID.matcher(comment);
                if (lid.find())
                {
                    if (record.type != Topology.NodeType.SWITCH)
                    {
                        warning(number, commentColumn + lid.start(), "'port 0 lid' is a switch's; ignored on " +
                            record.type.label() + " \"" + quote(record.id) + "\"");
                    }
                    else
                    {
                        record.lid = parseInt(lid.group(1));
                        record.lmc = parseInt(lid.group(2));
                        record.lidText = lid.group(1);
                        record.lmcText = lid.group(2);
                        record.lidColumn = commentColumn + lid.start(1);
                    }
                }
            }
            // ibsim's GUIDs: the node takes its kind's next GUID; a switch reserves one, a CA or router one per port too
            record.guid = nextGuid[kind];
            record.guidGiven = guidLine[kind];
            guidLine[kind] = false;
            nextGuid[kind] += kind == 0 ? 1 : record.ports + 1;
            record.portGuid = kind == 0 && pendingPortGuid != 0 ? pendingPortGuid : record.guid;
            record.systemGuid = pendingSystemGuid != 0 ? pendingSystemGuid : record.guid;
            pendingPortGuid = 0;
            pendingSystemGuid = 0;
            records.add(record);
            byId.put(record.id, record);
            current = record;
        }

        private void port(final int number, final int indent, final Matcher m)
        {
            final PortRecord port = new PortRecord();
            port.owner = current;
            port.line = number;
            port.port = parseInt(m.group(1));
            port.portColumn = indent + m.start(1) + 1;
            port.remote = m.group(4);
            port.remoteColumn = indent + m.start(4);
            port.remotePort = parseInt(m.group(5));
            port.remotePortText = m.group(5);
            port.remotePortColumn = indent + m.start(5) + 1;
            if (null != m.group(9))
            {
                port.width = parseInt(m.group(9));
                if (port.width != 1 && port.width != 4 && port.width != 12)
                {
                    error(number, indent + m.start(9) + 1, "link width w=" + m.group(9) + " is not 1, 4 or 12");
                }
            }
            if (null != m.group(3) && current.type != Topology.NodeType.SWITCH)
            {
                port.ownGuid = parseGuid(m.group(3));
            }
            final String comment = m.group(10);
            if (null != comment)
            {
                comment(port, indent + m.start(10) + 1, comment);
            }
            if (port.port < 1 || port.port > current.ports)
            {
                error(number, port.portColumn, "port " + m.group(1) + " is out of range 1.." + current.ports +
                    " of " + current.type.label() + " \"" + quote(current.id) + "\"; use a port number its header allows");
                return;
            }
            for (final PortRecord other : current.portLines)
            {
                if (other.port == port.port)
                {
                    error(number, port.portColumn, "port " + port.port + " of \"" + quote(current.id) +
                        "\" is already cabled at line " + other.line + "; a port has one cable");
                    return;
                }
            }
            current.portLines.add(port);
        }

        private void comment(final PortRecord port, final int column, final String comment)
        {
            // A CA's (or router's) line: "# lid L lmc M "REMOTE DESC" lid R SPEED": the first lid is its own.
            // A switch's line: "# "REMOTE DESC" lid R SPEED": the lid is the remote's.
            final Matcher lid = LID.matcher(comment);
            final boolean ownFirst = current.type != Topology.NodeType.SWITCH;
            final int open = comment.indexOf('"');
            final int close = open < 0 ? -1 : comment.indexOf('"', open + 1);
            while (lid.find())
            {
                if (open >= 0 && lid.start() > open && (close < 0 || lid.start() < close))
                {
                    continue;   // inside the quoted node description
                }
                if (ownFirst && port.ownLid == 0 && port.remoteLid == 0 && (open < 0 || lid.start() < open))
                {
                    port.ownLid = parseInt(lid.group(1));
                    port.ownLmc = null == lid.group(2) ? 0 : parseInt(lid.group(2));
                    port.ownLidText = lid.group(1);
                    port.ownLmcText = null == lid.group(2) ? "0" : lid.group(2);
                    port.ownLidColumn = column + lid.start(1);
                }
                else if (port.remoteLid == 0)
                {
                    port.remoteLid = parseInt(lid.group(1));
                    port.remoteLidText = lid.group(1);
                    port.remoteLidColumn = column + lid.start(1);
                }
            }
            final Matcher speed = SPEED.matcher(comment);
            if (speed.find())
            {
                port.rate = LineRate.byLabel("4x " + speed.group(2));
                port.rateWidth = parseInt(speed.group(1));
            }
        }

        private void links(final Topology.Builder builder)
        {
            for (final NodeRecord record : records)
            {
                for (final PortRecord port : record.portLines)
                {
                    final NodeRecord remote = byId.get(port.remote);
                    if (null == remote)
                    {
                        error(port.line, port.remoteColumn, "unknown node \"" + quote(port.remote) +
                            "\"; every remote must have a record of its own in the file");
                        continue;
                    }
                    if (port.remotePort < 1 || port.remotePort > remote.ports)
                    {
                        error(port.line, port.remotePortColumn, "port " + port.remotePortText + " is out of range 1.." +
                            remote.ports + " of \"" + quote(remote.id) + "\"");
                        continue;
                    }
                    final PortRecord back = find(remote, port.remotePort);
                    if (null == back || !back.remote.equals(record.id) || back.port != port.remotePort ||
                        back.remotePort != port.port)
                    {
                        error(port.line, port.remoteColumn, "\"" + quote(record.id) + "\"[" + port.port + "] names \"" +
                            quote(remote.id) + "\"[" + port.remotePort + "], but " + (null == back ?
                            "\"" + quote(remote.id) + "\" has no line for port " + port.remotePort :
                            "that port's line (line " + back.line + ") names \"" + quote(back.remote) + "\"[" +
                            back.remotePort + "]") + "; a link must be written from both ends");
                        continue;
                    }
                    if (back.linked)
                    {
                        continue;
                    }
                    port.linked = true;
                    back.linked = true;
                    LineRate rate = null != port.rate ? port.rate : back.rate;
                    if (null != port.rate && null != back.rate && (port.rate != back.rate || port.rateWidth != back.rateWidth))
                    {
                        warning(back.line, 0, "speed differs from line " + port.line + "'s; line " + port.line +
                            "'s is used");
                    }
                    rate = null == rate ? defaultRate : rate;
                    int width = port.width != 0 ? port.width : back.width;
                    if (width == 0)
                    {
                        width = port.rateWidth != 0 ? port.rateWidth : back.rateWidth;
                    }
                    builder.link(record.node, port.port, remote.node, back.port, rate, width);
                }
            }
        }

        private static PortRecord find(final NodeRecord record, final int port)
        {
            for (final PortRecord line : record.portLines)
            {
                if (line.port == port)
                {
                    return line;
                }
            }
            return null;
        }

        private void lids(final Topology.Builder builder)
        {
            // explicit LIDs first: check range and overlap, in file order
            final Map<Integer, String> owner = new HashMap<>();
            for (final NodeRecord record : records)
            {
                if (record.type == Topology.NodeType.SWITCH && record.lid != 0)
                {
                    if (claim(owner, record.line, record.lidColumn, record.lid, record.lidText,
                        record.lmc, record.lmcText, "\"" + quote(record.id) + "\" port 0"))
                    {
                        builder.lid(record.node, 0, record.lid, record.lmc);
                    }
                }
                else if (record.type != Topology.NodeType.SWITCH)
                {
                    for (final PortRecord port : record.portLines)
                    {
                        if (port.ownLid != 0 && claim(owner, port.line, port.ownLidColumn, port.ownLid,
                            port.ownLidText, port.ownLmc, port.ownLmcText, "\"" + quote(record.id) + "\" port " + port.port))
                        {
                            builder.lid(record.node, port.port, port.ownLid, port.ownLmc);
                        }
                    }
                }
            }
            // then OpenSM's assignment for every port that needs a LID
            assignLids(builder, owner);
            // remote LIDs the comments give must agree with the remote's own
            for (final NodeRecord record : records)
            {
                for (final PortRecord port : record.portLines)
                {
                    final NodeRecord remote = byId.get(port.remote);
                    if (port.remoteLid == 0 || null == remote || port.remotePort < 1 || port.remotePort > remote.ports)
                    {
                        continue;
                    }
                    final int actual = remote.type == Topology.NodeType.SWITCH ?
                        remote.node.baseLid(0) : remote.node.baseLid(port.remotePort);
                    if (actual != 0 && actual != port.remoteLid)
                    {
                        warning(port.line, port.remoteLidColumn, "remote lid " + port.remoteLidText + " contradicts \"" +
                            quote(remote.id) + "\"'s own record (lid " + actual + "); its own is used");
                    }
                }
            }
        }

        /**
         * OpenSM's LID manager on a fresh fabric (no guid2lid cache, {@code reassign_lids FALSE}): the LIDs the ports
         * already have are kept, the rest of 1..0xBFFF is a list of free ranges; the subnet manager's own port takes a
         * range first, then every port in the order of the port table (a map keyed by the port GUID in network byte
         * order, compared as a 64-bit number on a little-endian machine: the byte-swapped GUID). A range of 2^lmc LIDs
         * starts at the first free LID, moved up to a multiple of 2^lmc; the LIDs passed over are lost.
         */
        private void assignLids(final Topology.Builder builder, final Map<Integer, String> owner)
        {
            final List<long[]> wanted = new ArrayList<>();   // {record index, port, sort key}
            for (int r = 0; r < records.size(); r++)
            {
                final NodeRecord record = records.get(r);
                if (record.type == Topology.NodeType.SWITCH)
                {
                    if (record.node.baseLid(0) == 0)
                    {
                        wanted.add(new long[]{r, 0, Long.reverseBytes(record.portGuid)});
                    }
                    continue;
                }
                for (final PortRecord port : record.portLines)
                {
                    if (record.node.baseLid(port.port) == 0 && port.ownLid == 0 && port.linked)
                    {
                        wanted.add(new long[]{r, port.port, Long.reverseBytes(record.node.portGuid(port.port))});
                    }
                }
            }
            final long[] sm = wanted.isEmpty() || wanted.get(0)[0] != 0 ? null : smPort(wanted);
            wanted.sort((x, y) -> x == sm ? -1 : y == sm ? 1 : Long.compareUnsigned(x[2], y[2]));
            final List<int[]> free = freeRanges(owner);
            for (final long[] w : wanted)
            {
                final NodeRecord record = records.get((int)w[0]);
                final int port = (int)w[1];
                final int count = record.type == Topology.NodeType.SWITCH ? 1 : 1 << lmc;
                final int lid = take(free, count);
                if (lid == 0)
                {
                    error(record.line, record.idColumn, "no free LIDs left for \"" + quote(record.id) + "\" port " + port +
                        "; a subnet has LIDs 1.." + Topology.MAX_UNICAST_LID);
                    return;
                }
                builder.lid(record.node, port, lid, record.type == Topology.NodeType.SWITCH ? 0 : lmc);
            }
        }

        /** ibsim attaches the subnet manager to the file's first node: a switch's port 0, else its first port. */
        private static long[] smPort(final List<long[]> wanted)
        {
            long[] first = null;
            for (final long[] w : wanted)
            {
                if (w[0] == 0 && (null == first || w[1] < first[1]))
                {
                    first = w;
                }
            }
            return first;
        }

        private static List<int[]> freeRanges(final Map<Integer, String> owner)
        {
            final List<int[]> free = new ArrayList<>();
            int start = 0;
            for (int lid = 1; lid <= Topology.MAX_UNICAST_LID; lid++)
            {
                if (owner.containsKey(lid))
                {
                    if (start != 0)
                    {
                        free.add(new int[]{start, lid - 1});
                        start = 0;
                    }
                }
                else if (start == 0)
                {
                    start = lid;
                }
            }
            if (start != 0)
            {
                free.add(new int[]{start, Topology.MAX_UNICAST_LID});
            }
            return free;
        }

        /** OpenSM's {@code lid_mgr_find_free_lid_range}: the first range that holds an aligned run of count LIDs. */
        private static int take(final List<int[]> free, final int count)
        {
            for (int i = 0; i < free.size(); i++)
            {
                final int[] range = free.get(i);
                int lid = range[0];
                if (count > 1 && (lid & (count - 1)) != 0)
                {
                    lid = (lid + count) & ~(count - 1);
                }
                if (lid + count - 1 <= range[1])
                {
                    if (lid + count - 1 == range[1])
                    {
                        free.remove(i);
                    }
                    else
                    {
                        range[0] = lid + count;
                    }
                    return lid;
                }
            }
            return 0;
        }

        /** The LID and LMC as written ({@code lidText}, {@code lmcText}) are what a finding reports. */
        private boolean claim(final Map<Integer, String> owner, final int line, final int column, final int lid,
            final String lidText, final int lmc, final String lmcText, final String who)
        {
            if (lmc < 0 || lmc > 7)
            {
                error(line, column, "lmc " + lmcText + " is out of range 0..7");
                return false;
            }
            final int count = 1 << lmc;
            if (lid < 1 || lid + count - 1 > Topology.MAX_UNICAST_LID)
            {
                error(line, column, "lid " + lidText + (lmc > 0 ? " with lmc " + lmc : "") +
                    " is out of the unicast range 1.." + Topology.MAX_UNICAST_LID);
                return false;
            }
            if (lmc > 0 && (lid & (count - 1)) != 0)
            {
                error(line, column, "lid " + lidText + " is not a multiple of 2^lmc = " + count +
                    "; a port's base LID has its low lmc bits clear");
                return false;
            }
            for (int l = lid; l < lid + count; l++)
            {
                final String other = owner.get(l);
                if (null != other)
                {
                    error(line, column, "lid " + l + " of " + who + " is already \"" + quote(other) + "\"'s; LIDs must be unique");
                    return false;
                }
            }
            for (int l = lid; l < lid + count; l++)
            {
                owner.put(l, who.substring(1, who.indexOf('"', 1)));
            }
            return true;
        }

        private void error(final int line, final int column, final String message)
        {
            findings.error(file, line, column, message);
        }

        private void warning(final int line, final int column, final String message)
        {
            findings.warning(file, line, column, message);
        }

        private static long parseGuid(final String hex)
        {
            final String digits = hex.startsWith("0x") || hex.startsWith("0X") ? hex.substring(2) : hex;
            try
            {
                return digits.isEmpty() || digits.length() > 16 ? 0 : Long.parseUnsignedLong(digits, 16);
            }
            catch (final NumberFormatException ex)
            {
                return 0;
            }
        }

        private static int parseInt(final String digits)
        {
            return digits.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(digits);
        }
    }

    /**
     * @param text input text.
     * @return at most 80 characters of it, control characters escaped, for a message.
     */
    static String quote(final String text)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length() && sb.length() < 80; i++)
        {
            final char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c < 0xA0))
            {
                sb.append(String.format(Locale.ROOT, "\\x%02x", (int)c));
            }
            else
            {
                sb.append(c);
            }
        }
        if (sb.length() >= 80 && text.length() > 80)
        {
            sb.setLength(77);
            sb.append("...");
        }
        return sb.toString();
    }
}
