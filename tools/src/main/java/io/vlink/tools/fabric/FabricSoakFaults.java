package io.vlink.tools.fabric;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.QueuePair;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.status.PortCounters;
import io.vlink.tools.soak.FaultKind;
import io.vlink.tools.soak.FaultSpec;
import io.vlink.tools.soak.FaultyLink;
import io.vlink.tools.soak.LatencyRecorder;
import io.vlink.tools.soak.SoakFaults;
import io.vlink.tools.soak.SoakTraffic;

import java.util.function.BooleanSupplier;

/**
 * The faults a fabric soak injects, on its schedule (docs/soak.md): faulty cables, stalled receivers,
 * VL15 floods, link bounces and retables, and what each cost, for the verdict and the report.
 */
final class FabricSoakFaults
{
    private final FabricSoak run;

    FabricSoakFaults(final FabricSoak run)
    {
        this.run = run;
    }

    /** Per CA port in {@link #faultCas}: the flood SMPs its switch port dropped (the VL15_FULL discards explained). */
    long[] floodDropped;

    /** The fabric's link wrapper with faults: both ends of each chosen cable damage what they receive. */
    io.vlink.nic.link.Link faulty(final Topology.Node node, final int port, final io.vlink.nic.link.Link link)
    {
        final Topology.Link cable = node.link(port);
        final boolean chosen = null == run.options.faultNode ||
            (run.options.faultNode == node && run.options.faultPort == port) ||
            (run.options.faultNode == cable.remote() && run.options.faultPort == cable.remotePort());
        if (!chosen)
        {
            return link;
        }
        final FaultyLink faulty = new FaultyLink(link, run.options.faults, run.options.seed, node.index() * 256 + port);
        run.faultyEnds.add(new FabricSoak.FaultyEnd(node, port, faulty));
        return faulty;
    }

    void armFaults(final boolean armed)
    {
        for (final FabricSoak.FaultyEnd end : run.faultyEnds)
        {
            end.link().arm(armed);
        }
    }

    /**
     * The timed faults that act on CA ports, as {@code vlink soak} schedules them: a VL15 flood once a second (at
     * +0.25 s), a receiver stall once a second (at +0.5 s), table replacements N times a run at k/(N+1) of it (of its
     * packets with --packets, of its time otherwise).
     */
    void timedFaults(final long nowNs, final long sinceNs, final long lengthNs)
    {
        final FaultSpec faults = run.options.faults;
        final long retableCount = faults.count(FaultKind.RETABLE);
        if (run.retables < retableCount && (run.options.packets > 0 ?
            run.traffic.sentTotal >= (run.retables + 1) * run.options.packets / (retableCount + 1) :
            sinceNs >= (run.retables + 1) * lengthNs / (retableCount + 1)))
        {
            retable(run.retables++);
        }
        final long bounceCount = faults.count(FaultKind.LINK_BOUNCE);
        if (run.bounces < bounceCount && (run.options.packets > 0 ?
            run.traffic.sentTotal >= (2L * run.bounces + 1) * run.options.packets / (2 * bounceCount) :
            sinceNs >= (2L * run.bounces + 1) * lengthNs / (2 * bounceCount)))
        {
            run.bounces++;
            bounce();
        }
        final long flood = SoakFaults.occurrence(sinceNs, SoakFaults.FLOOD_OFFSET_NS);
        if (faults.isOn(FaultKind.VL15_FLOOD) && flood >= run.floods)
        {
            run.floods = flood + 1;
            vl15Flood((int)faults.count(FaultKind.VL15_FLOOD));
        }
        final long stall = SoakFaults.occurrence(sinceNs, SoakFaults.STALL_OFFSET_NS);
        if (faults.isOn(FaultKind.STALL_RECEIVER) && 0 == run.stallUntilNs && stall >= run.stalls)
        {
            run.stalls = stall + 1;
            run.timedInjected[FaultKind.STALL_RECEIVER.ordinal()]++;
            run.stallsAtStallStart = stallsInto();
            run.stallUntilNs = nowNs + faults.count(FaultKind.STALL_RECEIVER) * 1_000_000L;
        }
    }

    /** The switch each flooding CA port is cabled to, the port its SMPs arrive at, and their source. */
    void floodTargets()
    {
        final int count = run.faultCas.size();
        run.smpSources = new SoakTraffic[count];
        run.floodSwitch = new Switch[count];
        run.floodPort = new PortCounters[count];
        run.floodPosted = new long[count];
        run.floodAccountedBefore = new long[count];
        run.floodDropsBefore = new long[count];
        floodDropped = new long[count];
        for (int i = 0; i < count; i++)
        {
            final Fabric.Endpoint e = run.faultCas.get(i);
            final Topology.Link cable = e.node().link(e.portNumber());
            run.floodSwitch[i] = run.fabric.switchOf(cable.remote());
            run.floodPort[i] = run.fabric.counters(cable.remote(), cable.remotePort());
            // vlink soak's SMPs (its data packets are not used): Get NodeInfo and PortInfo, LID-routed to the switch
            // and directed-route in turn, padded to the largest packet
            run.smpSources[i] = new SoakTraffic(run.options.size, run.options.size, run.options.seed + i, e.lid(),
                run.floodSwitch[i].lid(), new LatencyRecorder(FabricSoak.FAULT_DEADLINE_NS), run.options.clock);
        }
    }

    /**
     * A VL15 flood, as {@code vlink soak}'s: each flooding CA port sends 4 + {@code extra} SMPs of the largest size to
     * its switch while the switch's SMA is held ({@link Switch#holdManagement}), so the input's VL15 buffer (4 largest
     * packets) fills and the rest are dropped and counted ({@code vl15_drops}); then the SMA takes what waited. Every
     * SMP is accounted for (stored or dropped at the switch port) before the hold ends. Injected: the SMPs beyond the
     * buffer; detected: the switch port's VL15 drops meanwhile. Data VLs go on throughout.
     */
    void vl15Flood(final int extra)
    {
        final int count = run.faultCas.size();
        // the fabric's switches keep the default VL15 buffer: that many largest packets
        final int buffer = EngineConfiguration.DEFAULT_VL15_PACKETS;
        final int total = buffer + extra;
        for (int i = 0; i < count; i++)
        {
            run.floodSwitch[i].holdManagement(true);
            run.floodPosted[i] = 0;
            run.floodAccountedBefore[i] = vl15Accounted(run.floodPort[i]);
            run.floodDropsBefore[i] = run.floodPort[i].vl15Drops().get();
        }
        final long deadline = run.options.clock.nanoTime() + FabricSoak.FAULT_DEADLINE_NS;
        boolean posting = true;
        while (posting && run.options.clock.nanoTime() - deadline < 0)
        {
            posting = false;
            for (int i = 0; i < count; i++)
            {
                final SoakTraffic source = run.smpSources[i];
                if (run.floodPosted[i] < total && run.faultCas.get(i).port().postSmp(source.smp(), 0,
                    source.prepareSmp(true)) != QueuePair.BACK_PRESSURED)
                {
                    run.floodPosted[i]++;
                    source.smpAccepted();
                }
                posting |= run.floodPosted[i] < total;
            }
            run.fabric.invoke();
            run.poll();
        }
        await(() ->
        {
            boolean accounted = true;
            for (int i = 0; i < count; i++)
            {
                accounted &= vl15Accounted(run.floodPort[i]) - run.floodAccountedBefore[i] == run.floodPosted[i];
            }
            return accounted;
        });
        for (int i = 0; i < count; i++)
        {
            final long dropped = run.floodPort[i].vl15Drops().get() - run.floodDropsBefore[i];
            run.floodUnaccounted += run.floodPosted[i] - (vl15Accounted(run.floodPort[i]) - run.floodAccountedBefore[i]);
            run.timedInjected[FaultKind.VL15_FLOOD.ordinal()] += Math.max(0, run.floodPosted[i] - buffer);
            run.timedDetected[FaultKind.VL15_FLOOD.ordinal()] += dropped;
            floodDropped[i] += dropped;
            run.floodSwitch[i].holdManagement(false);
        }
    }

    /** @return SMPs a switch port stored, dropped for a full VL15 buffer, or discarded for its link state. */
    static long vl15Accounted(final PortCounters c)
    {
        return c.rxPackets(Switch.VL15).get() + c.vl15Drops().get() + c.discards(DiscardReason.VL15_STATE.id()).get();
    }

    /**
     * @return the flood SMPs the switch port dropped for a full VL15 buffer, or -1 when no CA port floods into it.
     */
    long floodDropped(final Topology.Node node, final int port)
    {
        for (int i = 0; null != run.floodPort && i < run.floodPort.length; i++)
        {
            if (run.fabric.counters(node, port) == run.floodPort[i])
            {
                return floodDropped[i];
            }
        }
        return -1;
    }

    /** A receiver stall ends: detected when a port sending to a stalled CA port ran out of credit meanwhile. */
    void endStall()
    {
        if (0 != run.stallUntilNs)
        {
            run.stallUntilNs = 0;
            if (stallsInto() > run.stallsAtStallStart)
            {
                run.timedDetected[FaultKind.STALL_RECEIVER.ordinal()]++;
            }
        }
    }

    /** @return credit stalls of the switch ports that send to the CA ports the timed faults act on. */
    long stallsInto()
    {
        long total = 0;
        for (final Fabric.Endpoint e : run.faultCas)
        {
            final Topology.Link cable = e.node().link(e.portNumber());
            final PortCounters c = run.fabric.counters(cable.remote(), cable.remotePort());
            total += null == c ? 0 : FabricSoakReport.sum(c, c::creditStalls);
        }
        return total;
    }

    /**
     * A link bounce of the fault cable: both ends go down and come back up through Initialize; the wire is cut (loses
     * every data packet, counted) from the down request until both are Active again, as a physical link loses what
     * is on it. Before they come up, each end's receiver has found the wire empty once: whatever an end sent before
     * it went down (an FCP of the old link, say) is gone, as a physical link's symbols are long gone when it has
     * trained again, and no port that comes up reads it as its peer's.
     */
    void bounce()
    {
        final Topology.Node a = run.options.faultNode;
        final int pa = run.options.faultPort;
        final Topology.Node b = a.link(pa).remote();
        final int pb = a.link(pa).remotePort();
        run.timedInjected[FaultKind.LINK_BOUNCE.ordinal()]++;
        cut(true);
        down(a, pa);
        down(b, pb);
        if (await(() -> LinkState.DOWN == linkState(a, pa) && LinkState.DOWN == linkState(b, pb)) &&
            await(wireEmptied()))
        {
            up(a, pa);
            up(b, pb);
            if (await(() -> LinkState.ACTIVE == linkState(a, pa) && LinkState.ACTIVE == linkState(b, pb)))
            {
                run.timedDetected[FaultKind.LINK_BOUNCE.ordinal()]++;
            }
        }
        cut(false);
    }

    /**
     * @return true once every faulty end (with link-bounce, the bounced cable's ends this process runs) has found the
     * wire empty since this call.
     */
    BooleanSupplier wireEmptied()
    {
        final long[] before = new long[run.faultyEnds.size()];
        for (int i = 0; i < before.length; i++)
        {
            before[i] = run.faultyEnds.get(i).link().emptyPolls();
        }
        return () ->
        {
            for (int i = 0; i < before.length; i++)
            {
                if (run.faultyEnds.get(i).link().emptyPolls() == before[i])
                {
                    return false;
                }
            }
            return true;
        };
    }

    void cut(final boolean cut)
    {
        for (final FabricSoak.FaultyEnd end : run.faultyEnds)
        {
            end.link().cut(cut);
        }
    }

    LinkState linkState(final Topology.Node node, final int port)
    {
        return node.isSwitch() ? run.fabric.switchOf(node).linkState(port) : endpoint(node, port).port().linkState();
    }

    void down(final Topology.Node node, final int port)
    {
        if (node.isSwitch())
        {
            run.fabric.switchOf(node).down(port);
        }
        else
        {
            endpoint(node, port).port().down();
        }
    }

    void up(final Topology.Node node, final int port)
    {
        if (node.isSwitch())
        {
            run.fabric.switchOf(node).up(port);
        }
        else
        {
            endpoint(node, port).port().up();
        }
    }

    Fabric.Endpoint endpoint(final Topology.Node node, final int port)
    {
        for (final Fabric.Endpoint e : run.fabric.endpoints())
        {
            if (e.node() == node && e.portNumber() == port)
            {
                return e;
            }
        }
        throw new IllegalStateException(node.id() + "[" + port + "] does not run here");
    }

    /** Run the fabric (and the receivers) until the condition holds, for up to a fault's deadline. */
    boolean await(final BooleanSupplier condition)
    {
        final long deadline = run.options.clock.nanoTime() + FabricSoak.FAULT_DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            if (run.options.clock.nanoTime() - deadline > 0)
            {
                return false;
            }
            run.fabric.invoke();
            run.poll();
        }
        return true;
    }

    /** @return whether the port is an end of the cable a link bounce takes down. */
    boolean bounced(final Topology.Node node, final int port)
    {
        if (0 == run.timedInjected[FaultKind.LINK_BOUNCE.ordinal()])
        {
            return false;
        }
        final Topology.Link cable = run.options.faultNode.link(run.options.faultPort);
        return (node == run.options.faultNode && port == run.options.faultPort) ||
            (node == cable.remote() && port == cable.remotePort());
    }

    /** Replace the CA ports' arbitration tables: the variant, then the configured ones, in turn. */
    void retable(final int index)
    {
        final QosConfig replacement = index % 2 == 0 ? SoakFaults.variantOf(run.options.ca) : run.options.ca;
        for (final Fabric.Endpoint e : run.faultCas)
        {
            e.port().replaceQos(replacement);
            run.timedInjected[FaultKind.RETABLE.ordinal()]++;
        }
        await(() ->
        {
            boolean applied = true;
            for (final Fabric.Endpoint e : run.faultCas)
            {
                applied &= e.port().currentQos() == replacement;
            }
            return applied;
        });
        for (final Fabric.Endpoint e : run.faultCas)
        {
            if (e.port().currentQos() == replacement)
            {
                run.timedDetected[FaultKind.RETABLE.ordinal()]++;
            }
        }
    }

    /**
     * @return data packets the faults destroyed: lost or damaged on a faulty wire (a damaged one is discarded at the
     * next port), lost on the wire while a bounce cut it, or discarded for the link state at a bounced port.
     */
    long faultLost()
    {
        long lost = 0;
        for (final FabricSoak.FaultyEnd end : run.faultyEnds)
        {
            for (int vl = 0; vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
            {
                lost += end.link().droppedData(vl) + end.link().corruptedData(vl) + end.link().bounceLost(vl);
            }
            if (bounced(end.node(), end.port()))
            {
                lost += run.fabric.counters(end.node(), end.port()).discards(DiscardReason.DATA_STATE.id()).get();
            }
        }
        return lost;
    }

    /**
     * @return what the faulty wire into a port damaged, by the discard reason that must count it: data packets
     * (discarded at that port, the first hop, for their VCRC) and FCPs (for their LPCRC).
     */
    long faultDamaged(final Topology.Node node, final int port, final DiscardReason reason)
    {
        long damaged = 0;
        for (final FabricSoak.FaultyEnd end : run.faultyEnds)
        {
            if (end.node() == node && end.port() == port)
            {
                if (DiscardReason.FCP_BAD_LPCRC == reason)
                {
                    damaged += end.link().corruptedFcps();
                }
                for (int vl = 0; DiscardReason.DATA_BAD_CRC == reason && vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
                {
                    damaged += end.link().corruptedData(vl);
                }
            }
        }
        return damaged;
    }
}
