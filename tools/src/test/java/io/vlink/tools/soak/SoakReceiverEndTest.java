package io.vlink.tools.soak;

import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.Engine;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.PortCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The end of a two-process soak, port B's side ({@link SoakReceiver}) in this JVM and port A an engine the test runs:
 * the peer's last snapshot holds every fault its wire injected, so that the parent, which reads the ports' detections
 * after it, compares consistent counts. A peer that read DONE before the parent's disarm (a starved process does)
 * used to keep its wire armed past its last snapshot: once in CI, 51 FCPs corrupted against 53 detected.
 */
class SoakReceiverEndTest
{
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    File dir;

    @Test
    @Timeout(90)
    void thePeersLastSnapshotHoldsEveryFaultItsWireInjectsEvenWhenDoneCameBeforeTheDisarm() throws Exception
    {
        final SoakSettings options = new SoakSettings();
        options.shm = true;
        options.threading = ThreadingMode.INVOKER;
        options.faults = FaultSpec.parse("corrupt-fcp=0.5");
        options.seed = 7;
        options.directory = dir;
        final Path link = dir.toPath().resolve("end.shm");
        final PeerChannel channel = PeerChannel.create(new File(dir, "end.peer"));
        final AtomicReference<Engine> engineB = new AtomicReference<>();
        final AtomicInteger exit = new AtomicInteger(-1);
        final StringWriter err = new StringWriter();
        final Thread peer = new Thread(() -> exit.set(SoakReceiver.run(options, channel, () -> null,
            builder -> builder.shm(link, ShmLink.Role.B), engineB::set, () -> false, new PrintWriter(err, true))));
        peer.setDaemon(true);
        peer.start();
        try (Engine engineA = Engine.builder().name("end-a").threading(ThreadingMode.INVOKER).directory(dir)
            .qos(options.qos).shm(link, ShmLink.Role.A).build())
        {
            await(engineA, () -> 1 == channel.get(PeerChannel.READY) && null != engineB.get());
            final PortCounters portB = engineB.get().port(0).counters();
            final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
            final int corrupted = PeerChannel.scalar(PeerChannel.CORRUPTED_FCPS);

            channel.put(PeerChannel.ARMED, 1);
            await(engineA, () -> channel.read(snapshot) && snapshot[corrupted] >= 10);
            // the parent's disarm, unread: DONE while the wire is still armed
            channel.put(PeerChannel.DONE, 1);
            await(engineA, () -> 1 == channel.get(PeerChannel.FINISHED));
            assertTrue(channel.read(snapshot));
            final long injected = snapshot[corrupted];

            // the peer stays until the parent has read everything, its engine receiving port A's periodic FCPs
            final long received = portB.fcpReceived().get();
            await(engineA, () -> portB.fcpReceived().get() >= received + 200);
            assertEquals(injected, portB.discards(DiscardReason.FCP_BAD_LPCRC.id()).get(),
                "every FCP the peer's wire corrupted is in its last snapshot, and none after it");
        }
        finally
        {
            channel.put(PeerChannel.DONE, 2);
            peer.join(TimeUnit.SECONDS.toMillis(30));
            channel.close();
        }
        assertEquals(0, exit.get(), err.toString());
    }

    /** Run port A's engine on this thread until the condition holds. */
    private static void await(final Engine engineA, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "not within 30 s");
            if (0 == engineA.invoke())
            {
                Thread.yield();
            }
        }
    }
}
