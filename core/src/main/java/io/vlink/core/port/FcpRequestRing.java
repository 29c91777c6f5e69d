package io.vlink.core.port;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The hand-off of FCP requests from a port's credit half to its transmit half: Op, VL and FCCL of each FCP due
 * ({@link io.vlink.core.credit.CreditControl#fcpRequest}); the transmit half adds its FCTBS as the FCP goes on the
 * wire. At most {@link #IN_FLIGHT} wait at a time: the schedule keeps a VL due until its request is written, and
 * the requests of a duty cycle go out ahead of its data.
 * <p>
 * An Agrona {@link OneToOneRingBuffer}: one producer thread ({@link PortCredit}) and one consumer thread
 * ({@link PortTransmit}), which may be the same ({@link DirectPort}).
 */
public final class FcpRequestRing
{
    /** Requests waiting at most. */
    public static final int IN_FLIGHT = 64;
    /** {@link #take()}: no request was committed yet (never a request: its Op would be 15, a reserved one). */
    public static final int NONE = -1;
    /** The least data length: room far above the requests in flight. */
    public static final int MIN_CAPACITY = 4 * IN_FLIGHT * PortConfig.RING_RECORD_LENGTH;
    /** The bytes the ring keeps after its data. */
    public static final int TRAILER_LENGTH = RingBufferDescriptor.TRAILER_LENGTH;

    private static final int REQUEST = 1;

    private final OneToOneRingBuffer ring;
    private final ControlledMessageHandler reader = this::onRequest;
    private int taken;

    /**
     * @param buffer the ring's memory: a power of two of at least {@link #MIN_CAPACITY} plus {@link #TRAILER_LENGTH}.
     */
    public FcpRequestRing(final AtomicBuffer buffer)
    {
        ring = new OneToOneRingBuffer(buffer);
        if (ring.capacity() < MIN_CAPACITY)
        {
            throw new IllegalArgumentException("an FCP request ring needs " + MIN_CAPACITY + " bytes: " +
                ring.capacity());
        }
    }

    /**
     * Producer: whether another request may be written (fewer than {@link #IN_FLIGHT} wait). The two positions are
     * read once each: the producer's own and one acquire of the consumer's; an older consumer position only asks
     * for fewer.
     *
     * @return whether {@link #offer} may be called.
     */
    public boolean hasRoom()
    {
        return ring.producerPosition() - ring.consumerPosition() < IN_FLIGHT * PortConfig.RING_RECORD_LENGTH;
    }

    /**
     * Producer: a request; call after {@link #hasRoom()} said yes (the ring is sized far above the requests in
     * flight, so it never refuses one then).
     *
     * @param request the FCP's first four bytes with FCTBS 0.
     */
    public void offer(final int request)
    {
        final int index = ring.tryClaim(REQUEST, Integer.BYTES);
        if (index < 0)
        {
            throw new IllegalStateException("FCP request ring full: " + ring.size() + " bytes used");
        }
        ring.buffer().putInt(index, request);
        ring.commit(index);
    }

    /**
     * Consumer: whether a request waits, from the consumer's own position and one acquire of the producer's (no loop
     * over both, as {@code size()} has). A hint: the producer moves its position when it claims a record and commits
     * the record after, so a request seen here may not be committed yet ({@link #take()} then has none).
     *
     * @return whether {@link #take()} may have a request.
     */
    public boolean hasRequest()
    {
        return ring.producerPosition() != ring.consumerPosition();
    }

    /**
     * Consumer: the oldest committed request, removed.
     *
     * @return the FCP's first four bytes with FCTBS 0, or {@link #NONE} when none is committed yet.
     */
    public int take()
    {
        taken = NONE;
        ring.controlledRead(reader, 1);
        return taken;
    }

    private ControlledMessageHandler.Action onRequest(
        final int msgTypeId, final DirectBuffer buffer, final int index, final int length)
    {
        taken = buffer.getInt(index);
        return ControlledMessageHandler.Action.COMMIT;
    }
}
