package io.vlink.nic;

/**
 * What a port still held when its engine closed (issue 7: closing while traffic flows delivers or reports every
 * accepted packet). Taken after every agent stopped and before any memory is freed, so nothing moves while it is
 * counted. For ready packets ({@link Port#postPacket}) and SMPs a message is one packet, and
 * {@code accepted = delivered by the peer + sender's notSent + peer's onWire + peer's notDelivered}.
 */
public final class CloseReport
{
    private final long notInjected;
    private final long notSent;
    private final long onWire;
    private final long notDelivered;

    CloseReport(final long notInjected, final long notSent, final long onWire, final long notDelivered)
    {
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

    @Override
    public String toString()
    {
        return "not injected " + notInjected + " message(s), not sent " + notSent + ", on the wire " + onWire +
            ", received but not delivered " + notDelivered;
    }
}
