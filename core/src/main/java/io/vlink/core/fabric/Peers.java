package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each node of a fabric split over processes runs (docs/fabric.md, "Across processes"): a file of lines
 * {@code ID HOST:PORT}, {@code #} comments. A node's port P, when its cable leads to another process, is a UDP socket
 * bound to {@code HOST:(PORT + P)}, and the peer's end is at the remote node's {@code HOST:(PORT + Q)} for its port Q:
 * one socket per cable end, so each is an ordinary point-to-point UDP link with a session of its own. A node of N
 * ports therefore takes the UDP ports {@code PORT+1 .. PORT+N} of its host.
 * <p>
 * Refused, each at its line and column: a malformed line, an ID the topology lacks or given twice, a host that does
 * not resolve, a port outside 1..65535 or one whose range passes 65535, and two nodes of one host whose ranges
 * overlap. {@link #missing} finds the nodes a process needs and the file lacks.
 */
public final class Peers
{
    private final Map<String, InetSocketAddress> base;

    private Peers(final Map<String, InetSocketAddress> base)
    {
        this.base = base;
    }

    /**
     * @param node a node of the topology.
     * @param port one of its ports.
     * @return the UDP address of that port's end of its cable, or null when the file has no line for the node.
     */
    public InetSocketAddress address(final Topology.Node node, final int port)
    {
        final InetSocketAddress at = base.get(node.id());
        return null == at ? null : new InetSocketAddress(at.getAddress(), at.getPort() + port);
    }

    /**
     * @param node a node's ID.
     * @return its {@code HOST:PORT} line's address, or null.
     */
    public InetSocketAddress base(final String node)
    {
        return base.get(node);
    }

    /**
     * The nodes a process that runs {@code local} needs an address for: each of them with a cable to a node
     * elsewhere, and each such node elsewhere.
     *
     * @param file     the peers file's name, for the findings.
     * @param topology the fabric.
     * @param local    the IDs of the nodes this process runs.
     * @return a finding per node without a line.
     */
    public List<Diagnostic> missing(final String file, final Topology topology, final Collection<String> local)
    {
        final List<Diagnostic> findings = new ArrayList<>();
        final List<String> reported = new ArrayList<>();
        for (final Topology.Node node : topology.nodes())
        {
            if (!local.contains(node.id()))
            {
                continue;
            }
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link cable = node.link(p);
                if (null == cable || local.contains(cable.remote().id()))
                {
                    continue;
                }
                for (final Topology.Node needed : new Topology.Node[]{node, cable.remote()})
                {
                    if (!base.containsKey(needed.id()) && !reported.contains(needed.id()))
                    {
                        reported.add(needed.id());
                        findings.add(new Diagnostic(file, 0, 0, Diagnostic.Severity.ERROR, "no line for \"" +
                            needed.id() + "\", an end of the cable " + node.id() + "[" + p + "] - " +
                            cable.remote().id() + "[" + cable.remotePort() + "] that leaves this process; add '" +
                            needed.id() + " HOST:PORT'"));
                    }
                }
            }
        }
        return findings;
    }

    /**
     * @param file     the peers file, read within {@link TextLines}' limits.
     * @param topology the fabric its IDs name.
     * @return the addresses, or every finding.
     */
    public static Result<Peers> read(final Path file, final Topology topology)
    {
        return TextLines.read(file, reader(file.toString(), topology));
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe).
     *
     * @param file     the name findings are reported against.
     * @param topology the fabric its IDs name.
     * @return a fresh reader of one peers file.
     */
    public static LineReader<Peers> reader(final String file, final Topology topology)
    {
        return new LineReader<>()
        {
            private final Findings findings = new Findings();
            private final Map<String, InetSocketAddress> base = new HashMap<>();
            private final Map<String, Integer> lineOf = new HashMap<>();
            private final List<Object[]> ranges = new ArrayList<>();

            @Override
            public void line(final int number, final String raw)
            {
                final int hash = raw.indexOf('#');
                final String line = hash < 0 ? raw : raw.substring(0, hash);
                if (line.isBlank())
                {
                    return;
                }
                final String[] words = line.trim().split("\\s+");
                final int idColumn = line.indexOf(words[0]) + 1;
                if (words.length != 2)
                {
                    findings.error(file, number, idColumn, "expected 'ID HOST:PORT', found " + words.length +
                        " fields; write one node per line");
                    return;
                }
                final int addressColumn = line.indexOf(words[1], idColumn - 1 + words[0].length()) + 1;
                final Topology.Node node = topology.node(words[0]);
                if (null == node)
                {
                    findings.error(file, number, idColumn, "no node \"" + Diagnostic.excerpt(words[0]) +
                        "\" in the topology; use an ID 'vlink fabric check' lists");
                    return;
                }
                final Integer first = lineOf.putIfAbsent(node.id(), number);
                if (null != first)
                {
                    findings.error(file, number, idColumn, "\"" + node.id() + "\" has an address already at line " +
                        first + "; give each node once");
                    return;
                }
                final InetSocketAddress address = address(file, number, addressColumn, words[1], node, findings);
                if (null == address)
                {
                    return;
                }
                for (final Object[] range : ranges)
                {
                    final InetSocketAddress other = (InetSocketAddress)range[1];
                    final int otherPorts = ((Topology.Node)range[0]).portCount();
                    if (other.getAddress().equals(address.getAddress()) &&
                        address.getPort() + 1 <= other.getPort() + otherPorts &&
                        other.getPort() + 1 <= address.getPort() + node.portCount())
                    {
                        findings.error(file, number, addressColumn, "\"" + node.id() + "\" takes UDP ports " +
                            (address.getPort() + 1) + ".." + (address.getPort() + node.portCount()) + " (PORT + port " +
                            "number) and \"" + ((Topology.Node)range[0]).id() + "\" (line " + range[2] + ") takes " +
                            (other.getPort() + 1) + ".." + (other.getPort() + otherPorts) + " on the same host; space " +
                            "their PORTs at least the ports of a node apart");
                    }
                }
                ranges.add(new Object[]{node, address, number});
                base.put(node.id(), address);
            }

            @Override
            public Result<Peers> finish()
            {
                return Result.of(new Peers(base), findings);
            }
        };
    }

    private static InetSocketAddress address(
        final String file, final int line, final int column, final String word, final Topology.Node node,
        final Findings findings)
    {
        final int colon = word.lastIndexOf(':');
        String host = colon < 0 ? "" : word.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty())
        {
            findings.error(file, line, column, "expected HOST:PORT, found \"" + Diagnostic.excerpt(word) +
                "\"; write e.g. 127.0.0.1:47000 or [::1]:47000");
            return null;
        }
        final String digits = word.substring(colon + 1);
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            findings.error(file, line, column + colon + 1, "expected a UDP port number, found \"" +
                Diagnostic.excerpt(digits) + "\"; write HOST:PORT with PORT 1..65535");
            return null;
        }
        // compared as written: no digit string wraps around
        final String significant = digits.replaceFirst("^0+(?=.)", "");
        final int port = significant.length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(significant);
        if (port < 1 || port > 65535 - node.portCount())
        {
            findings.error(file, line, column + colon + 1, "PORT " + Diagnostic.excerpt(digits) + ": \"" + node.id() +
                "\" has " + node.portCount() + " ports and takes PORT+1..PORT+" + node.portCount() +
                "; give PORT from 1 to " + (65535 - node.portCount()));
            return null;
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        }
        catch (final UnknownHostException | SecurityException ex)
        {
            findings.error(file, line, column, "cannot resolve host \"" + Diagnostic.excerpt(host) +
                "\"; give an address or a name this machine resolves");
            return null;
        }
    }
}
