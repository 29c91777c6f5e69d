package io.vlink.nic.example;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.agent.ThreadingMode;
import org.agrona.concurrent.UnsafeBuffer;

public final class ReadmeExample
{
    public static void main(final String[] args)
    {
        try (Engine engine = Engine.builder().name("example").threading(ThreadingMode.SHARED).idle("backoff").build())
        {
            final Port a = engine.port(0);                       // two ports, back to back (loopback peer)
            final Port b = engine.port(1);
            while (b.linkState() != LinkState.ACTIVE)            // Initialize -> Armed -> Active, by FCPs
            {
                Thread.onSpinWait();
            }
            final QueuePair qp = a.createQueuePair(7, 3, 9);     // QPN 7 on SL 3, sending to QPN 9
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            message.putStringWithoutLengthAscii(0, "hello, vlink");
            while (qp.offer(message, 0, 64) == QueuePair.BACK_PRESSURED)  // back-pressure: a return value
            {
                Thread.onSpinWait();
            }
            while (b.poll(packet ->                             // the packet: its headers, read in place, and payload
                System.out.println("VL" + packet.vl() + " QP " + packet.destQp() + " PSN " + packet.psn() + ": " +
                    packet.payloadLength() + " bytes: " +
                    packet.buffer().getStringWithoutLengthAscii(packet.payloadOffset(), 12)), 16) == 0)
            {
                Thread.onSpinWait();
            }
            System.out.println("sent on VL3: " + a.counters().txPackets(3).get() + " packet(s)");
        }
    }
}
