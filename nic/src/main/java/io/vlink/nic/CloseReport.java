package io.vlink.nic;

/**
 * What a port still held when its engine closed, and what link errors flushed over its life: every accepted message
 * is delivered or reported. Taken after every agent stopped and before any memory is freed, so nothing moves while it
 * is counted. For ready packets ({@link Port#postPacket}) and SMPs a message is one packet, and
 * {@code accepted = delivered by the peer + sender's flushed + sender's notInjected + sender's notSent + peer's onWire
 * + peer's notDelivered}, plus what a wire lost or a peer discarded on its way down at a link error (docs/engine.md,
 * "Closing").
 */
public final class CloseReport
{
    private final long notInjected;
    private final long notSent;
    private final long onWire;
    private final long notDelivered;
    private final long flushed;

    CloseReport(
        final long notInjected, final long notSent, final long onWire, final long notDelivered, final long flushed)
    {
        this.flushed = flushed;
        this.notInjected = notInjected;
        this.notSent = notSent;
        this.onWire = onWire;
        this.notDelivered = notDelivered;
    }

    /**
     * @return messages accepted by this port's queue pairs (and ready packets, SMPs) not yet completely in its cell
     * buffer.
     */
    public long notInjected()
    {
        return notInjected;
    }

    /**
     * @return packets in this port's cell buffer waiting for the arbiter (data VLs and VL15).
     */
    public long notSent()
    {
        return notSent;
    }

    /**
     * @return data packets and SMPs the peer sent that were on the wire to this port, never received.
     */
    public long onWire()
    {
        return onWire;
    }

    /**
     * @return packets this port received and stored that the application never polled.
     */
    public long notDelivered()
    {
        return notDelivered;
    }

    /**
     * @return messages of this port (its queue pairs, ready packets and SMPs) that link errors flushed while the
     * engine ran: its {@code tx_flushed_messages} over every VL, of which its queue pairs' {@link QueuePair#flushed()}.
     */
    public long flushed()
    {
        return flushed;
    }

    @Override
    public String toString()
    {
        return "not injected " + notInjected + " message(s), not sent " + notSent + ", on the wire " + onWire +
            ", received but not delivered " + notDelivered + ", flushed by link errors " + flushed + " message(s)";
    }
}
