package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LinkStateMachine} alone, rule by rule (docs/flow-control.md, "The link state machine"): every command from
 * every state with what it returns, the bring-up count, and the automatic rules with every port width: Initialize
 * arms on an init FCP for every data VL or on the first normal FCP, Armed activates on a normal FCP for every data
 * VL since arming, and the VLs seen so far never carry over a state change.
 */
class LinkStateTransitionsTest
{
    private static final int[] WIDTHS = {1, 2, 4, 8, 15};

    /** A machine brought to {@code target} by commands alone. */
    private static LinkStateMachine at(final LinkState target, final int dataVls, final boolean automatic)
    {
        final LinkStateMachine link = new LinkStateMachine(dataVls, automatic);
        if (target != LinkState.DOWN)
        {
            assertTrue(link.up());
        }
        if (target == LinkState.ARMED || target == LinkState.ACTIVE)
        {
            assertTrue(link.arm());
        }
        if (target == LinkState.ACTIVE)
        {
            assertTrue(link.activate());
        }
        assertEquals(target, link.state());
        return link;
    }

    @Test
    void everyCommandMovesOnlyFromItsOwnStateAndSaysWhetherItMoved()
    {
        for (final boolean automatic : new boolean[] {false, true})
        {
            for (final LinkState from : LinkState.values())
            {
                final String where = from + (automatic ? " automatic" : " under an SM");
                LinkStateMachine link = at(from, 4, automatic);
                assertEquals(from == LinkState.DOWN, link.up(), where + ": up");
                assertEquals(from == LinkState.DOWN ? LinkState.INITIALIZE : from, link.state(), where + ": up");

                link = at(from, 4, automatic);
                assertEquals(from == LinkState.INITIALIZE, link.arm(), where + ": arm");
                assertEquals(from == LinkState.INITIALIZE ? LinkState.ARMED : from, link.state(), where + ": arm");

                link = at(from, 4, automatic);
                assertEquals(from == LinkState.ARMED, link.activate(), where + ": activate");
                assertEquals(from == LinkState.ARMED ? LinkState.ACTIVE : from, link.state(), where + ": activate");

                link = at(from, 4, automatic);
                assertEquals(from != LinkState.DOWN, link.down(), where + ": down");
                assertEquals(LinkState.DOWN, link.state(), where + ": down");

                link = at(from, 4, automatic);
                assertEquals(from == LinkState.ARMED, link.onDataReceived(), where + ": data");
                assertEquals(from == LinkState.ARMED ? LinkState.ACTIVE : from, link.state(), where + ": data");
                assertEquals(automatic, link.automatic());
            }
        }
    }

    @Test
    void upsCountsBringUpsOnly()
    {
        final LinkStateMachine link = new LinkStateMachine(2, true);
        assertEquals(0, link.ups());
        link.up();
        link.up();
        link.arm();
        link.up();
        assertEquals(1, link.ups(), "an up while up is no bring-up");
        link.down();
        link.down();
        assertEquals(1, link.ups());
        link.up();
        assertEquals(2, link.ups(), "a new value: every credit counter restarted");
    }

    @Test
    void underAnSmFcpsNeverMoveTheLink()
    {
        for (final LinkState from : LinkState.values())
        {
            final LinkStateMachine link = at(from, 1, false);
            assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), from + ": init FCP");
            assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), from + ": normal FCP");
            assertEquals(from, link.state());
        }
    }

    @Test
    void initializeArmsOnceAnInitFcpHasArrivedForEveryDataVl()
    {
        for (final int vls : WIDTHS)
        {
            final LinkStateMachine link = at(LinkState.INITIALIZE, vls, true);
            // every VL but the last, each twice and highest first: still waiting for the last one
            for (int vl = vls - 2; vl >= 0; vl--)
            {
                assertFalse(link.onFcpReceived(vl, Fcp.OP_INIT), vls + " VLs: VL " + vl);
                assertFalse(link.onFcpReceived(vl, Fcp.OP_INIT), vls + " VLs: VL " + vl + " again");
                assertEquals(LinkState.INITIALIZE, link.state(), vls + " VLs: VL " + vl);
            }
            assertTrue(link.onFcpReceived(vls - 1, Fcp.OP_INIT), vls + " VLs: the last VL arms");
            assertEquals(LinkState.ARMED, link.state());
        }
    }

    @Test
    void armedActivatesOnceANormalFcpHasArrivedForEveryDataVlSinceArming()
    {
        for (final int vls : WIDTHS)
        {
            final LinkStateMachine link = at(LinkState.INITIALIZE, vls, true);
            for (int vl = 0; vl < vls; vl++)
            {
                link.onFcpReceived(vl, Fcp.OP_INIT);
            }
            assertEquals(LinkState.ARMED, link.state(), vls + " VLs");
            // init FCPs still arriving from a peer in Initialize do not count
            for (int vl = 0; vl < vls; vl++)
            {
                assertFalse(link.onFcpReceived(vl, Fcp.OP_INIT), vls + " VLs: init FCP on VL " + vl);
            }
            for (int vl = 0; vl < vls - 1; vl++)
            {
                assertFalse(link.onFcpReceived(vl, Fcp.OP_NORMAL), vls + " VLs: VL " + vl);
                assertFalse(link.onFcpReceived(vl, Fcp.OP_NORMAL), vls + " VLs: VL " + vl + " again");
            }
            assertEquals(LinkState.ARMED, link.state(), vls + " VLs: one VL missing");
            assertTrue(link.onFcpReceived(vls - 1, Fcp.OP_NORMAL), vls + " VLs: the last VL activates");
            assertEquals(LinkState.ACTIVE, link.state());
            assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "Active stays Active");
            assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), "an init FCP does not retrain an Active port");
            assertEquals(LinkState.ACTIVE, link.state());
        }
    }

    @Test
    void aNormalFcpInInitializeArmsAtOnceAndCountsOnlyFromThere()
    {
        final LinkStateMachine link = at(LinkState.INITIALIZE, 2, true);
        link.onFcpSent(Fcp.OP_INIT);
        assertTrue(link.onFcpReceived(1, Fcp.OP_NORMAL), "the peer is Armed already");
        assertEquals(LinkState.ARMED, link.state());
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "the arming FCP's VL 1 is not counted as seen in Armed");
        assertEquals(LinkState.ARMED, link.state());
        assertTrue(link.onFcpReceived(1, Fcp.OP_NORMAL));
        assertEquals(LinkState.ACTIVE, link.state());
    }

    @Test
    void aNormalFcpArmsOnlyAfterThisPortSentAnInitFcpSinceItEnteredInitialize()
    {
        final LinkStateMachine link = at(LinkState.INITIALIZE, 2, true);
        // taken down and up while the peer stayed Active: the peer's next normal FCP must not arm this port before
        // the peer has had an init FCP from it (it would never learn that this port's counters restarted)
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertEquals(LinkState.INITIALIZE, link.state());
        link.onFcpSent(Fcp.OP_INIT);
        assertTrue(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertEquals(LinkState.ARMED, link.state());

        // an init FCP sent in another state (there is none: the Op follows the state) counts for nothing
        assertTrue(link.down());
        link.onFcpSent(Fcp.OP_INIT);
        assertTrue(link.up());
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "Down's announcement does not carry into Initialize");
        // and leaving Initialize forgets it: the next Initialize needs its own
        link.onFcpSent(Fcp.OP_INIT);
        assertTrue(link.down());
        assertTrue(link.up());
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "a new Initialize, a new init FCP first");
        assertEquals(LinkState.INITIALIZE, link.state());
        // init FCPs from the peer for every VL arm it whether or not its own went first (the peer is initializing)
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertTrue(link.onFcpReceived(1, Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, link.state());
    }

    @Test
    void vlsSeenBeforeAStateChangeNeverCountAfterIt()
    {
        // init FCPs for VLs 0..2 of 4, then the SM arms the port: Active still needs a normal FCP on all four
        LinkStateMachine link = at(LinkState.INITIALIZE, 4, true);
        for (int vl = 0; vl < 3; vl++)
        {
            link.onFcpReceived(vl, Fcp.OP_INIT);
        }
        assertTrue(link.arm());
        assertFalse(link.onFcpReceived(3, Fcp.OP_NORMAL));
        assertEquals(LinkState.ARMED, link.state());

        // the same three, then the link bounces: the fourth alone does not arm the new bring-up
        link = at(LinkState.INITIALIZE, 4, true);
        for (int vl = 0; vl < 3; vl++)
        {
            link.onFcpReceived(vl, Fcp.OP_INIT);
        }
        link.down();
        assertFalse(link.onFcpReceived(3, Fcp.OP_INIT), "Down takes nothing");
        link.up();
        assertFalse(link.onFcpReceived(3, Fcp.OP_INIT));
        assertEquals(LinkState.INITIALIZE, link.state());

        // normal FCPs on three VLs in Armed, then a data packet activates: nothing carries into a later arming
        link = at(LinkState.ARMED, 4, true);
        for (int vl = 0; vl < 3; vl++)
        {
            link.onFcpReceived(vl, Fcp.OP_NORMAL);
        }
        assertTrue(link.onDataReceived());
        link.down();
        link.up();
        link.arm();
        assertFalse(link.onFcpReceived(3, Fcp.OP_NORMAL));
        assertEquals(LinkState.ARMED, link.state());
    }
}
