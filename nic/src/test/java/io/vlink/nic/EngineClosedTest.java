package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersSnapshot;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.status.ReadableCounter;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Nothing an application can call after {@code close()} touches the engine's freed memory. Every call on
 * the engine, a port, a queue pair or a counter throws {@link EngineClosedException} ("engine closed"), where it used
 * to crash the JVM (a counter read of the unmapped counters file) or throw an IndexOutOfBoundsException; the final
 * counter values stay readable from the engine's snapshot.
 */
class EngineClosedTest
{
    @TempDir
    File dir;

    @Test
    void everyCallAfterCloseIsRefusedAndTheFinalCountersStayReadable()
    {
        final Engine engine = Engine.builder().name("closed").directory(dir).threading(ThreadingMode.INVOKER).build();
        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
        final QueuePair qp = a.createQueuePair(7, 3, 9);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final UnsafeBuffer memory = OffHeap.allocate(64);
        final MemoryRegion region = engine.registerMemory(memory);
        assertEquals(0, qp.offer(message, 0, 64));
        final int[] received = {0};
        Deadline.await(10, "delivered", () ->
        {
            received[0] += b.poll(packet -> { }, 16);
            return 1 == received[0];
        }, engine::invoke);
        final PortCounters counters = a.counters();
        final ReadableCounter txPackets = counters.txPackets(3);
        final CountersFile countersFile = engine.countersFile();
        assertEquals(1, txPackets.get());
        final CountersSnapshot live = engine.countersSnapshot();
        assertEquals(1, live.vl(0, CounterType.TX_PACKETS, 3), "a snapshot while running reads the live values");
        assertNull(a.closeReport());

        engine.close();
        engine.close();
        OffHeap.free(memory);

        // the engine
        refused(() -> engine.port(0));
        refused(engine::ports);
        refused(engine::invoke);
        refused(() -> engine.registerMemory(message));
        refused(engine::countersFile);
        // a port
        refused(a::linkState);
        refused(a::up);
        refused(a::down);
        refused(() -> a.createQueuePair(8, 0, 8));
        refused(() -> a.postPacket(0, message, 0, 32));
        refused(() -> a.postSmp(message, 0, 32));
        refused(() -> b.poll(packet -> fail("nothing is delivered after close"), 16));
        refused(() -> b.pending(0));
        refused(a::counters);
        refused(a::link);
        refused(() -> a.replaceQos(QosConfig.opensmDefaults(8)));
        // a queue pair
        refused(() -> qp.offer(message, 0, 64));
        refused(() -> qp.offer(region, 0, 64));
        refused(qp::completed);
        // a counter, and the counters file, held from before
        refused(txPackets::get);
        refused(() -> counters.discards(DiscardReason.DATA_BAD_CRC.id()).get());
        refused(counters.linkState()::get);
        refused(countersFile::countersManager);
        refused(countersFile::errorLogBuffer);
        refused(countersFile::snapshot);

        // what stays: the fixed settings, the close reports and the final counters
        assertTrue(engine.isClosed());
        assertEquals("closed", engine.name());
        assertEquals(7, qp.qpn());
        assertEquals(0, a.id());
        assertNotNull(a.closeReport());
        final CountersSnapshot last = engine.countersSnapshot();
        assertSame(last, engine.countersSnapshot(), "the final values, taken once");
        assertEquals(1, last.vl(0, CounterType.TX_PACKETS, 3));
        assertEquals(1, last.vl(1, CounterType.DELIVERED_PACKETS, 3));
        assertEquals(0, last.discards(1, DiscardReason.DATA_BAD_CRC.id()));
        assertEquals(LinkState.ACTIVE.code(), last.port(1, CounterType.LINK_STATE));
        assertEquals(0, last.engine(CounterType.ERRORS));
        assertEquals(0, last.value(CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE));
        assertTrue(last.toString().contains("closed port 0 vl 3 tx_packets = 1"), last.toString());
        assertEquals("no counter tx_packets port 0 vl 9 in this engine: check the port, VL and reason against the " +
            "engine's ports and data VLs", assertThrows(IllegalArgumentException.class,
            () -> last.vl(0, CounterType.TX_PACKETS, 9)).getMessage());
    }

    private static void refused(final Executable call)
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class, call);
        assertEquals("engine closed", refused.getMessage());
        assertInstanceOf(EngineClosedException.class, refused);
    }
}
