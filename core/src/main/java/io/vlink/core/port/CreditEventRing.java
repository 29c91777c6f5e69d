package io.vlink.core.port;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The hand-off from a port's receive half to its credit half, in wire order: each FCP word received, the blocks
 * stored on each data VL, the peer's close. One ring keeps them in wire order, which {@code ABR := FCTBS} relies on.
 * <p>
 * An Agrona {@link OneToOneRingBuffer}: one producer thread ({@link PortReceive}) and one consumer thread
 * ({@link PortCredit}); the engine puts them on its receive and credit agents' threads; a port on one thread
 * ({@link DirectPort}, {@link DirectPort.Events#QUEUED}) may use it as a queue between the two halves of its duty
 * cycle, to run on the engine's timing. Each event is one 16-byte record (an 8-byte header and a 4-byte value).
 */
public final class CreditEventRing implements CreditEvents
{
    /** An FCP word follows. */
    static final int FCP = 1;
    /** Data packets were stored: {@code vl << 16 | blocks} follows, summed since the VL's previous event. */
    static final int ACCEPT = 2;
    /** The peer closed its end of the link (value 0). */
    static final int PEER_CLOSED = 3;
    /** The most blocks one ACCEPT event carries. */
    public static final int MAX_BLOCKS = 0xFFFF;
    /** Every event's value. */
    private static final int LENGTH = Integer.BYTES;

    private final OneToOneRingBuffer ring;
    private final MessageHandler reader = this::onEvent;
    private CreditEvents sink;

    /**
     * @param buffer the ring's memory: a power of two plus {@link #TRAILER_LENGTH}, aligned to 8.
     */
    public CreditEventRing(final AtomicBuffer buffer)
    {
        ring = new OneToOneRingBuffer(buffer);
    }

    /** The bytes the ring keeps after its data. */
    public static final int TRAILER_LENGTH = RingBufferDescriptor.TRAILER_LENGTH;

    /**
     * Producer: how many events may be written now; a receive half takes no more frames than this, as each frame
     * makes at most one event.
     *
     * @return events the ring has room for (its records less one: Agrona's ring asks for room beyond the record it
     *         writes).
     */
    @Override
    public int room()
    {
        final long used = ring.producerPosition() - ring.consumerPosition();
        return (int)((ring.capacity() - used) / PortConfig.RING_RECORD_LENGTH) - 1;
    }

    /**
     * Producer: an FCP word.
     *
     * @param word the FCP's first four bytes.
     */
    @Override
    public void onFcp(final int word)
    {
        write(FCP, word);
    }

    /**
     * Producer: blocks stored on a data VL.
     *
     * @param vl     the data VL.
     * @param blocks at most {@link #MAX_BLOCKS}.
     */
    @Override
    public void onAccepted(final int vl, final int blocks)
    {
        write(ACCEPT, (vl << 16) | blocks);
    }

    /**
     * Producer: the peer closed its end.
     */
    @Override
    public void onPeerClosed()
    {
        write(PEER_CLOSED, 0);
    }

    private void write(final int type, final int value)
    {
        final int index = ring.tryClaim(type, LENGTH);
        if (index < 0)
        {
            // the producer takes no more frames than room(): losing an event would corrupt the credits
            throw new IllegalStateException("credit event ring full: " + ring.size() + " bytes used");
        }
        ring.buffer().putInt(index, value);
        ring.commit(index);
    }

    /**
     * Consumer: hand up to {@code limit} events to the credit half, oldest first.
     *
     * @param sink  what each event is handed to (the credit half's).
     * @param limit the most events.
     * @return events read.
     */
    public int read(final CreditEvents sink, final int limit)
    {
        this.sink = sink;
        return ring.read(reader, limit);
    }

    private void onEvent(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int value = buffer.getInt(index);
        if (FCP == msgTypeId)
        {
            sink.onFcp(value);
        }
        else if (ACCEPT == msgTypeId)
        {
            sink.onAccepted(value >>> 16, value & MAX_BLOCKS);
        }
        else
        {
            sink.onPeerClosed();
        }
    }

    /**
     * @return whether no event waits (either thread; a hint).
     */
    public boolean isEmpty()
    {
        return ring.producerPosition() == ring.consumerPosition();
    }
}
