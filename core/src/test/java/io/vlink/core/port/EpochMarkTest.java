package io.vlink.core.port;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Blocks the receive half stored before the port's link re-initialized, reported to the credit half after it (behind
 * the FCP that made it re-train, in the same batch of events), take their buffer space but do not count in the new
 * ABR (docs/flow-control.md, "Link training", rule 6): the report carries the credit epoch they were stored in.
 */
class EpochMarkTest
{
    private static final int BUFFER_BLOCKS = 256;

    @Test
    void blocksStoredBeforeARetrainingHoldTheirSpaceButNotTheNewAbr()
    {
        final TestPort port = new TestPort(PortConfig.builder().qos(QosConfig.opensmDefaults(1))
            .bufferBlocks(BUFFER_BLOCKS).automatic(false).build());
        port.up(0);
        port.arm(0);
        port.activate(0);
        port.receiveData(0, 4, 0);
        assertEquals(4, port.receiver().blocksReceived(0));
        final int freeBefore = port.receiver().freeBlocks(0);

        // one poll, applied together: three FCPs whose FCTBS is behind ABR (stale: the third is a link error, the
        // port re-trains), then a packet the peer sent behind them, stored while the port was still Active
        final PortReceive receive = port.port.receiveHalf();
        final byte[] fcp = new byte[Fcp.LENGTH];
        Fcp.encode(new UnsafeBuffer(fcp), 0, Fcp.word(Fcp.OP_NORMAL, 1, 0, 100));
        for (int i = 0; i < 3; i++)
        {
            receive.onFrame(FrameSink.LINK_FRAME, new UnsafeBuffer(fcp), 0, fcp.length);
        }
        final byte[] data = port.source.frame(0, 2);
        receive.onFrame(FrameSink.DATA_FRAME, new UnsafeBuffer(data), 0, data.length);
        receive.endPoll();
        port.credit(1);

        assertEquals(1, port.control().errorRecoveries(), "three stale FCPs in a row: re-trained");
        assertEquals(LinkState.INITIALIZE, port.state());
        assertEquals(0, port.receiver().blocksReceived(0), "the new ABR counts nothing of the previous incarnation");
        assertEquals(freeBefore - 2, port.receiver().freeBlocks(0), "the packet holds its space until released");
        assertEquals(BUFFER_BLOCKS - 4 - 2, port.receiver().freeBlocks(0));
        assertEquals(port.receiver().freeBlocks(0), port.receiver().fccl(0), "FCCL = ABR 0 + what is free");
    }
}
