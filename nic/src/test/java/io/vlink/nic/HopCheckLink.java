package io.vlink.nic;

import io.vlink.core.crc.Crc16;
import io.vlink.core.wire.Icrc;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.function.IntUnaryOperator;

/**
 * A link end that checks every data frame it delivers against the definitions, as it arrives at a port after a
 * hop: the VCRC is the CRC-16 of the bytes before it, the ICRC the invariant CRC of the packet, and the LRH VL the
 * one the sending port's SL2VL gives the packet's SL.
 */
final class HopCheckLink extends ForwardingLink implements FrameHandler
{
    private final IntUnaryOperator vlOfSl;
    private final Icrc icrc = new Icrc();
    private FrameHandler handler;
    long checked;
    long failures;
    String firstFailure;

    /**
     * @param link   the wrapped end.
     * @param vlOfSl the VL a packet of an SL must arrive on (the sender's SL2VL).
     */
    HopCheckLink(final Link link, final IntUnaryOperator vlOfSl)
    {
        super(link);
        this.vlOfSl = vlOfSl;
    }

    @Override
    public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        if (DATA_FRAME == frameType)
        {
            final int size = length - Sizes.VCRC_LENGTH;
            final int vcrc = buffer.getShort(offset + size, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final int icrcValue = buffer.getInt(offset + size - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
            final int vl = LrhFlyweight.vl(buffer, offset);
            final int expectedVl = LrhFlyweight.VL15 == vl ? vl : vlOfSl.applyAsInt(LrhFlyweight.sl(buffer, offset));
            if (vcrc != Crc16.compute(buffer, offset, size) || icrcValue != icrc.compute(buffer, offset, size) ||
                vl != expectedVl)
            {
                failures++;
                if (null == firstFailure)
                {
                    firstFailure = "VL " + vl + " expected " + expectedVl + ", VCRC " + vcrc + " ICRC " + icrcValue;
                }
            }
            checked++;
        }
        handler.onFrame(frameType, buffer, offset, length);
    }

    @Override
    public void onPeerClosed()
    {
        handler.onPeerClosed();
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        this.handler = handler;
        return delegate.poll(this, frameLimit);
    }
}
