package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LinkStateMachine} alone, rule by rule (docs/flow-control.md, "The link state machine" and "Link training: a
 * peer that starts again"): every command from every state with what it returns, the bring-up count, and the automatic
 * rules with every port width: the init FCP a port owes, arming on the peer's init FCPs or a normal one, Armed taking
 * the peer's init FCPs, re-training only from Active, the wait of a port that announced itself and what ends it, and
 * the VLs seen so far never carrying over a state change.
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

    /** A machine in Initialize that has sent its own init FCPs. */
    private static LinkStateMachine announced(final int dataVls)
    {
        final LinkStateMachine link = at(LinkState.INITIALIZE, dataVls, true);
        assertTrue(link.initOwed(), "an init FCP is owed from Initialize on");
        assertFalse(link.onFcpSent(Fcp.OP_INIT));
        assertFalse(link.initOwed());
        return link;
    }

    @Test
    void initializeArmsOnTheInitFcpsOfEveryVlOnlyOnceItsOwnInitFcpIsOut()
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
            assertFalse(link.onFcpReceived(vls - 1, Fcp.OP_INIT), vls + " VLs: the last VL, but an init FCP is owed");
            assertEquals(LinkState.INITIALIZE, link.state());
            assertTrue(link.onFcpSent(Fcp.OP_INIT), vls + " VLs: the owed init FCP goes out: armed");
            assertEquals(LinkState.ARMED, link.state());
        }
    }

    @Test
    void thePeersFirstInitFcpOrOneAfterItsNormalOnesOwesItAnInitFcpAndStartsTheCountAgain()
    {
        final LinkStateMachine link = announced(2);
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), "the peer's first init FCP: it (re)started");
        assertTrue(link.initOwed(), "an init FCP it may not have heard is owed again");
        assertEquals(Fcp.OP_INIT, link.peerOp());
        assertFalse(link.onFcpSent(Fcp.OP_INIT), "VL 1's init FCP not seen yet");
        assertTrue(link.onFcpReceived(1, Fcp.OP_INIT), "every VL seen since the peer started, the answer out: armed");
        assertFalse(link.initOwed(), "a further init FCP is no news");

        // the peer armed: the owed init FCP going out arms this port on the peer's normal FCP seen meanwhile
        final LinkStateMachine again = announced(2);
        again.onFcpReceived(0, Fcp.OP_INIT);
        assertFalse(again.onFcpReceived(1, Fcp.OP_NORMAL), "not while an init FCP is owed");
        assertTrue(again.onFcpSent(Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, again.state());
        final LinkStateMachine later = announced(2);
        later.onFcpReceived(0, Fcp.OP_INIT);
        later.onFcpSent(Fcp.OP_INIT);
        assertTrue(later.onFcpReceived(1, Fcp.OP_NORMAL), "or on one that comes after it");

        // an init FCP after the peer's normal one, while the owed init FCP waits: the peer armed and started again;
        // VL 0's init FCP was its previous incarnation's
        final LinkStateMachine restart = announced(2);
        restart.onFcpReceived(0, Fcp.OP_INIT);
        restart.onFcpReceived(1, Fcp.OP_NORMAL);
        assertEquals(Fcp.OP_NORMAL, restart.peerOp());
        assertFalse(restart.onFcpReceived(1, Fcp.OP_INIT), "after its normal FCP: the peer started again");
        assertTrue(restart.initOwed());
        assertFalse(restart.onFcpSent(Fcp.OP_INIT), "VL 0 not seen since, and the peer initializes: not armed");
        assertEquals(LinkState.INITIALIZE, restart.state());
        assertTrue(restart.onFcpReceived(0, Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, restart.state());
    }

    @Test
    void armedActivatesOnceANormalFcpHasArrivedForEveryDataVlSinceArming()
    {
        for (final int vls : WIDTHS)
        {
            final LinkStateMachine link = announced(vls);
            for (int vl = 0; vl < vls; vl++)
            {
                link.onFcpReceived(vl, Fcp.OP_INIT);
            }
            assertTrue(link.onFcpSent(Fcp.OP_INIT), "the answer to the peer's first init FCP arms it");
            assertEquals(LinkState.ARMED, link.state(), vls + " VLs");
            for (int vl = 0; vl < vls - 1; vl++)
            {
                assertFalse(link.onFcpReceived(vl, Fcp.OP_NORMAL), vls + " VLs: VL " + vl);
                assertFalse(link.onFcpReceived(vl, Fcp.OP_NORMAL), vls + " VLs: VL " + vl + " again");
            }
            assertEquals(LinkState.ARMED, link.state(), vls + " VLs: one VL missing");
            assertTrue(link.onFcpReceived(vls - 1, Fcp.OP_NORMAL), vls + " VLs: the last VL activates");
            assertEquals(LinkState.ACTIVE, link.state());
            assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "Active stays Active");
        }
    }

    @Test
    void anArmedPortTakesThePeersInitFcpsWithoutRetrainingAndWaitsForItToArmAgain()
    {
        final LinkStateMachine link = announced(2);
        link.onFcpReceived(0, Fcp.OP_INIT);
        link.onFcpReceived(1, Fcp.OP_INIT);
        link.onFcpSent(Fcp.OP_INIT);
        assertEquals(LinkState.ARMED, link.state());
        link.onFcpReceived(0, Fcp.OP_NORMAL);
        assertFalse(link.peerRestarted(Fcp.OP_INIT), "Armed has sent no data: the peer's init FCP is applied");
        assertFalse(link.onFcpReceived(1, Fcp.OP_INIT));
        assertEquals(Fcp.OP_INIT, link.peerOp());
        assertFalse(link.onFcpReceived(1, Fcp.OP_NORMAL), "VL 0's normal FCP was before the peer initialized");
        assertEquals(LinkState.ARMED, link.state());
        assertTrue(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertEquals(LinkState.ACTIVE, link.state());
    }

    @Test
    void onlyAnActivePortRetrainsOnThePeersInitFcp()
    {
        for (final LinkState state : LinkState.values())
        {
            final LinkStateMachine link = at(state, 2, true);
            link.onFcpReceived(0, Fcp.OP_NORMAL);
            assertEquals(state, link.state());
            assertEquals(state == LinkState.ACTIVE, link.peerRestarted(Fcp.OP_INIT), state.toString());
            assertFalse(link.peerRestarted(Fcp.OP_NORMAL), state + ": a normal FCP never means a restart");
        }
        final LinkStateMachine sm = at(LinkState.ACTIVE, 2, false);
        assertFalse(sm.peerRestarted(Fcp.OP_INIT), "activated by an SM before it heard the peer: init FCPs on their way");
        sm.onFcpReceived(1, Fcp.OP_INIT);
        assertFalse(sm.peerRestarted(Fcp.OP_INIT), "init after init: the same incarnation of the peer");
        sm.onFcpReceived(1, Fcp.OP_NORMAL);
        assertTrue(sm.peerRestarted(Fcp.OP_INIT), "after its normal FCPs, under an SM too: the counters start again");
    }

    @Test
    void aNormalFcpArmsOnlyOnceThisPortsInitFcpIsOut()
    {
        final LinkStateMachine link = at(LinkState.INITIALIZE, 2, true);
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "the peer must hear of this incarnation first");
        assertEquals(LinkState.INITIALIZE, link.state());
        assertTrue(link.onFcpSent(Fcp.OP_INIT), "then the normal FCP seen arms it");
        assertEquals(LinkState.ARMED, link.state());
        // a normal FCP sent in Initialize (there is none: the Op follows the state) and one in Down change nothing
        final LinkStateMachine down = new LinkStateMachine(2, true);
        assertFalse(down.onFcpSent(Fcp.OP_NORMAL));
        assertFalse(down.onFcpSent(Fcp.OP_INIT));
        assertFalse(down.awaitsPeerInit());
        assertFalse(down.onFcpReceived(0, Fcp.OP_INIT), "Down takes nothing");
        assertEquals(LinkStateMachine.PEER_UNKNOWN, down.peerOp());
    }

    /** A port that was Active with its peer (its last announcement made when the peer was {@code peerOp}), then bounced. */
    private static LinkStateMachine bounced(final int peerOp)
    {
        final LinkStateMachine link = announced(1);
        link.onFcpReceived(0, Fcp.OP_INIT);
        link.onFcpSent(Fcp.OP_INIT);
        assertEquals(LinkState.ARMED, link.state());
        if (peerOp == Fcp.OP_NORMAL)
        {
            link.onFcpReceived(0, Fcp.OP_NORMAL);
            assertEquals(LinkState.ACTIVE, link.state());
        }
        assertFalse(link.awaitsPeerInit());
        assertFalse(link.onFcpSent(Fcp.OP_NORMAL));
        assertEquals(peerOp == Fcp.OP_NORMAL ? LinkStateMachine.AWAIT_INIT : LinkStateMachine.AWAIT_RESTART,
            link.await(), "seen Armed or not when announcing");
        link.down();
        link.up();
        assertTrue(link.awaitsPeerInit(), "the wait outlives the incarnation");
        link.onFcpSent(Fcp.OP_INIT);
        return link;
    }

    @Test
    void aPortThatAnnouncedItselfTakesNothingToArmOnUntilThePeerShowsItHeardOfTheNewIncarnation()
    {
        // the peer still counts the previous incarnation: its normal FCPs do not arm this port
        LinkStateMachine link = bounced(Fcp.OP_NORMAL);
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertEquals(LinkState.INITIALIZE, link.state());
        // the peer re-trains: its init FCP after its normal ones ends the wait, and owes it an init FCP
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertFalse(link.awaitsPeerInit());
        assertTrue(link.initOwed());
        assertTrue(link.onFcpSent(Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, link.state());

        // seen Armed when this port announced itself: the peer's first init FCP since then ends the wait (it
        // re-trained on this port's init FCP, or waits itself); then it arms on them as any port does
        link = bounced(Fcp.OP_NORMAL);
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertFalse(link.awaitsPeerInit());
        assertTrue(link.initOwed(), "the peer's first init FCP: it (re)started");
        assertTrue(link.onFcpSent(Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, link.state());

        // announced while the peer was still initializing: the peer's init FCPs and its arming may answer the earlier
        // incarnation; only the peer's init FCP after its normal ones ends this wait
        link = bounced(Fcp.OP_INIT);
        assertEquals(LinkStateMachine.AWAIT_RESTART, link.await());
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        link.onFcpSent(Fcp.OP_INIT);
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "init -> normal does not end this wait");
        assertEquals(LinkState.INITIALIZE, link.state());
        assertTrue(link.awaitsPeerInit());
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), "normal -> init does");
        assertFalse(link.awaitsPeerInit());
        assertTrue(link.onFcpSent(Fcp.OP_INIT));
        assertEquals(LinkState.ARMED, link.state());
    }

    /**
     * Rule 3: the peer's normal FCPs read while this port was Down count before its init FCP: a peer that went Active on
     * this port's earlier normal FCPs and re-trained on its new init FCP may have sent its last normal ones while this
     * port was down. Only since this port last went Down, and only as the peer's Op before its first FCP in Initialize.
     */
    @Test
    void thePeersNormalFcpsReadWhileDownEndAWaitForItsRestart()
    {
        final LinkStateMachine link = at(LinkState.ACTIVE, 1, true);
        assertFalse(link.onFcpSent(Fcp.OP_NORMAL));
        assertEquals(LinkStateMachine.AWAIT_RESTART, link.await(), "announced before the peer's normal FCPs");
        link.down();
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL));
        assertEquals(LinkState.DOWN, link.state());
        link.up();
        assertEquals(LinkStateMachine.PEER_UNKNOWN, link.peerOp());
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT));
        assertFalse(link.awaitsPeerInit(), "normal (while Down) -> init: the peer restarted");

        // an init FCP alone while Down says nothing
        final LinkStateMachine quiet = at(LinkState.ACTIVE, 1, true);
        quiet.onFcpSent(Fcp.OP_NORMAL);
        quiet.down();
        quiet.onFcpReceived(0, Fcp.OP_INIT);
        quiet.up();
        quiet.onFcpReceived(0, Fcp.OP_INIT);
        assertEquals(LinkStateMachine.AWAIT_RESTART, quiet.await());

        // a normal FCP read during an earlier Down does not carry over the next one
        final LinkStateMachine twice = at(LinkState.ACTIVE, 1, true);
        twice.onFcpSent(Fcp.OP_NORMAL);
        twice.down();
        twice.onFcpReceived(0, Fcp.OP_NORMAL);
        twice.up();
        twice.down();
        twice.up();
        twice.onFcpReceived(0, Fcp.OP_INIT);
        assertEquals(LinkStateMachine.AWAIT_RESTART, twice.await(), "since it last went Down");

        // once the peer was heard in Initialize, its Op there is what counts
        final LinkStateMachine heard = at(LinkState.ACTIVE, 1, true);
        heard.onFcpSent(Fcp.OP_NORMAL);
        heard.down();
        heard.onFcpReceived(0, Fcp.OP_NORMAL);
        heard.up();
        heard.onFcpReceived(0, Fcp.OP_INIT);
        assertFalse(heard.awaitsPeerInit());
    }

    @Test
    void theInitFcpThatMadeAPortRetrainCountsForNothingAndThePortWaitsForThePeersRestart()
    {
        final LinkStateMachine link = at(LinkState.ACTIVE, 1, true);
        link.onFcpReceived(0, Fcp.OP_NORMAL);
        assertTrue(link.peerRestarted(Fcp.OP_INIT));
        link.down();
        link.up();
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT, true));
        assertEquals(LinkStateMachine.PEER_UNKNOWN, link.peerOp(), "sent before the peer knew of this one");
        assertEquals(LinkStateMachine.AWAIT_RESTART, link.await(), "however long it was Active");
        assertFalse(link.onFcpSent(Fcp.OP_INIT), "its VL is not counted for arming");
        assertEquals(LinkState.INITIALIZE, link.state());
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), "an init FCP the peer may have asked for before it heard of this one");
        assertEquals(LinkStateMachine.AWAIT_RESTART, link.await(), "answers nothing");
        assertFalse(link.onFcpReceived(0, Fcp.OP_NORMAL), "nor does its normal FCP arm the port");
        assertEquals(LinkState.INITIALIZE, link.state());
        assertFalse(link.onFcpReceived(0, Fcp.OP_INIT), "its init FCP after its normal ones: it started again");
        assertEquals(LinkStateMachine.AWAIT_NONE, link.await());
        final LinkStateMachine down = new LinkStateMachine(1, true);
        assertFalse(down.onFcpReceived(0, Fcp.OP_INIT, true));
        assertEquals(LinkStateMachine.AWAIT_NONE, down.await(), "Down takes nothing");
    }

    @Test
    void theSilenceLimitsFallbacksEndOrShortenTheWaitOnlyInInitialize()
    {
        LinkStateMachine link = bounced(Fcp.OP_INIT);
        link.peerInitializesToo();
        assertEquals(LinkStateMachine.AWAIT_NONE, link.await());
        link = bounced(Fcp.OP_INIT);
        link.peerWaitedForInit();
        assertEquals(LinkStateMachine.AWAIT_INIT, link.await());
        link = bounced(Fcp.OP_INIT);
        link.down();
        link.peerInitializesToo();
        link.peerWaitedForInit();
        assertEquals(LinkStateMachine.AWAIT_RESTART, link.await(), "not while Down");
    }

    @Test
    void aDataPacketInArmedActivatesAndCountsAsThePeersNormalFcp()
    {
        final LinkStateMachine link = announced(1);
        link.onFcpReceived(0, Fcp.OP_INIT);
        link.onFcpSent(Fcp.OP_INIT);
        assertTrue(link.onDataReceived());
        assertEquals(LinkState.ACTIVE, link.state());
        assertEquals(Fcp.OP_NORMAL, link.peerOp());
        assertFalse(link.onDataReceived());
        assertFalse(new LinkStateMachine(1, true).onDataReceived());
        final LinkStateMachine init = at(LinkState.INITIALIZE, 1, true);
        assertFalse(init.onDataReceived());
        assertEquals(LinkStateMachine.PEER_UNKNOWN, init.peerOp(), "Initialize takes no data");
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
        link = announced(4);
        for (int vl = 0; vl < 3; vl++)
        {
            link.onFcpReceived(vl, Fcp.OP_INIT);
        }
        link.down();
        assertFalse(link.onFcpReceived(3, Fcp.OP_INIT), "Down takes nothing");
        link.up();
        link.onFcpSent(Fcp.OP_INIT);
        assertFalse(link.onFcpReceived(3, Fcp.OP_INIT));
        link.onFcpSent(Fcp.OP_INIT);
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
