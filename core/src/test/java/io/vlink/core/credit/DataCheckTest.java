package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DataCheckTest
{
    @Test
    void smpsEnterInEveryStateButDown()
    {
        assertEquals(DiscardReason.VL15_STATE.id(), DataCheck.admit(LinkState.DOWN, 15, 4));
        for (final LinkState state : new LinkState[]{LinkState.INITIALIZE, LinkState.ARMED, LinkState.ACTIVE})
        {
            assertEquals(DataCheck.STORE, DataCheck.admit(state, 15, 4), state.name());
        }
    }

    @Test
    void dataEntersOnlyInArmedAndActiveOnAVlThePortHas()
    {
        assertEquals(DiscardReason.DATA_STATE.id(), DataCheck.admit(LinkState.INITIALIZE, 0, 4));
        assertEquals(DiscardReason.DATA_STATE.id(), DataCheck.admit(LinkState.DOWN, 3, 4));
        assertEquals(DataCheck.STORE, DataCheck.admit(LinkState.ARMED, 3, 4));
        assertEquals(DataCheck.STORE, DataCheck.admit(LinkState.ACTIVE, 0, 4));
        assertEquals(DiscardReason.DATA_MISSING_VL.id(), DataCheck.admit(LinkState.ACTIVE, 4, 4));
        assertEquals(DiscardReason.DATA_MISSING_VL.id(), DataCheck.admit(LinkState.ACTIVE, 14, 8));
    }

    @Test
    void aLinkFrameLongerThanAnFcpIsMalformedWhateverItsFirstEightBytes()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        Fcp.encode(buffer, 0, Fcp.word(Fcp.OP_NORMAL, 10, 0, 100));
        assertEquals(FcpCheck.VALID, FcpCheck.malformed(Fcp.decode(buffer, 0, 8), 8));
        assertEquals(DiscardReason.FCP_TOO_LONG.id(), FcpCheck.malformed(Fcp.decode(buffer, 0, 9), 9));
        assertEquals(DiscardReason.FCP_TOO_SHORT.id(), FcpCheck.malformed(Fcp.decode(buffer, 0, 7), 7));
        buffer.putByte(2, (byte)(buffer.getByte(2) ^ 1));
        assertEquals(DiscardReason.FCP_BAD_LPCRC.id(), FcpCheck.malformed(Fcp.decode(buffer, 0, 8), 8));
    }
}
