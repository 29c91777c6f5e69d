package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
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
     * @param file     the file.
     * @param topology the fabric.
     * @param findings where the findings go.
     * @return the assignment, or null when the file was refused.
     */
    public static PathSl readMap(final Path file, final Topology topology, final List<Diagnostic> findings)
    {
        final String name = file.toString();
        final TextLines text = TextLines.read(file);
        if (null != text.error())
        {
            findings.add(text.error());
            return null;
        }
        final Map<Long, Integer> sls = new HashMap<>();
        final Map<Long, Integer> lineOf = new HashMap<>();
        final int before = errors(findings);
        final List<String> lines = text.lines();
        for (int i = 0; i < lines.size(); i++)
        {
            final String raw = lines.get(i);
            final int hash = raw.indexOf('#');
            final String line = hash < 0 ? raw : raw.substring(0, hash);
            if (line.isBlank())
            {
                continue;
            }
            final List<int[]> words = words(line);
            if (words.size() != 3)
            {
                findings.add(error(name, i + 1, words.isEmpty() ? 1 : words.get(0)[0] + 1,
                    "expected 'SRC_LID DST_LID SL', found " + words.size() + " fields; write one pair per line"));
                continue;
            }
            final int src = number(name, i + 1, line, words.get(0), "source LID", 1, Topology.MAX_UNICAST_LID, findings);
            final int dst = number(name, i + 1, line, words.get(1), "destination LID", 1, Topology.MAX_UNICAST_LID,
                findings);
            final int sl = number(name, i + 1, line, words.get(2), "SL", 0, 15, findings);
            if (src < 0 || dst < 0 || sl < 0)
            {
                continue;
            }
            if (null == topology.nodeOfLid(src))
            {
                findings.add(error(name, i + 1, words.get(0)[0] + 1, "no port of the topology has LID " + src +
                    "; use a LID 'vlink fabric check' lists"));
                continue;
            }
            if (null == topology.nodeOfLid(dst))
            {
                findings.add(error(name, i + 1, words.get(1)[0] + 1, "no port of the topology has LID " + dst +
                    "; use a LID 'vlink fabric check' lists"));
                continue;
            }
            final Integer first = lineOf.putIfAbsent(key(src, dst), i + 1);
            if (null != first)
            {
                findings.add(error(name, i + 1, words.get(0)[0] + 1, "the pair " + src + " " + dst +
                    " has an SL already at line " + first + "; give each pair once"));
                continue;
            }
            sls.put(key(src, dst), sl);
        }
        return errors(findings) > before ? null : new PathSl(sls);
    }

    private static int errors(final List<Diagnostic> findings)
    {
        int n = 0;
        for (final Diagnostic d : findings)
        {
            n += d.isError() ? 1 : 0;
        }
        return n;
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
        final List<Diagnostic> findings)
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
        findings.add(error(file, line, word[0] + 1, what + " '" + Diagnostic.excerpt(w) + "' is not a number from " +
            min + " to " + max));
        return -1;
    }

    private static Diagnostic error(final String file, final int line, final int column, final String message)
    {
        return new Diagnostic(file, line, column, Diagnostic.Severity.ERROR, message);
    }

    private static long key(final int src, final int dst)
    {
        return ((long)src << 32) | dst;
    }
}
