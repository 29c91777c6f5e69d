package example;

import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.PacketHeader;
import io.vlink.nic.Engine;
import io.vlink.nic.PacketHandler;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.agent.ThreadingMode;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;

/**
 * vlink as a library, from a project of its own: an engine whose two ports face each other on the in-process loopback
 * link, driven by this thread ({@link ThreadingMode#INVOKER}: {@code engine.invoke()} runs one duty cycle of every
 * agent), one queue pair on port 0 sending numbered messages to port 1, which polls them with a {@link PacketHandler}.
 * <p>
 * It checks what a transport would: every message arrives once, in order, with its payload intact, and the ports'
 * counters (the read-only view {@code port.counters()}) agree. Exit status 0 when they do, 1 (with the reason on
 * stderr) when not, or when it is not done after {@value #DEADLINE_S} s.
 * <p>
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp ... example.Main [MESSAGES]}
 */
public final class Main
{
    private static final int SIZE = 200;   // inline: at most qp.inlineCapacity() (224) bytes
    private static final int SL = 3;
    private static final int QPN = 7;
    private static final int REMOTE_QPN = 9;
    private static final long DEADLINE_S = 30;

    private final int messages;
    private final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
    private long received;
    private int vl = -1;
    private String failure;
    /** Port 1's handler: the packet is read in place, during the call. */
    private final PacketHandler handler = this::onPacket;

    private Main(final int messages)
    {
        this.messages = messages;
    }

    public static void main(final String[] args)
    {
        final int messages = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final String failure = new Main(messages).run();
        if (null != failure)
        {
            System.err.println("example: FAILED: " + failure);
            System.exit(1);
        }
    }

    private String run()
    {
        try (Engine engine = Engine.builder().name("library-example").threading(ThreadingMode.INVOKER).loopback().build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            while (a.linkState() != LinkState.ACTIVE || b.linkState() != LinkState.ACTIVE)  // brought up by FCPs
            {
                engine.invoke();
                if (late())
                {
                    return "the link did not become active in " + DEADLINE_S + " s: " + b.linkState();
                }
            }

            final QueuePair qp = a.createQueuePair(QPN, SL, REMOTE_QPN);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[SIZE]);
            long sent = 0;
            while (received < messages && null == failure)
            {
                if (sent < messages)
                {
                    fill(message, sent);
                    if (qp.offer(message, 0, SIZE) != QueuePair.BACK_PRESSURED)   // back-pressure: try again later
                    {
                        sent++;
                    }
                }
                engine.invoke();
                b.poll(handler, 16);
                if (late())
                {
                    return "after " + DEADLINE_S + " s: " + sent + " sent, " + received + " of " + messages + " received";
                }
            }
            if (null != failure)
            {
                return failure;
            }

            final long txPackets = a.counters().txPackets(vl).get();
            final long rxPackets = b.counters().rxPackets(vl).get();
            if (txPackets != messages || rxPackets != messages || qp.flushed() != 0)
            {
                return "counters disagree: port 0 tx_packets=" + txPackets + ", port 1 rx_packets=" + rxPackets +
                    ", flushed=" + qp.flushed() + ", expected " + messages + " packets";
            }
            System.out.println("example: " + messages + " messages of " + SIZE + " bytes from QP " + QPN + " to QP " +
                REMOTE_QPN + " on SL " + SL + " (VL " + vl + "), every one in order; port 0 tx_packets=" + txPackets +
                ", port 1 rx_packets=" + rxPackets + ": OK");
            return null;
        }
    }

    private void onPacket(final PacketHeader packet)
    {
        if (null != failure)
        {
            return;
        }
        if (-1 == vl)
        {
            vl = packet.vl();
        }
        if (packet.destQp() != REMOTE_QPN || packet.sl() != SL || packet.vl() != vl ||
            packet.payloadLength() != SIZE)
        {
            failure = "message " + received + " arrived as " + packet;
            return;
        }
        final long number = packet.buffer().getLong(packet.payloadOffset());
        if (number != received)
        {
            failure = "message " + number + " arrived where message " + received + " was due";
            return;
        }
        for (int i = Long.BYTES; i < SIZE; i++)
        {
            if (packet.buffer().getByte(packet.payloadOffset() + i) != pattern(number, i))
            {
                failure = "message " + number + " has a wrong byte at " + i;
                return;
            }
        }
        received++;
    }

    /** Message {@code number}: its number, then bytes that depend on it and on their place. */
    private static void fill(final UnsafeBuffer message, final long number)
    {
        message.putLong(0, number);
        for (int i = Long.BYTES; i < SIZE; i++)
        {
            message.putByte(i, pattern(number, i));
        }
    }

    private static byte pattern(final long number, final int index)
    {
        return (byte)(number * 31 + index);
    }

    private boolean late()
    {
        return System.nanoTime() - deadlineNs > 0;
    }
}
