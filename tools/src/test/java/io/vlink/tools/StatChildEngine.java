package io.vlink.tools;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.agent.ThreadingMode;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * The engine {@link StatTwoJvmTest} watches from another process: it sends 100 packets on VL2 through the
 * loopback peer, prints {@code READY}, and runs until its standard input closes (or 60 s pass), then closes.
 */
public final class StatChildEngine
{
    private StatChildEngine()
    {
    }

    /**
     * @param args the counters directory.
     * @throws Exception if the parent's pipe fails.
     */
    public static void main(final String[] args) throws Exception
    {
        try (Engine engine = Engine.builder().name("stat-child").directory(new File(args[0]))
            .threading(ThreadingMode.SHARED).idle("backoff").build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (b.linkState() != LinkState.ACTIVE && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            final QueuePair qp = a.createQueuePair(1, 2, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            int sent = 0;
            int received = 0;
            while (received < 100 && System.nanoTime() < deadline)
            {
                if (sent < 100 && qp.offer(message, 0, 100) >= 0)
                {
                    sent++;
                }
                received += b.poll(packet -> { }, 16);
            }
            System.out.println(received == 100 ? "READY" : "FAILED");
            System.out.flush();
            // until the parent closes our input (blocking here is the point: the engine runs on its own thread)
            while (System.in.read() >= 0 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
        }
    }
}
