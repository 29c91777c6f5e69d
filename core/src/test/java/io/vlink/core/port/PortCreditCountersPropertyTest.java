package io.vlink.core.port;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every counter {@link PortCredit} writes has one meaning, whatever the port goes through: for random runs of
 * commands (up, down, arm, activate), the peer's FCPs (init and normal, near and far from the credit it holds, for
 * VLs the port lacks and VL15), data stored in this credit epoch or an earlier one, the consumer's releases, a closing
 * peer and duty cycles at random times (some past the silence limit), after every call:
 * <ul>
 *     <li>{@code link_state} is the state, {@code link_transitions} the states the owner was told of, the credit epoch
 *     the Initialize entries, and the owner was told of every transmit flush, numbered;</li>
 *     <li>{@code fcp_received} and {@code fcp_discarded} add up to the FCPs given, the discards by reason to
 *     {@code fcp_discarded};</li>
 *     <li>{@code rx_free_blocks} is the receiver's free space of each data VL; in every state but Down (whose entry
 *     resets the rules' ABR and CL, the gauges and the published CL keeping the last incarnation's until the next
 *     Initialize) {@code rx_abr} is its ABR and {@code tx_credit_limit} and the published CL the rules' CL;</li>
 *     <li>after a duty cycle, {@code link_downed} and {@code link_error_recovery} are the rules' counts.</li>
 * </ul>
 */
class PortCreditCountersPropertyTest
{
    private static final int[] DATA_VLS = { 1, 2, 4, 8, 15 };
    private static final long SILENCE_NS = 1_000_000;

    @Property(tries = 300, seed = "33")
    void everyCounterTheCreditHalfWritesReadsWhatItsRulesHold(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
        final int blocks = 8 << random.nextInt(6);
        final boolean automatic = random.nextInt(4) != 0;
        final PortConfig config = PortConfig.builder().qos(QosConfig.opensmDefaults(dataVls)).bufferBlocks(blocks)
            .fcpPeriodNs(1_000 + random.nextInt(100_000)).automatic(automatic).silenceLimitNs(SILENCE_NS).build();
        final Run run = new Run(config);
        final int steps = 50 + random.nextInt(250);
        for (int step = 0; step < steps; step++)
        {
            final String what = run.step(random);
            run.check("step " + step + " (" + what + "), seed " + seed);
        }
    }

    /** One port's credit half, what was given it, and what its owner was told. */
    private static final class Run implements PortCredit.Listener
    {
        final TestCounters counters = new TestCounters();
        final CreditLimits limits = new CreditLimits();
        final FcpRequestRing requests = new FcpRequestRing(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            FcpRequestRing.MIN_CAPACITY + FcpRequestRing.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH)));
        final PortCreditTest.Consumer consumer = new PortCreditTest.Consumer();
        final PortCredit credit;
        final int dataVls;
        final long[] stored = new long[16];
        long nowNs;
        long fcps;
        long entries;
        long initializes;
        long flushes;

        Run(final PortConfig config)
        {
            dataVls = config.dataVls();
            credit = new PortCredit(config, consumer, null, requests, limits, counters.credit(), this);
        }

        @Override
        public void onTransmitFlush(final long flushes)
        {
            assertEquals(this.flushes + 1, flushes, "flushes numbered");
            this.flushes = flushes;
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            entries++;
            if (LinkState.INITIALIZE == state)
            {
                initializes++;
            }
            assertEquals(entries, counters.linkTransitions(), "counted before the owner is told");
            assertEquals(state.code(), counters.linkState());
        }

        String step(final Random random)
        {
            final CreditControl control = credit.control();
            final int vl = random.nextInt(dataVls);
            final int choice = random.nextInt(100);
            if (choice < 4)
            {
                credit.up(nowNs);
                return "up";
            }
            if (choice < 6)
            {
                credit.down(nowNs);
                return "down";
            }
            if (choice < 9)
            {
                return credit.arm(nowNs) + " arm " + credit.activate(nowNs) + " activate";
            }
            if (choice < 40)
            {
                final int op = random.nextInt(3) == 0 ? Fcp.OP_INIT : Fcp.OP_NORMAL;
                final int fcpVl = random.nextInt(20) == 0 ? (random.nextBoolean() ? 15 : dataVls) : vl;
                final int abr = control.receiver().blocksReceived(vl);
                // near what the port holds, or (one in ten) far behind it: stale
                final int fctbs = Fcp.OP_INIT == op ? 0 : (abr + random.nextInt(8) - behind(random)) & Fcp.MASK_12;
                final int fccl = (control.creditLimit(vl) + random.nextInt(64) - behind(random)) & Fcp.MASK_12;
                fcps++;
                credit.onFcp(Fcp.word(op, fctbs, fcpVl, fccl), nowNs);
                return "FCP op " + op + " VL" + fcpVl + " FCTBS " + fctbs + " FCCL " + fccl;
            }
            if (choice < 65)
            {
                final int free = control.receiver().freeBlocks(vl);
                if (free == 0)
                {
                    return "nothing stored: VL" + vl + " full";
                }
                final int np = 1 + random.nextInt(Math.min(free, 16));
                final int epoch = random.nextInt(6) == 0 ? limits.epoch() - 1 - random.nextInt(3) : limits.epoch();
                credit.onAccepted(vl, np, epoch, nowNs);
                stored[vl] += np;
                return "stored " + np + " on VL" + vl + " in epoch " + epoch + " of " + limits.epoch();
            }
            if (choice < 80)
            {
                final long held = stored[vl] - consumer.released[vl];
                consumer.released[vl] += held == 0 ? 0 : 1 + random.nextInt((int)Math.min(held, 16));
                return "released on VL" + vl + " up to " + consumer.released[vl];
            }
            if (choice < 82)
            {
                credit.onPeerClosed(nowNs);
                return "peer closed";
            }
            // a duty cycle, mostly well inside the silence limit's pause bound, sometimes past the limit
            nowNs += random.nextInt(20) == 0 ? SILENCE_NS + random.nextInt(1000) :
                random.nextInt((int)(SILENCE_NS / 8));
            credit.doWork(nowNs);
            while (FcpRequestRing.NONE != requests.take())
            {
                // the transmit half sends them
            }
            assertEquals(control.downs(), counters.linkDowned(), "link_downed after a duty cycle");
            assertEquals(control.errorRecoveries(), counters.linkErrorRecovery(), "link_error_recovery");
            return "duty cycle at " + nowNs;
        }

        private static int behind(final Random random)
        {
            return random.nextInt(10) == 0 ? 3000 : 0;
        }

        void check(final String where)
        {
            final CreditControl control = credit.control();
            final LinkState state = credit.state();
            assertEquals(state.code(), counters.linkState(), where);
            assertEquals(entries, counters.linkTransitions(), where);
            assertEquals(initializes, limits.epoch(), where + ": the credit epoch");
            assertEquals(control.transmitFlushes(), flushes, where + ": flushes told");
            assertEquals(fcps, counters.fcpReceived() + counters.fcpDiscarded(), where + ": every FCP counted once");
            long byReason = 0;
            for (final DiscardReason reason : CreditCounters.REASONS)
            {
                byReason += counters.discards(reason);
            }
            assertEquals(counters.fcpDiscarded(), byReason, where + ": discards by reason");
            for (int vl = 0; vl < dataVls; vl++)
            {
                final String at = where + ": VL" + vl;
                assertEquals(control.receiver().freeBlocks(vl), counters.rxFreeBlocks(vl), at + " free");
                if (LinkState.DOWN != state)
                {
                    assertEquals(control.receiver().blocksReceived(vl), counters.rxAbr(vl), at + " ABR");
                    assertEquals(control.creditLimit(vl), counters.txCreditLimit(vl), at + " CL");
                    assertEquals(control.creditLimit(vl), limits.limit(vl), at + " CL published");
                }
            }
        }
    }
}
