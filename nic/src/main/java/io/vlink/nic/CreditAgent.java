package io.vlink.nic;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.PortCounters;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * The credit agent: for each port, {@code core}'s {@link CreditControl} (the link state machine, the receiver's
 * credits and the FCP schedule, with the rules between them: docs/flow-control.md), fed in wire order with what the
 * receive agent reports, and its decisions published to the other threads.
 * <ul>
 *     <li>FCPs from the peer go to {@link CreditControl#onFcp}; an applied one's credit limit is published for the
 *     arbiter (release; the arbiter reads it with acquire); a discarded one is counted by reason.</li>
 *     <li>Accepted packets go to {@link CreditControl#onAccepted}; the application's releases (the receive
 *     buffers' monotonic release counts, read with acquire) to {@link CreditControl#onReleased}.</li>
 *     <li>Each due FCP (Op, VL, FCCL) is handed to the arbiter, which adds its FCTBS and sends it below VL15 and
 *     above data.</li>
 *     <li>The application's up/down requests are carried out, a silent peer is detected
 *     ({@link CreditControl#checkLiveness}), and every state entered is published with its credit epoch.</li>
 *     <li>A link error from Armed or Active ({@link CreditControl#transmitFlushes()}) marks each queue pair's posted
 *     messages and publishes a new flush epoch before the {@code Down} ({@link FlushControl}).</li>
 * </ul>
 * Every counter it writes has no other writer.
 */
final class CreditAgent implements Agent
{
    private final PortCredit[] ports;
    private final NanoClock clock;

    CreditAgent(final Port[] ports, final EngineConfiguration config, final NanoClock clock)
    {
        this.ports = new PortCredit[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortCredit(ports[i], config);
        }
        this.clock = clock;
    }

    @Override
    public int doWork()
    {
        // one time for the whole duty cycle
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

    static final class PortCredit implements MessageHandler, CreditControl.StateListener
    {
        private static final int EVENT_LIMIT = 256;
        private static final int FCP_REQUESTS_IN_FLIGHT = 64;

        private final Port port;
        private final int dataVls;
        private final CreditControl control;
        private final OneToOneRingBuffer events;
        private final OneToOneRingBuffer fcpRequests;
        private final ReceiveRing[] rxRings;
        private final PortCounters counters;
        private final LinkStateListener listener;
        private long nowNs;
        private long downs;
        private long errorRecoveries;
        private long transmitFlushes;

        PortCredit(final Port port, final EngineConfiguration config)
        {
            this.port = port;
            this.dataVls = port.dataVls();
            this.events = port.rxEvents;
            this.fcpRequests = port.fcpRequests;
            this.rxRings = port.rxRings;
            this.counters = port.counters();
            this.listener = config.linkStateListener();
            // one-block chunks: an ACCEPT event's summed blocks are charged exactly as its packets one by one
            this.control = new CreditControl(
                dataVls,
                rxRings[0].capacityBlocks(),
                Sizes.BLOCK_LENGTH,
                config.fcpPeriodNs(),
                config.earlyFcpThresholdBlocks(),
                true,
                config.linkTimeoutNs(),
                this);
            port.publishLinkState(LinkState.DOWN);
        }

        int doWork(final long nowNs)
        {
            this.nowNs = nowNs;
            int work = command();
            if (work > 0 && LinkState.INITIALIZE == control.state())
            {
                // just came up: the init FCPs are asked for before anything the peer sent is read, so that a normal
                // FCP already waiting arms this port at once (the peer gets the init FCPs first, on the wire)
                work += requestFcps();
            }
            work += events.read(this, EVENT_LIMIT);
            work += syncReleases();
            if (control.checkLiveness(nowNs))
            {
                work++;
            }
            countLinkErrors();
            if (control.state().isUp())
            {
                work += requestFcps();
            }
            return work;
        }

        private int command()
        {
            final int command = port.takeCommand();
            if (Port.COMMAND_UP == command)
            {
                return control.up(nowNs) ? 1 : 0;
            }
            if (Port.COMMAND_DOWN == command)
            {
                return control.down(nowNs) ? 1 : 0;
            }
            return 0;
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            if (control.transmitFlushes() != transmitFlushes)
            {
                // a link error from Armed or Active: mark what each queue pair has posted, then the flush epoch, both
                // before the Down is published (FlushControl)
                transmitFlushes = control.transmitFlushes();
                port.smpQueuePair().markFlush();
                for (final QueuePair qp : port.queuePairs())
                {
                    qp.markFlush();
                }
                port.flush.publishEpoch((int)transmitFlushes);
            }
            if (LinkState.INITIALIZE == state)
            {
                // every credit counter from zero; the arbiter resets FCTBS when it sees the new epoch
                port.newLinkEpoch();
                for (int vl = 0; vl < dataVls; vl++)
                {
                    counters.rxAbr(vl).setRelease(0);
                    counters.txCreditLimit(vl).setRelease(0);
                    counters.rxFreeBlocks(vl).setRelease(control.receiver().freeBlocks(vl));
                }
            }
            port.publishLinkState(state);
            counters.linkTransitions.incrementRelease();
            listener.onLinkState(port.id(), state);
        }

        private void countLinkErrors()
        {
            if (control.downs() != downs)
            {
                downs = control.downs();
                counters.linkDowned.setRelease(downs);
            }
            if (control.errorRecoveries() != errorRecoveries)
            {
                errorRecoveries = control.errorRecoveries();
                counters.linkErrorRecovery.setRelease(errorRecoveries);
            }
        }

        @Override
        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final int value = buffer.getInt(index);
            if (RxEvents.FCP == msgTypeId)
            {
                onFcp(value);
            }
            else if (RxEvents.PEER_CLOSED == msgTypeId)
            {
                control.onPeerClosed(nowNs);
            }
            else
            {
                final int vl = (value >>> 16) & 0xF;
                syncRelease(vl);
                if ((value >>> RxEvents.EPOCH_SHIFT) == (port.linkEpoch() & RxEvents.EPOCH_MASK))
                {
                    control.onAccepted(vl, value & 0xFFFF, nowNs);
                }
                else
                {
                    // stored before this port's link last re-initialized (in this batch, behind an FCP that made it
                    // re-train): the blocks hold buffer space, the new ABR does not count them
                    control.onAcceptedEarlier(vl, value & 0xFFFF);
                }
                counters.rxFreeBlocks(vl).setRelease(control.receiver().freeBlocks(vl));
                counters.rxAbr(vl).setRelease(control.receiver().blocksReceived(vl));
            }
        }

        private void onFcp(final int word)
        {
            final int verdict = control.onFcp(word, nowNs);
            if (CreditControl.APPLIED == verdict)
            {
                final int vl = Fcp.vl(word);
                final int creditLimit = control.creditLimit(vl);
                port.publishCreditLimit(vl, creditLimit);
                counters.rxAbr(vl).setRelease(control.receiver().blocksReceived(vl));
                counters.txCreditLimit(vl).setRelease(creditLimit);
                counters.fcpReceived.incrementRelease();
            }
            else
            {
                counters.discards(verdict).incrementRelease();
                counters.fcpDiscarded.incrementRelease();
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
            // agent stores a packet, then reports it): CreditControl releases only what was accepted.
            if (control.releasePending(vl) && control.onReleased(vl, rxRings[vl].releasedBlocks()) > 0)
            {
                counters.rxFreeBlocks(vl).setRelease(control.receiver().freeBlocks(vl));
                return 1;
            }
            return 0;
        }

        private int requestFcps()
        {
            int work = 0;
            // the two positions, read once each (size() reads them in a loop until the consumer's holds still,
            // every duty cycle; this agent is the producer, so an older consumer position only asks for fewer)
            while (fcpRequests.producerPosition() - fcpRequests.consumerPosition() <
                FCP_REQUESTS_IN_FLIGHT * RxEvents.RECORD_LENGTH)
            {
                final int vl = control.pollFcp(nowNs);
                if (FcpSchedule.NONE == vl)
                {
                    break;
                }
                final int index = fcpRequests.tryClaim(RxEvents.FCP, Integer.BYTES);
                if (index < 0)
                {
                    // the ring is sized far above the requests in flight; the VL stays due and is asked again
                    break;
                }
                fcpRequests.buffer().putInt(index, control.fcpRequest(vl, nowNs));
                fcpRequests.commit(index);
                work++;
            }
            return work;
        }
    }
}
