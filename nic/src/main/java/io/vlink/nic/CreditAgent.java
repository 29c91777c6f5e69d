package io.vlink.nic;

import io.vlink.core.credit.CreditReceiver;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.FcpCheck;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LinkState;
import io.vlink.core.credit.LinkStateMachine;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.PortCounters;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * The credit agent: for each port, the link state machine, the receiver's credit state and the FCP schedule
 * ({@code core}'s {@link LinkStateMachine}, {@link CreditReceiver}, {@link FcpSchedule}; docs/flow-control.md).
 * <ul>
 *     <li>It applies, in wire order, the FCPs and accepted packets the receive agent reports: an FCP sets
 *     {@code ABR := FCTBS} and publishes the VL's credit limit {@code CL := FCCL} (release; the arbiter reads it
 *     with acquire); an accepted packet takes its blocks ({@code ABR += NP, free -= NP}).</li>
 *     <li>It returns space the application released (the receive buffers' release counters, read with acquire):
 *     {@code free += NP}, which may make an FCP due early.</li>
 *     <li>It hands each due FCP (Op, VL, FCCL) to the arbiter, which adds its FCTBS and sends it below VL15 and
 *     above data.</li>
 *     <li>It carries out the application's up/down requests and publishes the link state.</li>
 * </ul>
 */
final class CreditAgent implements Agent
{
    private final PortCredit[] ports;
    private final NanoClock clock;

    CreditAgent(final Port[] ports, final NanoClock clock, final long fcpPeriodNs, final int earlyThresholdBlocks)
    {
        this.ports = new PortCredit[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortCredit(ports[i], fcpPeriodNs, earlyThresholdBlocks);
        }
        this.clock = clock;
    }

    @Override
    public int doWork()
    {
        // one clock read per duty cycle
        final long nowNs = clock.nanoTime();
        int work = 0;
        for (final PortCredit port : ports)
        {
            work += port.doWork(nowNs);
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "credit";
    }

    static final class PortCredit implements MessageHandler
    {
        private static final int EVENT_LIMIT = 256;

        private final Port port;
        private final int dataVls;
        private final LinkStateMachine link;
        private final CreditReceiver receiver;
        private final FcpSchedule schedule;
        private final OneToOneRingBuffer events;
        private final OneToOneRingBuffer fcpRequests;
        private final ReceiveRing[] rxRings;
        private final long[] released = new long[16];
        private final long[] accepted = new long[16];
        private final PortCounters counters;
        private long nowNs;

        PortCredit(final Port port, final long fcpPeriodNs, final int earlyThresholdBlocks)
        {
            this.port = port;
            this.dataVls = port.dataVls();
            this.link = new LinkStateMachine(dataVls, true);
            // one-block chunks: an ACCEPT event's summed blocks are charged exactly as its packets one by one
            this.receiver = new CreditReceiver(dataVls, port.rxRings[0].capacityBlocks(), Sizes.BLOCK_LENGTH);
            this.schedule = new FcpSchedule(dataVls, fcpPeriodNs, earlyThresholdBlocks, receiver);
            this.events = port.rxEvents;
            this.fcpRequests = port.fcpRequests;
            this.rxRings = port.rxRings;
            this.counters = port.counters();
            port.publishLinkState(LinkState.DOWN);
        }

        int doWork(final long nowNs)
        {
            this.nowNs = nowNs;
            int work = command();
            work += events.read(this, EVENT_LIMIT);
            work += syncReleases();
            if (link.state().isUp())
            {
                work += requestFcps();
            }
            return work;
        }

        private int command()
        {
            final int command = port.takeCommand();
            if (Port.COMMAND_UP == command && link.up())
            {
                entered();
                return 1;
            }
            if (Port.COMMAND_DOWN == command && link.down())
            {
                receiver.reset();
                entered();
                return 1;
            }
            return 0;
        }

        private void entered()
        {
            final LinkState state = link.state();
            if (LinkState.INITIALIZE == state)
            {
                // every credit counter from zero; the arbiter resets FCTBS when it sees the new epoch
                receiver.reset();
                schedule.reset(nowNs);
                port.newLinkEpoch();
                for (int vl = 0; vl < dataVls; vl++)
                {
                    counters.rxAbr(vl).setRelease(0);
                    counters.txCreditLimit(vl).setRelease(0);
                    counters.rxFreeBlocks(vl).setRelease(receiver.freeBlocks(vl));
                }
            }
            else if (LinkState.ARMED == state)
            {
                // the Op changes to 0: the peer learns at once
                schedule.makeAllDue(nowNs);
            }
            port.publishLinkState(state);
            counters.linkTransitions.incrementRelease();
        }

        @Override
        public void onMessage(final int msgTypeId, final org.agrona.MutableDirectBuffer buffer, final int index, final int length)
        {
            final int value = buffer.getInt(index);
            if (RxEvents.FCP == msgTypeId)
            {
                onFcp(value);
            }
            else
            {
                final int vl = value >>> 16;
                final int blocks = value & 0xFFFF;
                syncRelease(vl);
                accepted[vl] += blocks;
                if (!receiver.accept(vl, blocks))
                {
                    // cannot happen: the receive buffer and this accounting have the same capacity and granularity
                    counters.discards(DiscardReason.DATA_OVERFLOW.id()).incrementRelease();
                }
                counters.rxFreeBlocks(vl).setRelease(receiver.freeBlocks(vl));
                counters.rxAbr(vl).setRelease(receiver.blocksReceived(vl));
                if (link.onDataReceived())
                {
                    entered();
                }
            }
        }

        private void onFcp(final int word)
        {
            final int verdict = FcpCheck.validate(word, dataVls);
            if (FcpCheck.VALID != verdict)
            {
                counters.discards(verdict).incrementRelease();
                counters.fcpDiscarded.incrementRelease();
                return;
            }
            final int op = Fcp.op(word);
            final int vl = Fcp.vl(word);
            if (link.state().mayReceiveFcp(op))
            {
                // ABR := FCTBS re-synchronises after lost or damaged data; CL := FCCL (docs/flow-control.md, FCPs)
                receiver.onBlocksSent(vl, Fcp.fctbs(word));
                port.publishCreditLimit(vl, Fcp.fccl(word));
                counters.rxAbr(vl).setRelease(receiver.blocksReceived(vl));
                counters.txCreditLimit(vl).setRelease(Fcp.fccl(word));
                counters.fcpReceived.incrementRelease();
            }
            else
            {
                counters.discards(DiscardReason.FCP_STATE.id()).incrementRelease();
                counters.fcpDiscarded.incrementRelease();
            }
            if (link.onFcpReceived(vl, op))
            {
                entered();
            }
        }

        private int syncReleases()
        {
            int work = 0;
            for (int vl = 0; vl < dataVls; vl++)
            {
                work += syncRelease(vl);
            }
            return work;
        }

        private int syncRelease(final int vl)
        {
            // The application may already have taken packets whose acceptance is still on its way here (the receive
            // agent stores a packet, then reports it): only what was accepted can be released.
            final long releasedNow = Math.min(rxRings[vl].releasedBlocks(), accepted[vl]);
            final long delta = releasedNow - released[vl];
            if (delta > 0)
            {
                released[vl] = releasedNow;
                receiver.release(vl, (int)delta);
                counters.rxFreeBlocks(vl).setRelease(receiver.freeBlocks(vl));
                return 1;
            }
            return 0;
        }

        private int requestFcps()
        {
            int work = 0;
            while (fcpRequests.size() < 64 * RxEvents.RECORD_LENGTH)
            {
                final int vl = schedule.poll(nowNs);
                if (FcpSchedule.NONE == vl)
                {
                    break;
                }
                final int fccl = receiver.fccl(vl);
                final int request = Fcp.word(link.state().fcpOp(), 0, vl, fccl);
                final int index = fcpRequests.tryClaim(1, Integer.BYTES);
                fcpRequests.buffer().putInt(index, request);
                fcpRequests.commit(index);
                schedule.onFcpSent(vl, nowNs, fccl);
                work++;
            }
            return work;
        }
    }
}
