package io.vlink.core.wire;

import org.agrona.MutableDirectBuffer;

/**
 * Puts a message sent as RC SEND packets back together: Only on its own, or First, Middle..., Last. The payload of
 * each packet is copied into the caller's buffer in order; when the last one is in, the message is the first
 * {@link #messageLength()} bytes of it.
 * <p>
 * The rules it checks (what a sender that slices messages at the MTU produces, and what the engine's queue pairs
 * send): PSNs advance by one a packet, modulo 2^24; First and Middle carry exactly one MTU of payload, Last and
 * Only at most one MTU, Last at least one byte; a First or an Only never interrupts a message, a Middle or a Last
 * never comes without one. A packet that breaks one is refused with a negative result naming the rule; the message
 * in progress is dropped and the assembler waits for the next First or Only, whatever its PSN (a lost packet on a
 * link that does not retransmit shows up this way).
 * <p>
 * One assembler per sender: a destination queue pair receives one connection's packets (RC), in order, on one VL.
 * Packets of different queue pairs interleave at packet boundaries (SL arbitration hands out tenure by packets and
 * bytes), so a receiver keeps an assembler per destination QP and dispatches on {@link PacketHeader#destQp()}.
 * Single-threaded and allocation-free.
 */
public final class MessageAssembler
{
    /** The packet is in; the message goes on. */
    public static final int MORE = 0;
    /** The packet ended the message: its bytes are the first {@link #messageLength()} bytes of the buffer. */
    public static final int COMPLETE = 1;
    /** The packet is not an RC SEND (another opcode, or no BTH): ignored, the message in progress goes on. */
    public static final int NOT_SEND = -1;
    /** Its PSN is not the one after the previous packet's: the message in progress is dropped. */
    public static final int OUT_OF_SEQUENCE = -2;
    /** A Middle or Last without a First, or a First or Only before the message in progress ended: dropped. */
    public static final int UNEXPECTED_OPCODE = -3;
    /** A First or Middle not of one MTU, a Last or Only above it, or an empty Last: dropped. */
    public static final int BAD_LENGTH = -4;
    /** The message does not fit the buffer: dropped. */
    public static final int TOO_LONG = -5;

    private static final int NO_PSN = -1;

    private final MutableDirectBuffer buffer;
    private final int mtu;
    private int length;
    private int messageLength;
    private boolean inMessage;
    private int expectedPsn = NO_PSN;

    /**
     * @param buffer where messages are put together, from index 0; its capacity is the longest message.
     * @param mtu    the sender's MTU (payload bytes of a First or Middle packet).
     * @throws IllegalArgumentException when the MTU is not an InfiniBand MTU.
     */
    public MessageAssembler(final MutableDirectBuffer buffer, final int mtu)
    {
        this.buffer = buffer;
        this.mtu = Sizes.checkMtu("mtu", mtu);
    }

    /**
     * Take the next packet of this sender.
     *
     * @param header the packet, as a receive handler gets it.
     * @return {@link #MORE}, {@link #COMPLETE} or a negative result: {@link #NOT_SEND}, {@link #OUT_OF_SEQUENCE},
     * {@link #UNEXPECTED_OPCODE}, {@link #BAD_LENGTH}, {@link #TOO_LONG}.
     */
    public int onPacket(final PacketHeader header)
    {
        final int opcode = header.opcode();
        final boolean first;
        final boolean last;
        switch (opcode)
        {
            case BthFlyweight.RC_SEND_ONLY:
                first = true;
                last = true;
                break;
            case BthFlyweight.RC_SEND_FIRST:
                first = true;
                last = false;
                break;
            case BthFlyweight.RC_SEND_MIDDLE:
                first = false;
                last = false;
                break;
            case BthFlyweight.RC_SEND_LAST:
                first = false;
                last = true;
                break;
            default:
                return NOT_SEND;
        }
        final int psn = header.psn();
        if (first == inMessage)
        {
            return drop(UNEXPECTED_OPCODE);
        }
        if (!first && psn != expectedPsn)
        {
            return drop(OUT_OF_SEQUENCE);
        }
        final int bytes = header.payloadLength();
        if (last ? (bytes > mtu || (!first && 0 == bytes)) : bytes != mtu)
        {
            return drop(BAD_LENGTH);
        }
        final int at = first ? 0 : length;
        if ((long)at + bytes > buffer.capacity())
        {
            return drop(TOO_LONG);
        }
        buffer.putBytes(at, header.buffer(), header.payloadOffset(), bytes);
        expectedPsn = (psn + 1) & BthFlyweight.MASK_24;
        if (last)
        {
            inMessage = false;
            length = 0;
            messageLength = at + bytes;
            return COMPLETE;
        }
        inMessage = true;
        length = at + bytes;
        return MORE;
    }

    private int drop(final int result)
    {
        inMessage = false;
        length = 0;
        expectedPsn = NO_PSN;
        return result;
    }

    /**
     * @return the length of the message the last {@link #COMPLETE} ended.
     */
    public int messageLength()
    {
        return messageLength;
    }

    /**
     * @return true while a message has begun and not ended.
     */
    public boolean inMessage()
    {
        return inMessage;
    }

    /**
     * @return the PSN the next Middle or Last must carry, or -1 before the first packet and after a drop.
     */
    public int expectedPsn()
    {
        return expectedPsn;
    }

    /**
     * @param result of {@link #onPacket}.
     * @return its name, for logs.
     */
    public static String resultName(final int result)
    {
        switch (result)
        {
            case MORE:
                return "more";
            case COMPLETE:
                return "complete";
            case NOT_SEND:
                return "not an RC SEND";
            case OUT_OF_SEQUENCE:
                return "PSN out of sequence";
            case UNEXPECTED_OPCODE:
                return "unexpected opcode";
            case BAD_LENGTH:
                return "payload length breaks the MTU rule";
            case TOO_LONG:
                return "message longer than the buffer";
            default:
                return "result " + result;
        }
    }
}
