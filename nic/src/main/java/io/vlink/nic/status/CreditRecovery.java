package io.vlink.nic.status;

import io.vlink.core.credit.Credits;
import io.vlink.core.fabric.Topology;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Whether the credits came back: the one definition the soak, the fabric soak and the tests share (their
 * {@code credits_recovered} invariant). Once a link is idle, every receive buffer drained and an FCP of each VL has
 * crossed each way since, on each data VL of each direction the receiver's ABR equals the sender's FCTBS, the
 * receive buffer is all free, and the sender may send exactly what that buffer advertises:
 * {@code CL - FCTBS = min(free, 2048)} (docs/flow-control.md). Read from the ports' published counters, so a
 * watcher in another thread or process can check it.
 */
public final class CreditRecovery
{
    private CreditRecovery()
    {
    }

    /**
     * @param fctbs        the sender's FCTBS.
     * @param creditLimit  the sender's CL.
     * @param abr          the receiver's ABR.
     * @param freeBlocks   the receiver's free blocks.
     * @param bufferBlocks the receive buffer's blocks.
     * @return whether one VL of one direction has its credits back.
     */
    public static boolean recovered(
        final long fctbs, final long creditLimit, final long abr, final long freeBlocks, final long bufferBlocks)
    {
        return fctbs == abr && freeBlocks == bufferBlocks &&
            Credits.distance((int)creditLimit, (int)fctbs) == Math.min(freeBlocks, Credits.MAX_CREDIT);
    }

    /**
     * One direction of a link. With one end not watched (its node runs in another process), the other is checked
     * alone: every port of a link has the same receive buffer per VL, so an idle peer advertises all of it to this
     * end's sender, and this end's receive buffer is all free.
     *
     * @param end          how the sending end is named in what is returned ({@code NODE[PORT]}).
     * @param sender       the sending port's counters, or null when not watched.
     * @param receiver     the receiving port's counters, or null when not watched.
     * @param bufferBlocks each data VL's receive buffer, in blocks.
     * @return what is not back, a line a VL ({@code NODE[PORT] VLn: ...}); empty when every credit is.
     */
    public static List<String> unrecovered(
        final String end, final PortCounters sender, final PortCounters receiver, final long bufferBlocks)
    {
        final List<String> unrecovered = new ArrayList<>();
        final int dataVls = null != sender ? sender.dataVls() : null != receiver ? receiver.dataVls() : 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (null != sender)
            {
                final long fctbs = sender.txFctbs(vl).get();
                final long limit = sender.txCreditLimit(vl).get();
                final long abr = null == receiver ? fctbs : receiver.rxAbr(vl).get();
                final long free = null == receiver ? bufferBlocks : receiver.rxFreeBlocks(vl).get();
                if (!recovered(fctbs, limit, abr, free, bufferBlocks))
                {
                    unrecovered.add(end + " VL" + vl + ": FCTBS " + fctbs + ", CL " + limit + ", CL-FCTBS " +
                        Credits.distance((int)limit, (int)fctbs) + (null == receiver ?
                        ", the idle peer's buffer " + bufferBlocks : ", ABR " + abr + ", free " + free + " of " +
                        bufferBlocks));
                }
            }
            else
            {
                final long free = receiver.rxFreeBlocks(vl).get();
                if (free != bufferBlocks)
                {
                    unrecovered.add(end + " VL" + vl + ": the receive buffer has " + free + " of " + bufferBlocks +
                        " blocks free");
                }
            }
        }
        return unrecovered;
    }

    /**
     * Every cable of a fabric, both ways, as far as this process watches it.
     *
     * @param topology     the fabric.
     * @param counters     a port's counters, or null for a port not watched here.
     * @param bufferBlocks each data VL's receive buffer, in blocks (every port of a fabric has the same).
     * @return what is not back, a line a VL of a direction; empty when every credit is.
     */
    public static List<String> unrecovered(
        final Topology topology,
        final BiFunction<Topology.Node, Integer, PortCounters> counters,
        final long bufferBlocks)
    {
        final List<String> unrecovered = new ArrayList<>();
        for (final Topology.Node node : topology.nodes())
        {
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link cable = node.link(p);
                if (null == cable)
                {
                    continue;
                }
                final PortCounters sender = counters.apply(node, p);
                final PortCounters receiver = counters.apply(cable.remote(), cable.remotePort());
                if (null != sender || null != receiver)
                {
                    unrecovered.addAll(unrecovered(node.id() + "[" + p + "]", sender, receiver, bufferBlocks));
                }
            }
        }
        return unrecovered;
    }
}
