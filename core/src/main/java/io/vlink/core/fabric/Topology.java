package io.vlink.core.fabric;

import io.vlink.core.credit.LineRate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fabric's nodes, their cabled ports and their LIDs, as an {@code ibnetdiscover} topology file describes them
 * ({@link TopologyReader}). Immutable once built.
 * <p>
 * Ports are numbered as on the hardware: a switch's external ports 1..N and its management port 0 (which has the
 * switch's LID and no cable); a channel adapter's or router's ports 1..N, each with LIDs of its own. A port with
 * LMC {@code m} answers to the {@code 2^m} LIDs from its base LID.
 */
public final class Topology
{
    /** The largest unicast LID (0xC000 and above are multicast). */
    public static final int MAX_UNICAST_LID = 0xBFFF;
    /** The most ports a node may have. */
    public static final int MAX_PORTS = 254;

    /** What a node is. */
    public enum NodeType
    {
        SWITCH("Switch"), CA("Ca"), ROUTER("Rt");

        private final String label;

        NodeType(final String label)
        {
            this.label = label;
        }

        /**
         * @return the keyword of its header line in ibnetdiscover's output.
         */
        public String label()
        {
            return label;
        }
    }

    /** One node: a switch, a channel adapter or a router. */
    public static final class Node
    {
        private final int index;
        private final NodeType type;
        private final String id;
        private final String description;
        private final long guid;
        private final boolean guidGiven;
        private final long systemGuid;
        private final long[] portGuid;
        private final int portCount;
        private final Link[] links;
        private final int[] baseLid;
        private final int[] lmc;

        Node(
            final int index,
            final NodeType type,
            final String id,
            final String description,
            final long guid,
            final boolean guidGiven,
            final long systemGuid,
            final int portCount)
        {
            this.index = index;
            this.type = type;
            this.id = id;
            this.description = description;
            this.guid = guid;
            this.guidGiven = guidGiven;
            this.systemGuid = systemGuid;
            this.portGuid = new long[portCount + 1];
            this.portCount = portCount;
            this.links = new Link[portCount + 1];
            this.baseLid = new int[portCount + 1];
            this.lmc = new int[portCount + 1];
        }

        /**
         * @return this node's position in the file (and in {@link Topology#nodes()}).
         */
        public int index()
        {
            return index;
        }

        public NodeType type()
        {
            return type;
        }

        public boolean isSwitch()
        {
            return type == NodeType.SWITCH;
        }

        /**
         * @return the quoted ID of its header line, unique in the topology.
         */
        public String id()
        {
            return id;
        }

        /**
         * @return the node description from the header's comment, or the ID when there is none.
         */
        public String description()
        {
            return description;
        }

        /**
         * @return the node GUID: from a preceding {@code switchguid=}/{@code caguid=}/{@code rtguid=} line, else the one
         * {@code ibsim} gives the node (see {@link TopologyReader}).
         */
        public long guid()
        {
            return guid;
        }

        /**
         * @return whether the file gave the node GUID ({@link #guid()} is otherwise ibsim's assignment).
         */
        public boolean guidGiven()
        {
            return guidGiven;
        }

        /**
         * @return the system image GUID from a preceding {@code sysimgguid=} line, else the node GUID (as ibsim reports
         * it). OpenSM's LMC routing spreads a port's LIDs over neighbours of different systems.
         */
        public long systemGuid()
        {
            return systemGuid;
        }

        /**
         * @param port 0..N.
         * @return the port GUID: a switch's is its port 0's for every port; a CA's or router's port P has its own (from
         * the port line, else the node GUID + P, as ibsim gives it).
         */
        public long portGuid(final int port)
        {
            return portGuid[isSwitch() ? 0 : port];
        }

        /**
         * @return N, the external port count of its header.
         */
        public int portCount()
        {
            return portCount;
        }


        /**
         * @param port 1..N.
         * @return the cable on that port, or null when the port is not connected.
         */
        public Link link(final int port)
        {
            return port >= 1 && port <= portCount ? links[port] : null;
        }

        /**
         * @param port 0 (a switch's own LID) or 1..N (a CA's or router's port).
         * @return the port's base LID, 0 when the port has none (a switch's external port, an unconnected port).
         */
        public int baseLid(final int port)
        {
            return baseLid[port];
        }

        /**
         * @param port 0 (a switch) or 1..N.
         * @return the port's LMC: it answers to {@code 2^lmc} LIDs from its base LID.
         */
        public int lmc(final int port)
        {
            return lmc[port];
        }


        /**
         * @return the number of connected ports.
         */
        public int connectedPorts()
        {
            int n = 0;
            for (int port = 1; port <= portCount; port++)
            {
                n += null == links[port] ? 0 : 1;
            }
            return n;
        }

        @Override
        public String toString()
        {
            return type.label() + " \"" + id + "\"";
        }
    }

    /** One end of a cable, seen from its node: the local port, the far node and port, and the link's rate. */
    public static final class Link
    {
        private final Node node;
        private final int port;
        private final Node remote;
        private final int remotePort;
        private final LineRate rate;
        private final int width;

        Link(final Node node, final int port, final Node remote, final int remotePort, final LineRate rate, final int width)
        {
            this.node = node;
            this.port = port;
            this.remote = remote;
            this.remotePort = remotePort;
            this.rate = rate;
            this.width = width;
        }

        public Node node()
        {
            return node;
        }

        public int port()
        {
            return port;
        }

        public Node remote()
        {
            return remote;
        }

        public int remotePort()
        {
            return remotePort;
        }

        /**
         * @return the link's rate, from the port line's comment or the fabric's default.
         */
        public LineRate rate()
        {
            return rate;
        }

        /**
         * @return the lane count from ibsim's {@code w=} suffix, or 0 when the file does not say.
         */
        public int width()
        {
            return width;
        }

        @Override
        public String toString()
        {
            return node.id + "[" + port + "] - " + remote.id + "[" + remotePort + "]";
        }
    }

    private final List<Node> nodes;
    private final Map<String, Node> byId;
    private final int[] lidNode;
    private final int[] lidPort;
    private final int maxLid;

    private Topology(final List<Node> nodes)
    {
        this.nodes = Collections.unmodifiableList(new ArrayList<>(nodes));
        this.byId = new HashMap<>();
        int maxLid = 0;
        for (final Node node : nodes)
        {
            byId.put(node.id, node);
            for (int port = 0; port <= node.portCount; port++)
            {
                if (node.baseLid[port] != 0)
                {
                    maxLid = Math.max(maxLid, node.baseLid[port] + (1 << node.lmc[port]) - 1);
                }
            }
        }
        this.maxLid = maxLid;
        lidNode = new int[maxLid + 1];
        lidPort = new int[maxLid + 1];
        java.util.Arrays.fill(lidNode, -1);
        for (final Node node : nodes)
        {
            for (int port = 0; port <= node.portCount; port++)
            {
                final int base = node.baseLid[port];
                if (base != 0)
                {
                    for (int lid = base; lid < base + (1 << node.lmc[port]); lid++)
                    {
                        lidNode[lid] = node.index;
                        lidPort[lid] = port;
                    }
                }
            }
        }
    }

    /**
     * @return every node, in file order.
     */
    public List<Node> nodes()
    {
        return nodes;
    }

    /**
     * @param id a node's quoted ID.
     * @return the node, or null.
     */
    public Node node(final String id)
    {
        return byId.get(id);
    }

    /**
     * @return the highest LID any port answers to.
     */
    public int maxLid()
    {
        return maxLid;
    }

    /**
     * @param lid a LID.
     * @return the node that answers to it, or null.
     */
    public Node nodeOfLid(final int lid)
    {
        return lid >= 1 && lid <= maxLid && lidNode[lid] >= 0 ? nodes.get(lidNode[lid]) : null;
    }

    /**
     * @param lid a LID some node answers to.
     * @return the port of {@link #nodeOfLid(int)} that answers to it (0 for a switch).
     */
    public int portOfLid(final int lid)
    {
        return lidPort[lid];
    }

    /**
     * @return the switches, in file order.
     */
    public List<Node> switches()
    {
        final List<Node> switches = new ArrayList<>();
        for (final Node node : nodes)
        {
            if (node.isSwitch())
            {
                switches.add(node);
            }
        }
        return switches;
    }

    /**
     * @return every cable once (from the end that comes first in the file).
     */
    public List<Link> links()
    {
        final List<Link> links = new ArrayList<>();
        for (final Node node : nodes)
        {
            for (int port = 1; port <= node.portCount; port++)
            {
                final Link link = node.links[port];
                if (null != link &&
                    (link.remote.index > node.index || (link.remote.index == node.index && link.remotePort > port)))
                {
                    links.add(link);
                }
            }
        }
        return links;
    }

    /** Builds a topology; {@link TopologyReader} validates before it calls {@link #build()}. */
    static final class Builder
    {
        private final List<Node> nodes = new ArrayList<>();

        Builder()
        {
        }

        Node node(
            final NodeType type,
            final String id,
            final String description,
            final long guid,
            final boolean guidGiven,
            final long systemGuid,
            final int portCount)
        {
            final Node node = new Node(nodes.size(), type, id, description, guid, guidGiven, systemGuid, portCount);
            nodes.add(node);
            return node;
        }

        void portGuid(final Node node, final int port, final long guid)
        {
            node.portGuid[port] = guid;
        }

        void link(final Node a, final int portA, final Node b, final int portB, final LineRate rate, final int width)
        {
            a.links[portA] = new Link(a, portA, b, portB, rate, width);
            b.links[portB] = new Link(b, portB, a, portA, rate, width);
        }

        void lid(final Node node, final int port, final int baseLid, final int lmc)
        {
            node.baseLid[port] = baseLid;
            node.lmc[port] = lmc;
        }

        Topology build()
        {
            return new Topology(nodes);
        }
    }
}
