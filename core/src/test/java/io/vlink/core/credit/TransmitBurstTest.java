package io.vlink.core.credit;

import io.vlink.core.port.PortTransmit;
import io.vlink.core.port.TestPort;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The transmit half's burst across the two turns a duty cycle may give it ({@link PortTransmit#transmit} and, after
 * the credit half's turn, {@link PortTransmit#transmitRest}): together they send no more than one burst, and a second
 * turn sends what the first left of it.
 */
class TransmitBurstTest
{
    private static final int BURST = 4;

    @Test
    void aSecondTurnSendsWhatTheFirstLeftOfTheBurstAndNoMore()
    {
        final TestLink link = new TestLink(LinkStateMachineTest.config(true).toBuilder().burst(BURST).build(), 100);
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(20);
        assertEquals(LinkState.ACTIVE, link.a.port.state());
        final TestPort a = link.a.port;
        final PortTransmit transmit = a.port.transmitHalf();
        final int vl = link.a.dataVl;
        final long sent = a.source.sent[vl];

        offer(a, vl, 6);
        assertEquals(BURST, transmit.transmit(), "the first turn: a whole burst");
        assertEquals(0, transmit.transmitRest(), "the burst is spent: the second turn sends nothing");
        assertEquals(sent + BURST, a.source.sent[vl]);

        assertEquals(2, transmit.transmit(), "the next duty cycle: what is queued, two grants left");
        offer(a, vl, 5);
        assertEquals(2, transmit.transmitRest(), "the second turn: the two grants the first left");
        assertEquals(sent + 8, a.source.sent[vl]);
        assertEquals(3, transmit.transmit(), "a new duty cycle, a new burst");
        assertEquals(sent + 11, a.source.sent[vl]);
    }

    private static void offer(final TestPort port, final int vl, final int packets)
    {
        for (int i = 0; i < packets; i++)
        {
            port.source.offer(vl, 1);
        }
    }
}
