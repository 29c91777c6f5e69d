package io.vlink.core.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SizesTest
{
    @Test
    void blocksRoundUpTo64Bytes()
    {
        assertEquals(0, Sizes.blocks(0));
        assertEquals(1, Sizes.blocks(1));
        assertEquals(1, Sizes.blocks(64));
        assertEquals(2, Sizes.blocks(65));
        // the seed's "4 KB packet": 64 blocks of weight and credit
        assertEquals(64, Sizes.blocks(4096));
        assertEquals(128, Sizes.blocks(Sizes.MAX_SIZE));
    }

    @Test
    void dwordsAreThePktLen()
    {
        // the seed: a 4 KB packet takes 1024 dwords off the HighPriCounter
        assertEquals(1024, Sizes.dwords(4096));
        assertEquals(2, Sizes.dwords(8));
        assertEquals(3, Sizes.dwords(9));
    }

    @Test
    void wireLengthAddsTheVcrc()
    {
        // the capture's RC ACK: PktLen 7, 30 bytes on the wire
        assertEquals(30, Sizes.wireLength(7));
        assertEquals(28, Sizes.sizeOfPktLen(7));
        assertEquals(7, Sizes.pktLenOfWireLength(30));
    }

    @Test
    void impossibleWireLengthsHaveNoPktLen()
    {
        assertEquals(-1, Sizes.pktLenOfWireLength(9));
        assertEquals(-1, Sizes.pktLenOfWireLength(31));
        assertEquals(-1, Sizes.pktLenOfWireLength(Sizes.MAX_SIZE + 6));
        assertEquals(Sizes.MAX_PKT_LEN, Sizes.pktLenOfWireLength(Sizes.MAX_SIZE + 2));
    }
}
