package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SL of each path: how a fabric avoids credit loops in InfiniBand (docs/fabric.md, "Deadlock"). SL2VL maps a
 * packet's SL, which never changes on its way, so a VL chosen at one hop is undone at the next; the cure is an SL
 * per (source, destination), each SL mapped to its own VL everywhere, so that every VL's channel dependencies are
 * acyclic (OpenSM's LASH and DFSSSP routing engines work this way).
 * <ul>
 *     <li>{@link #crosses}: the dateline rule's question, whether a path crosses a given cable (either way); a
 *     fabric soak gives SL 1 to the paths that do and SL 0 to the rest.</li>
 *     <li>{@link #readMap}: any assignment, from a file of {@code SRC_LID DST_LID SL} lines.</li>
 * </ul>
 */
public final class PathSl
{
    /** No SL assigned to the pair. */
    public static final int NONE = -1;

    private final Map<Long, Integer> sls;

    private PathSl(final Map<Long, Integer> sls)
    {
        this.sls = sls;
    }

    /**
     * @param srcLid a source port's LID.
     * @param dstLid a destination LID.
     * @return the SL assigned to the pair, or {@link #NONE}.
     */
    public int sl(final int srcLid, final int dstLid)
    {
        return sls.getOrDefault(key(srcLid, dstLid), NONE);
    }

    /**
     * @return pairs assigned.
     */
    public int size()
    {
        return sls.size();
    }

    /**
     * Whether the path from a CA port to a LID, by the forwarding tables, crosses a cable (in either direction).
     *
     * @param routes the forwarding tables.
     * @param source the source CA.
     * @param port   its port.
     * @param dlid   the destination LID.
     * @param sw     a switch at one end of the cable.
     * @param swPort the switch's port the cable is on.
     * @return true if a packet from {@code source[port]} to {@code dlid} crosses {@code sw[swPort]}'s cable.
     */
    public static boolean crosses(
        final Routes routes,
        final Topology.Node source,
        final int port,
        final int dlid,
        final Topology.Node sw,
        final int swPort)
    {
        final Topology.Link far = sw.link(swPort);
        Topology.Link link = source.link(port);
        for (int step = 0; null != link && step <= routes.topology().nodes().size(); step++)
        {
            if (link == far || (link.remote() == sw && link.remotePort() == swPort))
            {
                return true;
            }
            final Topology.Node at = link.remote();
            if (!at.isSwitch())
            {
                return false;
            }
            final int out = routes.outPort(at, dlid);
            if (out <= 0)
            {
                return false;
            }
            link = at.link(out);
        }
        return false;
    }

    /**
     * Read an SL per (source LID, destination LID): lines {@code SRC_LID DST_LID SL}, decimal or 0x-hex LIDs, SL
     * 0..15; {@code #} starts a comment. A LID no port of the topology answers to, an SL out of range, a pair given
     * twice or a malformed line is an error at its line and column; every finding is reported.
     *
     * @param file     the file, read within {@link TextLines}' limits.
     * @param topology the fabric.
     * @return the assignment, or every finding.
     */
    public static Result<PathSl> readMap(final Path file, final Topology topology)
    {
        return TextLines.read(file, reader(file.toString(), topology));
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe), as {@link #readMap}.
     *
     * @param file     the name findings are reported against.
     * @param topology the fabric.
     * @return a fresh reader of one SL map.
     */
    public static LineReader<PathSl> reader(final String file, final Topology topology)
    {
        return new LineReader<>()
        {
            private final Findings findings = new Findings();
            private final Map<Long, Integer> sls = new HashMap<>();
            private final Map<Long, Integer> lineOf = new HashMap<>();

            @Override
            public void line(final int number, final String raw)
            {
                final int hash = raw.indexOf('#');
                final String line = hash < 0 ? raw : raw.substring(0, hash);
                if (line.isBlank())
                {
                    return;
                }
                final List<int[]> words = words(line);
                if (words.size() != 3)
                {
                    findings.error(file, number, words.get(0)[0] + 1,
                        "expected 'SRC_LID DST_LID SL', found " + words.size() + " fields; write one pair per line");
                    return;
                }
                final int src = number(file, number, line, words.get(0), "source LID", 1, Topology.MAX_UNICAST_LID,
                    findings);
                final int dst = number(file, number, line, words.get(1), "destination LID", 1, Topology.MAX_UNICAST_LID,
                    findings);
                final int sl = number(file, number, line, words.get(2), "SL", 0, 15, findings);
                if (src < 0 || dst < 0 || sl < 0)
                {
                    return;
                }
                if (null == topology.nodeOfLid(src))
                {
                    findings.error(file, number, words.get(0)[0] + 1, "no port of the topology has LID " + src +
                        "; use a LID 'vlink fabric check' lists");
                    return;
                }
                if (null == topology.nodeOfLid(dst))
                {
                    findings.error(file, number, words.get(1)[0] + 1, "no port of the topology has LID " + dst +
                        "; use a LID 'vlink fabric check' lists");
                    return;
                }
                final Integer first = lineOf.putIfAbsent(key(src, dst), number);
                if (null != first)
                {
                    findings.error(file, number, words.get(0)[0] + 1, "the pair " + src + " " + dst +
                        " has an SL already at line " + first + "; give each pair once");
                    return;
                }
                sls.put(key(src, dst), sl);
            }

            @Override
            public Result<PathSl> finish()
            {
                return Result.of(new PathSl(sls), findings);
            }
        };
    }

    /** @return each word's [start, end) column range. */
    private static List<int[]> words(final String line)
    {
        final List<int[]> words = new ArrayList<>();
        int i = 0;
        while (i < line.length())
        {
            while (i < line.length() && Character.isWhitespace(line.charAt(i)))
            {
                i++;
            }
            final int start = i;
            while (i < line.length() && !Character.isWhitespace(line.charAt(i)))
            {
                i++;
            }
            if (i > start)
            {
                words.add(new int[]{start, i});
            }
        }
        return words;
    }

    private static int number(
        final String file,
        final int line,
        final String text,
        final int[] word,
        final String what,
        final int min,
        final int max,
        final Findings findings)
    {
        final String w = text.substring(word[0], word[1]);
        try
        {
            final long value = w.startsWith("0x") || w.startsWith("0X") ?
                Long.parseLong(w.substring(2), 16) : Long.parseLong(w);
            if (value >= min && value <= max)
            {
                return (int)value;
            }
        }
        catch (final NumberFormatException ex)
        {
            // reported below
        }
        findings.error(file, line, word[0] + 1, what + " '" + Diagnostic.excerpt(w) + "' is not a number from " +
            min + " to " + max);
        return -1;
    }

    private static long key(final int src, final int dst)
    {
        return ((long)src << 32) | dst;
    }
}
