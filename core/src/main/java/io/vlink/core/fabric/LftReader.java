package io.vlink.core.fabric;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * before its destination. Hop counts are found by following the tables.
 */
public final class LftReader
{
    /** The largest dump read. */
    public static final long MAX_FILE_BYTES = 256L * 1024 * 1024;
    /** The longest line read. */
    public static final int MAX_LINE_LENGTH = 4096;

    private static final Pattern HEADER = Pattern.compile(
        "^Unicast lids \\[(0x[0-9A-Fa-f]+|\\d+)-(0x[0-9A-Fa-f]+|\\d+)\\] of switch (?:Lid (\\d+)|DR path .*?) guid " +
        "0x([0-9A-Fa-f]+)\\s*(.*)$");
    private static final Pattern ROW = Pattern.compile("^0x([0-9A-Fa-f]+)\\s+(\\d+)\\s*([#:].*)?$");
    private static final Pattern TRAILER = Pattern.compile("^\\d+ (valid )?lids dumped\\s*$");

    private LftReader()
    {
    }

    /**
     * @param file     the dump.
     * @param topology the fabric it was taken from.
     * @return the routes, or every finding.
     */
    public static Result read(final Path file, final Topology topology)
    {
        final String name = file.toString();
        try
        {
            if (Files.isDirectory(file))
            {
                return new Result(null, List.of(error(name, 0, 0, "cannot read: is a directory")));
            }
            if (Files.size(file) > MAX_FILE_BYTES)
            {
                return new Result(null, List.of(error(name, 0, 0, "cannot read: larger than " + MAX_FILE_BYTES + " bytes")));
            }
            return parse(name, new String(Files.readAllBytes(file), StandardCharsets.UTF_8), topology);
        }
        catch (final IOException ex)
        {
            return new Result(null, List.of(Diagnostic.cannotRead(name, ex)));
        }
    }

    /**
     * @param file     the name findings are reported against.
     * @param text     the dump's text.
     * @param topology the fabric it was taken from.
     * @return the routes, or every finding.
     */
    public static Result parse(final String file, final String text, final Topology topology)
    {
        final List<Diagnostic> diagnostics = new ArrayList<>();
        final Routes routes = Routes.empty(topology);
        final boolean[] seen = new boolean[topology.nodes().size()];
        final List<int[]> rows = new ArrayList<>();
        Topology.Node sw = null;
        boolean inTable = false;
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            final int number = i + 1;
            String line = lines[i];
            if (line.endsWith("\r"))
            {
                line = line.substring(0, line.length() - 1);
            }
            if (line.length() > MAX_LINE_LENGTH)
            {
                diagnostics.add(error(file, number, MAX_LINE_LENGTH + 1, "line longer than " + MAX_LINE_LENGTH + " characters"));
                continue;
            }
            final String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("Lid") || trimmed.startsWith("Port") ||
                TRAILER.matcher(trimmed).matches())
            {
                continue;
            }
            final Matcher header = HEADER.matcher(trimmed);
            if (header.matches())
            {
                inTable = true;
                sw = null;
                final long guid = Long.parseUnsignedLong(header.group(4), 16);
                final int lid = null == header.group(3) ? 0 : Integer.parseInt(header.group(3));
                sw = match(topology, guid, lid);
                if (null == sw)
                {
                    diagnostics.add(error(file, number, 1, "no switch of the topology has guid 0x" + header.group(4) +
                        (lid == 0 ? "" : " or lid " + lid) + "; was the dump taken from this fabric?"));
                }
                else if (seen[sw.index()])
                {
                    diagnostics.add(error(file, number, 1, "a second table for \"" + sw.id() + "\"; each switch has one"));
                    sw = null;
                }
                else
                {
                    seen[sw.index()] = true;
                }
                continue;
            }
            final Matcher row = ROW.matcher(trimmed);
            if (row.matches())
            {
                if (!inTable)
                {
                    diagnostics.add(error(file, number, 1, "table row before any 'Unicast lids ... of switch' heading"));
                    continue;
                }
                if (null == sw)
                {
                    continue;
                }
                final int lid = (int)Math.min(Long.parseLong(row.group(1), 16), Integer.MAX_VALUE);
                final int port = (int)Math.min(Long.parseLong(row.group(2)), Integer.MAX_VALUE);
                final int portColumn = line.indexOf(row.group(2), line.indexOf(row.group(1)) + row.group(1).length()) + 1;
                if (lid < 1 || lid > Topology.MAX_UNICAST_LID)
                {
                    diagnostics.add(error(file, number, line.indexOf("0x") + 1, "lid " + lid + " is not a unicast LID"));
                }
                else if (port == 255)
                {
                    continue;
                }
                else if (port > sw.portCount() || (port > 0 && null == sw.link(port)))
                {
                    diagnostics.add(error(file, number, portColumn, "port " + port + " of \"" + sw.id() +
                        "\" has no cable in the topology; the dump and the topology disagree"));
                }
                else if (lid <= topology.maxLid() && null != topology.nodeOfLid(lid))
                {
                    routes.set(sw, lid, port, Routes.NO_ROUTE);
                    rows.add(new int[]{sw.index(), lid, number, portColumn});
                }
                continue;
            }
            diagnostics.add(error(file, number, 1, "unknown line; an LFT dump has 'Unicast lids ...' headings and " +
                "'0xLID PORT' rows"));
        }
        // hop counts by following the tables; a route that loops or strands a packet is the dump's error
        for (final int[] r : rows)
        {
            final Topology.Node at = topology.nodes().get(r[0]);
            final int hops = routes.walk(at, r[1]);
            if (hops == Routes.NO_ROUTE)
            {
                diagnostics.add(error(file, r[2], r[3], "the route from \"" + at.id() + "\" to lid " + r[1] +
                    " does not reach it (a loop, a missing table entry or a wrong port on the way)"));
            }
            routes.set(at, r[1], routes.outPort(at, r[1]), hops);
        }
        diagnostics.sort((a, b) -> Integer.compare(a.line(), b.line()));
        return new Result(diagnostics.stream().anyMatch(Diagnostic::isError) ? null : routes, diagnostics);
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

    private static Diagnostic error(final String file, final int line, final int column, final String message)
    {
        return new Diagnostic(file, line, column, Diagnostic.Severity.ERROR, message);
    }

    /** The routes, or why not. */
    public static final class Result
    {
        private final Routes routes;
        private final List<Diagnostic> diagnostics;

        Result(final Routes routes, final List<Diagnostic> diagnostics)
        {
            this.routes = routes;
            this.diagnostics = List.copyOf(diagnostics);
        }

        public Routes routes()
        {
            return routes;
        }

        public List<Diagnostic> diagnostics()
        {
            return diagnostics;
        }

        public boolean ok()
        {
            return null != routes;
        }

        public Routes orThrow()
        {
            if (null == routes)
            {
                throw new ConfigException(diagnostics);
            }
            return routes;
        }
    }
}
