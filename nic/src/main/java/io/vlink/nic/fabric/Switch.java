package io.vlink.nic.fabric;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.crc.Crc16;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.fabric.Crossbar;
import io.vlink.core.fabric.SwitchSl2Vl;
import io.vlink.core.port.DirectPort;
import io.vlink.core.port.PacketSource;
import io.vlink.core.port.PortCredit;
import io.vlink.core.port.PortReceive;
import io.vlink.core.port.ReceiveBuffers;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.Port;
import io.vlink.nic.PortSettings;
import io.vlink.nic.link.LinkReceiver;
import io.vlink.nic.link.Link;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.ErrorLogHandler;
import io.vlink.nic.status.ForwardCounters;
import io.vlink.nic.status.HeartbeatAgent;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A switch of N external ports, single-threaded (an Agrona {@link Agent}), each external port running the same
 * datapath as a CA port (docs/fabric.md, "The switch"): {@code core}'s {@link DirectPort}, the receive, credit and
 * transmit halves an engine runs on its agents' threads, called in turn by the switch's thread (what a port receives
 * is applied at once). Per port its input FIFOs are the datapath's receive buffers (a {@link ReceiveRing} per VL,
 * VL15 included), and the heads of every input FIFO that wait for it are its packet source. Between them the
 * switch's own decisions: the linear forwarding table, {@link SwitchSl2Vl} per (input, output) pair, the
 * {@link Crossbar} that picks among the inputs competing for an (output, VL), the VL rewrite with the VCRC patched
 * from the one the packet arrived with ({@link PacketFramer#relabel}) and the optional head-of-queue lifetime.
 * <p>
 * A packet is routed when it reaches the head of its input FIFO: no route (or a route to a port without a link)
 * is {@code discards_no_route}, an SL the SL2VL table maps to VL15 or to a VL the output lacks
 * {@code discards_sl2vl_unmapped}, a head older than the lifetime {@code discards_hoq_lifetime}, each counted on
 * the input port; its blocks are released and return as credit. Port 0, the management port, takes only VL15
 * packets addressed to the switch's LID or to the permissive LID (a directed-route SMP), counted as port 0's
 * {@code delivered_packets} on VL15; it operates no data VL, so data addressed to the switch is an SL2VL discard.
 * While {@link #holdManagement held}, the switch's SMA takes nothing: an SMP for it waits at the head of its input's
 * VL15 FIFO, the FIFO fills and the next SMPs are dropped and counted ({@code vl15_drops}), as at any full VL15
 * buffer.
 * <p>
 * Built from a frozen {@link SwitchConfiguration} ({@link #builder()}). Counters (one counters file per switch, named
 * as the switch, readable by {@code vlink stat}): every port's, port 0's included, each handed to the part that writes
 * it, all on the switch's thread. Nothing is allocated per packet.
 */
public final class Switch implements Agent, AutoCloseable
{
    /** The VL of subnet management packets. */
    public static final int VL15 = LrhFlyweight.VL15;
    /** The management port. */
    public static final int MANAGEMENT_PORT = 0;
    /** No head-of-queue lifetime: a head waits as long as it must. */
    public static final long NO_LIFETIME = SwitchConfiguration.NO_LIFETIME;
    /** Room in the counters file per port: a port of 15 data VLs has about 200. */
    private static final int COUNTERS_PER_PORT = 256;

    private final SwitchConfiguration config;
    private final int ports;
    private final int dataVls;
    private final SwitchSl2Vl sl2vl;
    private final Crossbar crossbar;
    private final NanoClock nanoClock;
    // one clock read per duty cycle, shared by every port
    private final CachedNanoClock clock = new CachedNanoClock();
    private final CountersFile countersFile;
    private final PortCounterSet[] counters;
    private final AtomicCounter managementDelivered;
    private final SwitchPort[] port;
    private final HeartbeatAgent heartbeat;
    private final AtomicCounter errors;
    private final ErrorLogHandler errorHandler;
    private long nowNs;
    private boolean started;
    private boolean closed;
    private boolean managementHeld;

    /**
     * @return a builder of a switch's configuration, and of the switch.
     */
    public static SwitchConfiguration.Builder builder()
    {
        return new SwitchConfiguration.Builder();
    }

    /**
     * Build a switch; attach its links with {@link #attach}, then {@link #start()} it.
     *
     * @param config the switch's frozen configuration.
     */
    public Switch(final SwitchConfiguration config)
    {
        this.config = config;
        this.ports = config.ports();
        final QosConfig external = config.external();
        this.dataVls = external.dataVls();
        this.nanoClock = config.nanoClock();
        final int[] operational = new int[ports + 1];
        java.util.Arrays.fill(operational, dataVls);
        operational[MANAGEMENT_PORT] = 0;
        this.sl2vl = new SwitchSl2Vl(ports + 1, external, config.management(), operational);
        this.crossbar = new Crossbar(ports + 1, VlArbiter.VL_COUNT);
        this.counters = new PortCounterSet[ports + 1];
        this.port = new SwitchPort[ports + 1];
        this.countersFile = CountersFile.create(config.directory(), config.name(),
            64 + (ports + 1) * COUNTERS_PER_PORT, CountersFile.DEFAULT_ERROR_LOG_LENGTH / 16, config.epochClock());
        try
        {
            errors = countersFile.newCounter(CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE);
            for (int p = 0; p <= ports; p++)
            {
                counters[p] = new PortCounterSet(countersFile, p, dataVls);
            }
            managementDelivered = counters[MANAGEMENT_PORT].application().deliveredPackets(VL15);
        }
        catch (final RuntimeException ex)
        {
            countersFile.close();
            throw ex;
        }
        this.heartbeat = new HeartbeatAgent(countersFile, nanoClock, config.epochClock());
        this.errorHandler = new ErrorLogHandler(countersFile.errorLog(), System.err);
    }

    /**
     * An exception thrown by a duty cycle of this switch, as an engine's agent runner handles one: recorded in the
     * counters file's error log ({@code vlink stat --errors}) and counted ({@code errors}); the switch carries on with
     * its next duty cycle. The thread that runs the switch only.
     *
     * @param throwable what the duty cycle threw.
     */
    public void onError(final Throwable throwable)
    {
        // logged before counted: a reader that sees the count finds the entry
        errorHandler.onError(throwable);
        errors.incrementRelease();
    }

    /**
     * @return the switch's frozen configuration.
     */
    public SwitchConfiguration configuration()
    {
        return config;
    }

    /**
     * @return the switch's name.
     */
    public String name()
    {
        return config.name();
    }

    /**
     * @return the switch's LID.
     */
    public int lid()
    {
        return config.lid();
    }

    /**
     * @return N, the external ports.
     */
    public int ports()
    {
        return ports;
    }

    /**
     * @return the data VLs of every external port.
     */
    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @param p a port, 0..N.
     * @return its counters, read only (written by the switch's thread).
     */
    public PortCounters counters(final int p)
    {
        return counters[p].view();
    }

    /**
     * @param p an external port, 1..N.
     * @return the counters its link writes: handed, once, to the link made for the port ({@link #attach}).
     */
    public LinkCounters linkCounters(final int p)
    {
        return counters[p].link();
    }

    /**
     * @return the counters file.
     */
    public CountersFile countersFile()
    {
        return countersFile;
    }

    /**
     * Cable an external port. The switch owns the link from now on and closes it.
     *
     * @param p    an external port, 1..N, not yet attached.
     * @param link the port's end of the link, made with {@link #linkCounters(int) its counters}.
     */
    public void attach(final int p, final Link link)
    {
        if (p < 1 || p > ports || null != port[p] || started)
        {
            throw new IllegalArgumentException("port " + p + " of " + config.name() + ": attach each of ports 1.." +
                ports + " once, before start");
        }
        port[p] = new SwitchPort(p, link);
    }

    /**
     * @param p a port, 0..N.
     * @return the port's link state (DOWN for port 0 and ports without a link); the switch's thread only.
     */
    public LinkState linkState(final int p)
    {
        final SwitchPort sp = port[p];
        return null == sp ? LinkState.DOWN : sp.port.state();
    }

    /**
     * Bring every attached port's link up (Down to Initialize): its init FCPs are asked for at once.
     */
    public void start()
    {
        started = true;
        clock.update(nanoClock.nanoTime());
        for (final SwitchPort sp : port)
        {
            if (null != sp)
            {
                sp.port.up();
            }
        }
    }

    /**
     * Take a port's link down, as a subnet manager's command or a cable pulled would: Down, and packets on the wire
     * are lost; packets in the input FIFOs stay and go once the link is up again. The switch's thread only.
     *
     * @param p a port with a link, 1..N.
     */
    public void down(final int p)
    {
        clock.update(nanoClock.nanoTime());
        port[p].port.down();
    }

    /**
     * Bring a port's link up again after {@link #down}: Initialize, then Armed and Active as FCPs are exchanged. The
     * switch's thread only.
     *
     * @param p a port with a link, 1..N.
     */
    public void up(final int p)
    {
        clock.update(nanoClock.nanoTime());
        port[p].port.up();
    }

    /**
     * Hold or release the switch's SMA, as a busy management processor would: while held, a VL15 packet for port 0
     * waits at the head of its input's VL15 FIFO, which fills (it holds the configured number of largest packets),
     * and the SMPs that find it full are dropped and counted ({@code vl15_drops}, {@code discards_vl15_full}); data
     * VLs and SMPs forwarded to other ports go on. Released, the SMA takes what waits. The switch's thread only.
     *
     * @param held whether the SMA takes nothing.
     */
    public void holdManagement(final boolean held)
    {
        managementHeld = held;
        if (!held)
        {
            nowNs = nanoClock.nanoTime();
            for (int p = 1; p <= ports; p++)
            {
                final SwitchPort sp = port[p];
                if (null != sp && sp.rings[VL15].size() > 0 &&
                    Crossbar.NONE == crossbar.targetOf(crossbar.fifo(p, VL15)))
                {
                    sp.announceHead(VL15);
                }
            }
        }
    }

    @Override
    public int doWork()
    {
        nowNs = nanoClock.nanoTime();
        clock.update(nowNs);
        // vlink stat tells a running switch from a stuck one by the heartbeat, as it does an engine
        heartbeat.beat(nowNs);
        int work = 0;
        for (int p = 1; p <= ports; p++)
        {
            final SwitchPort sp = port[p];
            if (null != sp)
            {
                work += sp.receive();
            }
        }
        if (NO_LIFETIME != config.hoqLifetimeNs())
        {
            work += expireHeads();
        }
        for (int p = 1; p <= ports; p++)
        {
            final SwitchPort sp = port[p];
            if (null != sp)
            {
                work += sp.port.credit();
                work += sp.port.transmit();
            }
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "switch-" + config.name();
    }

    /**
     * @param in an input port, 1..N.
     * @param vl a VL, 0..15.
     * @return packets waiting in that input FIFO (the switch's thread, or approximate from another).
     */
    public int queued(final int in, final int vl)
    {
        final SwitchPort sp = port[in];
        return null == sp || null == sp.rings[vl] ? 0 : sp.rings[vl].size();
    }

    /**
     * @param in an input port, 1..N.
     * @param vl a VL.
     * @return the output port the head packet of that input FIFO waits for, or {@link Crossbar#NONE}; the switch's
     * thread only.
     */
    public int waitingOutput(final int in, final int vl)
    {
        final int target = crossbar.targetOf(crossbar.fifo(in, vl));
        return Crossbar.NONE == target ? Crossbar.NONE : target / VlArbiter.VL_COUNT;
    }

    /**
     * @param in an input port, 1..N.
     * @param vl a VL.
     * @return the output VL the head packet of that input FIFO waits for, or {@link Crossbar#NONE}.
     */
    public int waitingVl(final int in, final int vl)
    {
        final int target = crossbar.targetOf(crossbar.fifo(in, vl));
        return Crossbar.NONE == target ? Crossbar.NONE : target % VlArbiter.VL_COUNT;
    }

    /**
     * @param out an external port.
     * @param vl  a data VL.
     * @return whether its transmitter lacks the credit for the head packet waiting for it (the switch's thread).
     */
    public boolean creditStalled(final int out, final int vl)
    {
        final SwitchPort sp = port[out];
        return null != sp && sp.port.transmitHalf().stalled(vl);
    }

    private int expireHeads()
    {
        int work = 0;
        for (int fifo; Crossbar.NONE != (fifo = crossbar.expired(nowNs, config.hoqLifetimeNs())); )
        {
            crossbar.remove(fifo);
            final int in = crossbar.inputOf(fifo);
            final int vl = crossbar.vlOf(fifo);
            port[in].drop(vl, DiscardReason.HOQ_LIFETIME);
            work++;
        }
        return work;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final SwitchPort sp : port)
        {
            if (null != sp)
            {
                CloseHelper.quietClose(sp::free);
            }
        }
        countersFile.close();
    }

    /**
     * One external port: the datapath ({@link DirectPort}) over the port's input FIFOs (its receive buffers) and the
     * heads waiting for it (its packet source), and the switch's routing of each FIFO's head.
     */
    private final class SwitchPort implements ReceiveBuffers, PacketSource, PortCredit.Listener,
        ReceiveRing.PacketConsumer
    {
        private final int number;
        private final Link link;
        private final ForwardCounters forwardCounters;
        private final ReceiveRing[] rings = new ReceiveRing[VlArbiter.VL_COUNT];
        private final DirectPort port;
        private final PortReceive receive;
        private final LinkReceiver input;
        private final int frameLimit;
        private final ReceiveRing.PacketConsumer discarder = (buffer, offset, length) -> { };
        private final ReceiveRing.PacketConsumer forwarder = this::forward;
        /** The VL whose head {@link #onPacket} routes. */
        private int headVl;
        /** Whether the head {@link #onPacket} saw waits for the held SMA ({@link #holdManagement}). */
        private boolean headHeld;
        /** Where {@link #forward} copies to: the output link's buffer, the claimed offset, the VL it leaves on. */
        private MutableDirectBuffer outBuffer;
        private int outOffset;
        private int outVl;
        /** The VCRC the packet {@link #forward} copies arrived with. */
        private int forwardVcrc;
        /**
         * Per VL, the VCRC each packet of the input FIFO arrived with (checked), in the FIFO's order: the hop's VCRC
         * is patched from it for the VL rewrite instead of computed over the packet again. A FIFO holds at most one
         * packet per block of its buffer, so a ring of that many (a power of two) never overflows.
         */
        private final char[][] vcrcs = new char[VlArbiter.VL_COUNT][];
        private final int[] vcrcHead = new int[VlArbiter.VL_COUNT];
        private final int[] vcrcTail = new int[VlArbiter.VL_COUNT];

        SwitchPort(final int number, final Link link)
        {
            this.number = number;
            this.link = link;
            final PortCounterSet set = counters[number];
            this.forwardCounters = set.forward();
            final PortSettings settings = config.portSettings();
            final int maxPacket = settings.mtu() + PacketChecker.HEADERS_ALLOWANCE;
            for (int vl = 0; vl < dataVls; vl++)
            {
                rings[vl] = new ReceiveRing(settings.vlBufferBlocks(), maxPacket);
            }
            rings[VL15] = new ReceiveRing(settings.vl15Packets() * Sizes.blocks(maxPacket), maxPacket);
            for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
            {
                if (null != rings[vl])
                {
                    vcrcs[vl] = new char[BitUtil.findNextPositivePowerOfTwo(rings[vl].capacityBlocks())];
                }
            }
            this.port = new DirectPort(config.portConfig(), link, this, this, set.receive(), set.credit(),
                set.transmit(), this, clock, DirectPort.Events.IMMEDIATE);
            this.receive = port.receiveHalf();
            this.input = new LinkReceiver(link, receive);
            this.frameLimit = 2 * settings.burst();
        }

        // ------------------------------------------------------------------------------------------- input side

        int receive()
        {
            return input.poll(receive.frameLimit(frameLimit));
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            // the datapath's halves and counters have it; the switch routes by its FIFOs alone
        }

        @Override
        public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
        {
            final ReceiveRing ring = rings[vl];
            final boolean wasEmpty = 0 == ring.size();
            if (!ring.offer(buffer, offset, size))
            {
                return false;
            }
            final char[] fifo = vcrcs[vl];
            fifo[vcrcTail[vl]++ & (fifo.length - 1)] = (char)buffer.getShort(offset + size, Crc16.CRC_BYTE_ORDER);
            if (wasEmpty)
            {
                announceHead(vl);
            }
            return true;
        }

        @Override
        public long releasedBlocks(final int vl)
        {
            return rings[vl].releasedBlocks();
        }

        /**
         * The FIFO's oldest packet is its head now: route it, or discard it and route the next, until a head waits
         * for an output or the FIFO is empty.
         */
        void announceHead(final int vl)
        {
            headVl = vl;
            headHeld = false;
            while (rings[vl].peek(this))
            {
                if (headHeld || Crossbar.NONE != crossbar.targetOf(crossbar.fifo(number, vl)))
                {
                    return;
                }
            }
        }

        /** Routes the head {@link #announceHead} peeked: either it waits in the crossbar or it is taken now. */
        @Override
        public void onPacket(final DirectBuffer buffer, final int offset, final int size)
        {
            final int vl = headVl;
            final int dlid = LrhFlyweight.dlid(buffer, offset);
            final int out = VL15 == vl && LrhFlyweight.PERMISSIVE_LID == dlid ? MANAGEMENT_PORT : config.lft(dlid);
            if (out < 0 || out > ports || (MANAGEMENT_PORT != out && null == Switch.this.port[out]))
            {
                take(vl, DiscardReason.NO_ROUTE.id());
                return;
            }
            final int fifo = crossbar.fifo(number, vl);
            if (VL15 == vl)
            {
                if (MANAGEMENT_PORT == out && managementHeld)
                {
                    // the SMA takes nothing now: the SMP waits at the head, the FIFO behind it fills
                    headHeld = true;
                    return;
                }
                if (MANAGEMENT_PORT == out)
                {
                    // the switch's own SMA takes it: counted, the buffer freed
                    rings[VL15].poll(discarder, 1);
                    vcrcHead[VL15]++;
                    managementDelivered.incrementRelease();
                    return;
                }
                crossbar.head(fifo, out, VL15, size, nowNs);
                return;
            }
            final int leaveVl = sl2vl.map(number, out, LrhFlyweight.sl(buffer, offset));
            if (SwitchSl2Vl.DISCARD == leaveVl)
            {
                take(vl, DiscardReason.SL2VL_UNMAPPED.id());
                return;
            }
            crossbar.head(fifo, out, leaveVl, size, nowNs);
        }

        private void take(final int vl, final int reason)
        {
            rings[vl].poll(discarder, 1);
            vcrcHead[vl]++;
            forwardCounters.discards(reason).incrementRelease();
        }

        /** A head the crossbar no longer holds is discarded; the next becomes the head. */
        void drop(final int vl, final DiscardReason reason)
        {
            take(vl, reason.id());
            announceHead(vl);
        }

        // ------------------------------------------------------------------------------------------ output side

        @Override
        public boolean hasVl15()
        {
            return crossbar.isWaiting(number, VL15);
        }

        @Override
        public int headSize(final int vl)
        {
            return crossbar.headSize(number, vl);
        }

        @Override
        public boolean isEmpty()
        {
            // the crossbar answers per VL; the arbiter asks the VLs its tables serve
            return false;
        }

        /** The input FIFO whose head the crossbar picks for this output's VL: forwarded onto this port's link. */
        @Override
        public int write(final int vl, final MutableDirectBuffer buffer, final int offset, final int size)
        {
            final int fifo = crossbar.take(number, vl);
            final SwitchPort in = Switch.this.port[crossbar.inputOf(fifo)];
            final int inVl = crossbar.vlOf(fifo);
            in.outBuffer = buffer;
            in.outOffset = offset;
            in.outVl = vl;
            in.forwardVcrc = in.vcrcs[inVl][in.vcrcHead[inVl]++ & (in.vcrcs[inVl].length - 1)];
            in.rings[inVl].poll(in.forwarder, 1);
            in.announceHead(inVl);
            return size + Sizes.VCRC_LENGTH;
        }

        /** The one copy: the input FIFO to the output link, then the VL and VCRC of the hop. */
        private void forward(final DirectBuffer buffer, final int offset, final int size)
        {
            outBuffer.putBytes(outOffset, buffer, offset, size);
            PacketFramer.relabel(outBuffer, outOffset, size, outVl, forwardVcrc);
        }

        void free()
        {
            link.close();
            for (final ReceiveRing ring : rings)
            {
                if (null != ring)
                {
                    ring.close();
                }
            }
        }
    }
}
