package io.vlink.nic;

import io.vlink.core.arb.ArbiterSource;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.DataCheck;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.FcpCheck;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LinkState;
import io.vlink.core.crc.Crc16;
import io.vlink.core.fabric.Crossbar;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.SwitchSl2Vl;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.ErrorLogHandler;
import io.vlink.nic.status.HeartbeatAgent;
import io.vlink.nic.status.PortCounters;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.File;
import java.util.Objects;

/**
 * A switch of N external ports, single-threaded (an Agrona {@link Agent}), built from the same {@code core} state
 * machines as a CA port (docs/fabric.md, "The switch"). Per port: {@link PacketChecker} on every data packet,
 * {@link Fcp#decode} on every link packet, a {@link ReceiveRing} per VL (the input FIFOs, VL15 included),
 * {@link CreditControl} for the link state, the receiver's credits and the FCP schedule, and on the output side a
 * {@link CreditTransmitter} and a {@link VlArbiter} with the external ports' tables. Between them the switch's own
 * decisions: the linear forwarding table, {@link SwitchSl2Vl} per (input, output) pair, the {@link Crossbar} that
 * picks among the inputs competing for an (output, VL), the VL rewrite with the VCRC patched from the one the packet
 * arrived with ({@link PacketFramer#relabel}) and the optional head-of-queue lifetime.
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
 * Counters (one counters file per switch, named as the switch, readable by {@code vlink stat}): every port's
 * {@link PortCounters}, port 0's included; each is written by the switch's thread only. Nothing is allocated per
 * packet.
 */
public final class Switch implements Agent, AutoCloseable
{
    /** The VL of subnet management packets. */
    public static final int VL15 = LrhFlyweight.VL15;
    /** The management port. */
    public static final int MANAGEMENT_PORT = 0;
    /** Room in the counters file per port: a port of 15 data VLs has about 200. */
    private static final int COUNTERS_PER_PORT = 256;
    /** No head-of-queue lifetime: a head waits as long as it must. */
    public static final long NO_LIFETIME = Long.MAX_VALUE;

    private final String name;
    private final int lid;
    private final int ports;
    private final int dataVls;
    private final int[] lft;
    private final SwitchSl2Vl sl2vl;
    private final Crossbar crossbar;
    private final Settings settings;
    private final QosConfig external;
    private final NanoClock clock;
    private final CountersFile countersFile;
    private final PortCounters[] counters;
    private final SwitchPort[] port;
    private final HeartbeatAgent heartbeat;
    private final AtomicCounter errors;
    private final ErrorLogHandler errorHandler;
    private long nowNs;
    private boolean started;
    private boolean closed;
    private boolean managementHeld;

    /**
     * Settings of a switch's ports, as an engine's: defaults those of {@link EngineConfiguration}.
     */
    public static final class Settings
    {
        int vlBufferBlocks = EngineConfiguration.DEFAULT_VL_BUFFER_BLOCKS;
        int vl15Packets = EngineConfiguration.DEFAULT_VL15_PACKETS;
        int mtu = EngineConfiguration.DEFAULT_MTU;
        long fcpPeriodNs = EngineConfiguration.DEFAULT_FCP_PERIOD_NS;
        int earlyFcpThresholdBlocks = EngineConfiguration.DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS;
        long linkTimeoutNs = EngineConfiguration.DEFAULT_LINK_TIMEOUT_NS;
        long hoqLifetimeNs = NO_LIFETIME;
        int burst = EngineConfiguration.DEFAULT_BURST;
        NanoClock nanoClock = SystemNanoClock.INSTANCE;
        EpochClock epochClock = SystemEpochClock.INSTANCE;

        /**
         * @param blocks each data VL's input buffer of each port, in 64-byte blocks (the credit it advertises).
         * @return this.
         */
        public Settings vlBufferBlocks(final int blocks)
        {
            if (blocks < 1 || blocks > EngineConfiguration.MAX_VL_BUFFER_BLOCKS)
            {
                throw new IllegalArgumentException("vlBufferBlocks " + blocks + ": give 1 to " +
                    EngineConfiguration.MAX_VL_BUFFER_BLOCKS + " blocks (a buffer smaller than a packet never takes it)");
            }
            this.vlBufferBlocks = blocks;
            return this;
        }

        /**
         * @param packets largest packets each port's VL15 input buffer holds.
         * @return this.
         */
        public Settings vl15Packets(final int packets)
        {
            this.vl15Packets = positive("vl15Packets", packets);
            return this;
        }

        /**
         * @param mtu the largest payload the ports accept, as an engine's.
         * @return this.
         */
        public Settings mtu(final int mtu)
        {
            this.mtu = positive("mtu", mtu);
            return this;
        }

        /**
         * @param nanos the longest gap between two FCPs of a VL.
         * @return this.
         */
        public Settings fcpPeriodNs(final long nanos)
        {
            this.fcpPeriodNs = positive("fcpPeriodNs", nanos);
            return this;
        }

        /**
         * @param nanos how long an Armed or Active port hears nothing before its link is down.
         * @return this.
         */
        public Settings linkTimeoutNs(final long nanos)
        {
            this.linkTimeoutNs = positive("linkTimeoutNs", nanos);
            return this;
        }

        /**
         * @param nanos the head-of-queue lifetime (IBA's switch lifetime limit), or {@link #NO_LIFETIME}.
         * @return this.
         */
        public Settings hoqLifetimeNs(final long nanos)
        {
            this.hoqLifetimeNs = positive("hoqLifetimeNs", nanos);
            return this;
        }

        /**
         * @param packets most packets each output port sends per duty cycle.
         * @return this.
         */
        public Settings burst(final int packets)
        {
            this.burst = positive("burst", packets);
            return this;
        }

        /**
         * @param nanoClock  the clock of the FCP schedule, the link timeout and the head-of-queue lifetime.
         * @param epochClock the counters file's clock.
         * @return this.
         */
        public Settings clocks(final NanoClock nanoClock, final EpochClock epochClock)
        {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            this.epochClock = Objects.requireNonNull(epochClock, "epochClock");
            return this;
        }

        private static int positive(final String what, final int value)
        {
            if (value <= 0)
            {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }

        private static long positive(final String what, final long value)
        {
            if (value <= 0)
            {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }
    }

    /**
     * Build a switch; attach its links with {@link #attach}, then {@link #start()} it.
     *
     * @param name       the switch's name, its counters file's (as an engine name).
     * @param directory  where the counters file goes.
     * @param ports      N, the external ports (1..254).
     * @param lid        the switch's LID (its port 0's).
     * @param lft        the output port per DLID ({@link Routes#lft}); {@link Routes#NO_ROUTE} for none.
     * @param external   the external ports' QoS ({@code qos_swe_*}): VL arbitration, SL2VL, data VLs.
     * @param management port 0's QoS ({@code qos_sw0_*}): its SL2VL.
     * @param settings   the ports' settings.
     */
    public Switch(
        final String name,
        final File directory,
        final int ports,
        final int lid,
        final int[] lft,
        final QosConfig external,
        final QosConfig management,
        final Settings settings)
    {
        if (ports < 1 || ports > 254)
        {
            throw new IllegalArgumentException("a switch has 1..254 external ports: " + ports);
        }
        this.name = name;
        this.lid = lid;
        this.ports = ports;
        this.dataVls = external.dataVls();
        this.lft = lft.clone();
        this.settings = settings;
        this.clock = settings.nanoClock;
        final int[] operational = new int[ports + 1];
        java.util.Arrays.fill(operational, dataVls);
        operational[MANAGEMENT_PORT] = 0;
        this.sl2vl = new SwitchSl2Vl(ports + 1, external, management, operational);
        this.crossbar = new Crossbar(ports + 1, VlArbiter.VL_COUNT);
        this.counters = new PortCounters[ports + 1];
        this.port = new SwitchPort[ports + 1];
        this.countersFile = CountersFile.create(directory, name, 64 + (ports + 1) * COUNTERS_PER_PORT,
            CountersFile.DEFAULT_ERROR_LOG_LENGTH / 16, settings.epochClock);
        try
        {
            errors = countersFile.newCounter(CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE);
            for (int p = 0; p <= ports; p++)
            {
                counters[p] = new PortCounters(countersFile, p, dataVls);
            }
        }
        catch (final RuntimeException ex)
        {
            countersFile.close();
            throw ex;
        }
        this.external = external;
        this.heartbeat = new HeartbeatAgent(countersFile, clock, settings.epochClock);
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
     * @return the switch's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the switch's LID.
     */
    public int lid()
    {
        return lid;
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
     * @return its counters (written by the switch's thread).
     */
    public PortCounters counters(final int p)
    {
        return counters[p];
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
     * @param link the port's end of the link.
     */
    public void attach(final int p, final Link link)
    {
        if (p < 1 || p > ports || null != port[p] || started)
        {
            throw new IllegalArgumentException("port " + p + " of " + name + ": attach each of ports 1.." + ports +
                " once, before start");
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
        return null == sp ? LinkState.DOWN : sp.control.state();
    }

    /**
     * Bring every attached port's link up (Down to Initialize): its init FCPs are due at once.
     */
    public void start()
    {
        started = true;
        final long now = clock.nanoTime();
        for (final SwitchPort sp : port)
        {
            if (null != sp)
            {
                sp.control.up(now);
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
        port[p].control.down(clock.nanoTime());
    }

    /**
     * Bring a port's link up again after {@link #down}: Initialize, then Armed and Active as FCPs are exchanged. The
     * switch's thread only.
     *
     * @param p a port with a link, 1..N.
     */
    public void up(final int p)
    {
        port[p].control.up(clock.nanoTime());
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
            nowNs = clock.nanoTime();
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
        nowNs = clock.nanoTime();
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
        if (NO_LIFETIME != settings.hoqLifetimeNs)
        {
            work += expireHeads();
        }
        for (int p = 1; p <= ports; p++)
        {
            final SwitchPort sp = port[p];
            if (null != sp)
            {
                work += sp.credit();
                work += sp.transmit();
            }
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "switch-" + name;
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
        return null != sp && sp.stalled[vl];
    }

    private int expireHeads()
    {
        int work = 0;
        for (int fifo; Crossbar.NONE != (fifo = crossbar.expired(nowNs, settings.hoqLifetimeNs)); )
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
     * One external port: its input side (checks, FIFOs, credits) and its output side (arbiter, transmitter).
     */
    private final class SwitchPort implements FrameHandler, ArbiterSource, CreditControl.StateListener,
        ReceiveRing.PacketConsumer
    {
        private final int number;
        private final Link link;
        private final PortCounters portCounters;
        private final PacketChecker checker;
        private final ReceiveRing[] rings = new ReceiveRing[VlArbiter.VL_COUNT];
        private final CreditControl control;
        private final CreditTransmitter transmitter;
        private final VlArbiter arbiter;
        private final boolean[] stalled = new boolean[VlArbiter.VL_COUNT];
        private final VlTally rxTally;
        private final VlTally txTally;
        private final ReceiveRing.PacketConsumer discarder = (buffer, offset, length) -> { };
        private final ReceiveRing.PacketConsumer forwarder = this::forward;
        private int fcpVl = FcpSchedule.NONE;
        /** Whether this duty cycle's transmit found no FCP due. */
        private boolean fcpPolled;
        /** One bit per data VL whose credit state changed since the gauges were last published. */
        private int creditsMoved;
        /** The VL whose head {@link #onPacket} routes. */
        private int headVl;
        /** Whether the head {@link #onPacket} saw waits for the held SMA ({@link #holdManagement}). */
        private boolean headHeld;
        /** Where {@link #forward} copies to: the claimed offset in the output link, and the VL it leaves on. */
        private SwitchPort outPort;
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
            this.portCounters = counters[number];
            this.checker = new PacketChecker(settings.mtu);
            final int maxPacket = checker.maxSize();
            for (int vl = 0; vl < dataVls; vl++)
            {
                rings[vl] = new ReceiveRing(settings.vlBufferBlocks, maxPacket);
            }
            rings[VL15] = new ReceiveRing(settings.vl15Packets * Sizes.blocks(maxPacket), maxPacket);
            for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
            {
                if (null != rings[vl])
                {
                    vcrcs[vl] = new char[BitUtil.findNextPositivePowerOfTwo(rings[vl].capacityBlocks())];
                }
            }
            this.control = new CreditControl(
                dataVls,
                settings.vlBufferBlocks,
                Sizes.BLOCK_LENGTH,
                settings.fcpPeriodNs,
                settings.earlyFcpThresholdBlocks,
                true,
                settings.linkTimeoutNs,
                this);
            this.transmitter = new CreditTransmitter(dataVls);
            this.arbiter = new VlArbiter(external, this);
            this.rxTally = new VlTally(portCounters::rxPackets, portCounters::rxBytes);
            this.txTally = new VlTally(portCounters::txPackets, portCounters::txBytes);
        }

        // ------------------------------------------------------------------------------------------- input side

        int receive()
        {
            final int frames = link.poll(this, 2 * settings.burst);
            rxTally.publish();
            return frames;
        }

        @Override
        public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
        {
            if (Link.LINK_FRAME == frameType)
            {
                onFcp(buffer, offset, length);
            }
            else
            {
                onData(buffer, offset, length);
            }
        }

        @Override
        public void onPeerClosed()
        {
            control.onPeerClosed(nowNs);
        }

        private void onFcp(final DirectBuffer buffer, final int offset, final int length)
        {
            final long result = Fcp.decode(buffer, offset, length);
            final int malformed = FcpCheck.malformed(result, length);
            if (FcpCheck.VALID != malformed)
            {
                discard(malformed);
                portCounters.fcpMalformed.incrementRelease();
                if (FcpCheck.isDamage(malformed))
                {
                    // damaged on the way: a link with retry asks for it again
                    link.rejectFrame();
                }
                return;
            }
            final int word = Fcp.word(result);
            final int applied = control.onFcp(word, nowNs);
            if (CreditControl.APPLIED == applied)
            {
                final int vl = Fcp.vl(word);
                transmitter.onCreditLimit(vl, control.creditLimit(vl));
                creditsMoved |= 1 << vl;
                portCounters.fcpReceived.incrementRelease();
            }
            else
            {
                discard(applied);
                portCounters.fcpDiscarded.incrementRelease();
            }
        }

        private void onData(final DirectBuffer buffer, final int offset, final int length)
        {
            final int result = checker.check(buffer, offset, length);
            if (PacketChecker.OK != PacketChecker.verdict(result))
            {
                discard(DiscardReason.DATA_BAD_CRC.id());
                link.rejectFrame();
                return;
            }
            final int vl = LrhFlyweight.vl(buffer, offset);
            final int size = length - Sizes.VCRC_LENGTH;
            final int refused = DataCheck.admit(control.state(), vl, dataVls);
            if (DataCheck.STORE != refused)
            {
                discard(refused);
            }
            else if (store(vl, buffer, offset, size))
            {
                if (VL15 != vl)
                {
                    control.onAccepted(vl, Sizes.blocks(size), nowNs);
                    creditsMoved |= 1 << vl;
                }
                rxTally.add(vl, size);
            }
            else if (VL15 == vl)
            {
                discard(DiscardReason.VL15_FULL.id());
                portCounters.vl15Drops.incrementRelease();
            }
            else
            {
                discard(DiscardReason.DATA_OVERFLOW.id());
            }
        }

        private boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
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
            final int out = VL15 == vl && LrhFlyweight.PERMISSIVE_LID == dlid ? MANAGEMENT_PORT :
                dlid < lft.length ? lft[dlid] : Routes.NO_ROUTE;
            if (out < 0 || out > ports || (MANAGEMENT_PORT != out && null == port[out]))
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
                    counters[MANAGEMENT_PORT].deliveredPackets(VL15).incrementRelease();
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
            discard(reason);
        }

        /** A head the crossbar no longer holds is discarded; the next becomes the head. */
        void drop(final int vl, final DiscardReason reason)
        {
            take(vl, reason.id());
            announceHead(vl);
        }

        private void discard(final int reason)
        {
            portCounters.discards(reason).incrementRelease();
        }

        /** The credit agent's duties: releases, liveness, the link errors. */
        int credit()
        {
            int work = 0;
            for (int vl = 0; vl < dataVls; vl++)
            {
                if (control.onReleased(vl, rings[vl].releasedBlocks()) > 0)
                {
                    creditsMoved |= 1 << vl;
                    work++;
                }
            }
            if (control.checkLiveness(nowNs))
            {
                work++;
            }
            publishCredits();
            publish(portCounters.linkDowned, control.downs());
            publish(portCounters.linkErrorRecovery, control.errorRecoveries());
            return work;
        }

        /**
         * The credit gauges a CA port publishes too ({@code rx_free_blocks}, {@code rx_abr}, {@code tx_fctbs},
         * {@code tx_credit_limit} per data VL), for the VLs whose credits moved this duty cycle.
         */
        private void publishCredits()
        {
            int moved = creditsMoved;
            creditsMoved = 0;
            while (0 != moved)
            {
                final int vl = Integer.numberOfTrailingZeros(moved);
                moved &= moved - 1;
                publish(portCounters.rxFreeBlocks(vl), control.receiver().freeBlocks(vl));
                publish(portCounters.rxAbr(vl), control.receiver().blocksReceived(vl));
                publish(portCounters.txFctbs(vl), transmitter.blocksSent(vl));
                publish(portCounters.txCreditLimit(vl), transmitter.creditLimit(vl));
            }
        }

        private void publish(final AtomicCounter counter, final long value)
        {
            if (counter.getPlain() != value)
            {
                counter.setRelease(value);
            }
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            if (LinkState.INITIALIZE == state)
            {
                // every credit counter from zero (docs/flow-control.md, link states)
                transmitter.reset();
                creditsMoved = (1 << dataVls) - 1;
                java.util.Arrays.fill(stalled, false);
            }
            portCounters.linkState.setRelease(state.code());
            portCounters.linkTransitions.incrementRelease();
        }

        // ------------------------------------------------------------------------------------------ output side

        int transmit()
        {
            fcpPolled = false;
            int work = link.flush();
            for (int i = 0; i < settings.burst; i++)
            {
                if (!link.hasRoomFor(Link.MAX_DATA_FRAME_LENGTH))
                {
                    portCounters.linkBackPressure.incrementRelease();
                    break;
                }
                final int grant = arbiter.next();
                if (VlArbiter.GRANT_NONE == grant)
                {
                    break;
                }
                final boolean sent = VlArbiter.GRANT_FCP == grant ? sendFcp() : sendPacket(VlArbiter.vl(grant));
                if (!sent)
                {
                    break;
                }
                work++;
            }
            txTally.publish();
            return work;
        }

        private boolean sendFcp()
        {
            final int offset = link.tryClaim(Link.LINK_FRAME, Fcp.LENGTH);
            if (offset < 0)
            {
                // the VL stays due and goes at the next grant
                portCounters.linkBackPressure.incrementRelease();
                return false;
            }
            // the FCTBS of now: it counts exactly the blocks sent before this FCP
            final int word = transmitter.fcp(control.fcpRequest(fcpVl, nowNs));
            fcpVl = FcpSchedule.NONE;
            Fcp.encode(link.buffer(), offset, word);
            link.commit(offset);
            portCounters.fcpSent.incrementRelease();
            return true;
        }

        private boolean sendPacket(final int vl)
        {
            // a data grant's size is the head the arbiter charged; VL15 is granted without asking a size
            final int size = VL15 == vl ? crossbar.headSize(number, VL15) : arbiter.lastSize();
            final int offset = link.tryClaim(Link.DATA_FRAME, size + Sizes.VCRC_LENGTH);
            if (offset < 0)
            {
                // the head stays where it is and goes at the next grant
                portCounters.linkBackPressure.incrementRelease();
                return false;
            }
            final int fifo = crossbar.take(number, vl);
            final SwitchPort in = port[crossbar.inputOf(fifo)];
            final int inVl = crossbar.vlOf(fifo);
            in.outPort = this;
            in.outOffset = offset;
            in.outVl = vl;
            in.forwardVcrc = in.vcrcs[inVl][in.vcrcHead[inVl]++ & (in.vcrcs[inVl].length - 1)];
            in.rings[inVl].poll(in.forwarder, 1);
            link.commit(offset);
            if (VL15 != vl)
            {
                transmitter.onTransmit(vl, Sizes.blocks(size));
                creditsMoved |= 1 << vl;
                stalled[vl] = false;
            }
            txTally.add(vl, size);
            in.announceHead(inVl);
            return true;
        }

        /** The one copy: the input FIFO to the output link, then the VL and VCRC of the hop. */
        private void forward(final DirectBuffer buffer, final int offset, final int size)
        {
            final AtomicBuffer out = outPort.link.buffer();
            out.putBytes(outOffset, buffer, offset, size);
            PacketFramer.relabel(out, outOffset, size, outVl, forwardVcrc);
        }

        @Override
        public boolean hasVl15()
        {
            return control.state().isUp() && crossbar.isWaiting(number, VL15);
        }

        @Override
        public boolean hasFcp()
        {
            // the schedule changes with the clock and the credits, neither of which moves during this duty cycle's
            // transmit: asked once, and again after each FCP sent (another VL may be due too)
            if (FcpSchedule.NONE == fcpVl && !fcpPolled && control.state().isUp())
            {
                fcpVl = control.pollFcp(nowNs);
                fcpPolled = FcpSchedule.NONE == fcpVl;
            }
            return FcpSchedule.NONE != fcpVl && control.state().isUp();
        }

        @Override
        public int headSize(final int vl)
        {
            return crossbar.headSize(number, vl);
        }

        @Override
        public boolean canSend(final int vl, final int size)
        {
            if (!control.state().maySendData())
            {
                return false;
            }
            if (transmitter.mayTransmit(vl, Sizes.blocks(size)))
            {
                return true;
            }
            if (!stalled[vl])
            {
                stalled[vl] = true;
                portCounters.creditStalls(vl).incrementRelease();
            }
            return false;
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
