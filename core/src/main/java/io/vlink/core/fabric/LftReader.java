package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the forwarding tables a real subnet manager computed, in every form OpenSM's tools print them, and matches
 * them to a {@link Topology}: OpenSM's {@code opensm-lfts.dump} (OpenSM 3.3.23 writes the LID range in decimal and ends
 * each switch with {@code N lids dumped}; other versions write the range in hex)
 * <pre>
 * Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):
 * 0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'
 * 0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'
 * 6 lids dumped
 * </pre>
 * and {@code ibroute}'s and {@code dump_fts}' (a hex range, {@code Lid N} or {@code DR path ...} in the heading, the
 * same rows with {@code : (...)} instead of {@code # ...}, two heading lines and a trailing
 * {@code N valid lids dumped}). A table's switch is found by GUID; when no switch has the heading's GUID and the
 * topology gave no GUIDs of its own, by LID. A row
 * whose port has no cable in the topology is an error at its line; so is a route that loops or leaves the fabric
 * before its destination. Hop counts are found by following the tables. Numbers are checked against their range as
 * written: a LID or port too large for any integer is reported as the file has it.
 */
public final class LftReader
{
    private static final Pattern HEADER = Pattern.compile(
        "^Unicast lids \\[(0x[0-9A-Fa-f]+|\\d+)-(0x[0-9A-Fa-f]+|\\d+)\\] of switch (?:Lid (\\d+)|DR path .*?) guid " +
        "0x([0-9A-Fa-f]+)\\s*(.*)$");
    private static final Pattern ROW = Pattern.compile("^0x([0-9A-Fa-f]+)\\s+(\\d+)\\s*([#:].*)?$");
    private static final Pattern TRAILER = Pattern.compile("^\\d+ (valid )?lids dumped\\s*$");
    /** The port of a LID a switch has no route to (OpenSM's 0xFF). */
    private static final int NO_ROUTE = 255;
    /** What a port number larger than any port reads as. */
    private static final int NOT_A_PORT = NO_ROUTE + 1;

    private LftReader()
    {
    }

    /**
     * @param file     the dump, read within {@link TextLines}' limits.
     * @param topology the fabric it was taken from.
     * @return the routes, or every finding.
     */
    public static Result<Routes> read(final Path file, final Topology topology)
    {
        return TextLines.read(file, TextLines.MAX_TABLE_BYTES, TextLines.MAX_LINE_BYTES,
            reader(file.toString(), topology));
    }

    /**
     * @param file     the name findings are reported against.
     * @param text     the dump's text.
     * @param topology the fabric it was taken from.
     * @return the routes, or every finding.
     */
    public static Result<Routes> parse(final String file, final String text, final Topology topology)
    {
        return TextLines.parse(file, text, TextLines.MAX_TABLE_BYTES, reader(file, topology));
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe).
     *
     * @param file     the name findings are reported against.
     * @param topology the fabric the dump was taken from.
     * @return a fresh reader of one dump.
     */
    public static LineReader<Routes> reader(final String file, final Topology topology)
    {
        return new Parse(file, topology);
    }

    private static final class Parse implements LineReader<Routes>
    {
        private final String file;
        private final Topology topology;
        private final Findings findings = new Findings();
        private final Routes routes;
        private final boolean[] seen;
        /** The rows taken: {switch index, lid, line, port column}. */
        private final List<int[]> rows = new ArrayList<>();
        private Topology.Node sw;
        private boolean inTable;

        Parse(final String file, final Topology topology)
        {
            this.file = file;
            this.topology = topology;
            this.routes = Routes.empty(topology);
            this.seen = new boolean[topology.nodes().size()];
        }

        @Override
        public void line(final int number, final String line)
        {
            final String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("Lid") || trimmed.startsWith("Port") ||
                TRAILER.matcher(trimmed).matches())
            {
                return;
            }
            final Matcher header = HEADER.matcher(trimmed);
            if (header.matches())
            {
                header(number, line, header);
                return;
            }
            final Matcher row = ROW.matcher(trimmed);
            if (row.matches())
            {
                row(number, line, row);
                return;
            }
            error(number, 1, "unknown line; an LFT dump has 'Unicast lids ...' headings and '0xLID PORT' rows");
        }

        private void header(final int number, final String line, final Matcher header)
        {
            inTable = true;
            sw = null;
            final String guidText = header.group(4);
            final String lidText = header.group(3);
            if (guidText.length() > 16)
            {
                error(number, line.indexOf("0x" + guidText) + 1, "guid 0x" + Diagnostic.excerpt(guidText) +
                    " is longer than 64 bits; was the dump cut or joined?");
                return;
            }
            final long guid = Long.parseUnsignedLong(guidText, 16);
            final int lid = null == lidText ? 0 : (int)number(lidText, 10, Topology.MAX_UNICAST_LID + 1);
            sw = match(topology, guid, lid);
            if (null == sw)
            {
                error(number, 1, "no switch of the topology has guid 0x" + guidText +
                    (null == lidText ? "" : " or lid " + lidText) + "; was the dump taken from this fabric?");
            }
            else if (seen[sw.index()])
            {
                error(number, 1, "a second table for \"" + sw.id() + "\"; each switch has one");
                sw = null;
            }
            else
            {
                seen[sw.index()] = true;
            }
        }

        private void row(final int number, final String line, final Matcher row)
        {
            if (!inTable)
            {
                error(number, 1, "table row before any 'Unicast lids ... of switch' heading");
                return;
            }
            if (null == sw)
            {
                return;
            }
            final String lidText = row.group(1);
            final String portText = row.group(2);
            final int lid = (int)number(lidText, 16, Topology.MAX_UNICAST_LID + 1);
            final int port = (int)number(portText, 10, NOT_A_PORT);
            final int portColumn = line.indexOf(portText, line.indexOf(lidText) + lidText.length()) + 1;
            if (lid < 1 || lid > Topology.MAX_UNICAST_LID)
            {
                error(number, line.indexOf("0x") + 1, "lid 0x" + Diagnostic.excerpt(lidText) +
                    " is not a unicast LID (0x0001..0x" + Integer.toHexString(Topology.MAX_UNICAST_LID).toUpperCase() +
                    ")");
            }
            else if (port == NO_ROUTE)
            {
                return;
            }
            else if (port > NO_ROUTE)
            {
                error(number, portColumn, "port " + written(portText) + " is out of range: a forwarding table's port " +
                    "is 0..254, or 255 for no route");
            }
            else if (port > sw.portCount() || (port > 0 && null == sw.link(port)))
            {
                error(number, portColumn, "port " + written(portText) + " of \"" + sw.id() +
                    "\" has no cable in the topology; the dump and the topology disagree");
            }
            else if (lid <= topology.maxLid() && null != topology.nodeOfLid(lid))
            {
                if (routes.outPort(sw, lid) != Routes.NO_ROUTE)
                {
                    // each row kept costs memory: an endless repeated row is an error a row, not a growing list
                    error(number, line.indexOf("0x") + 1, "lid 0x" + Diagnostic.excerpt(lidText) + " has a row " +
                        "already in the table of \"" + sw.id() + "\"; a table gives each LID once");
                    return;
                }
                routes.set(sw, lid, port, Routes.NO_ROUTE);
                rows.add(new int[]{sw.index(), lid, number, portColumn});
            }
        }

        @Override
        public Result<Routes> finish()
        {
            // hop counts by following the tables; a route that loops or strands a packet is the dump's error
            for (final int[] r : rows)
            {
                final Topology.Node at = topology.nodes().get(r[0]);
                final int hops = routes.walk(at, r[1]);
                if (hops == Routes.NO_ROUTE)
                {
                    error(r[2], r[3], "the route from \"" + at.id() + "\" to lid " + r[1] +
                        " does not reach it (a loop, a missing table entry or a wrong port on the way)");
                }
                routes.set(at, r[1], routes.outPort(at, r[1]), hops);
            }
            findings.sort();
            return Result.of(routes, findings);
        }

        private void error(final int line, final int column, final String message)
        {
            findings.error(file, line, column, message);
        }
    }

    /**
     * @param digits a number's digits, as the pattern matched them.
     * @return the number as written, without its leading zeros (OpenSM writes ports as {@code 007}), at most
     * {@link Diagnostic#MAX_EXCERPT} characters of it.
     */
    static String written(final String digits)
    {
        int start = 0;
        while (start < digits.length() - 1 && digits.charAt(start) == '0')
        {
            start++;
        }
        return Diagnostic.excerpt(digits.substring(start));
    }

    /**
     * @param digits a number's digits, as the pattern matched them (never signed, never empty).
     * @param radix  10 or 16.
     * @param cap    the value returned for any number at or above it.
     * @return the number, or {@code cap} when it is that large or larger (too large for a long included).
     */
    static long number(final String digits, final int radix, final long cap)
    {
        int start = 0;
        while (start < digits.length() - 1 && digits.charAt(start) == '0')
        {
            start++;
        }
        // 15 significant digits of either radix fit in a long
        if (digits.length() - start > 15)
        {
            return cap;
        }
        return Math.min(Long.parseLong(digits, start, digits.length(), radix), cap);
    }

    private static Topology.Node match(final Topology topology, final long guid, final int lid)
    {
        for (final Topology.Node node : topology.switches())
        {
            if (node.guid() == guid)
            {
                return node;
            }
        }
        for (final Topology.Node node : topology.switches())
        {
            if (!node.guidGiven() && node.baseLid(0) == lid && lid != 0)
            {
                return node;
            }
        }
        return null;
    }
}
