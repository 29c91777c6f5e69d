package io.vlink.nic;

import io.vlink.core.credit.LineRate;
import io.vlink.core.fabric.MinHopRouting;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.fabric.TopologyReader;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.status.CreditRecovery;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A fabric on a manual clock, driven one duty cycle of every node per {@link #step()}: deterministic. Packets carry
 * (source LID, destination LID, SL, sequence) after the BTH; every delivery is checked for FIFO order per (source,
 * destination, SL).
 */
final class FabricHarness implements AutoCloseable
{
    /** Payload offset of the harness header: after LRH and BTH. */
    static final int HEADER = LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    /** One step of the manual clock. */
    static final long STEP_NS = 1_000;

    final CachedNanoClock clock = new CachedNanoClock();
    final Fabric fabric;
    final Topology topology;
    private final UnsafeBuffer packet = new UnsafeBuffer(new byte[Sizes.MAX_SIZE]);
    private final LrhFlyweight lrh = new LrhFlyweight();
    /** (src, dst, SL) -> the next sequence to send. */
    private final Map<Long, Long> nextSeq = new HashMap<>();
    /** (src, dst, SL) -> the next sequence expected. */
    private final Map<Long, Long> expectedSeq = new HashMap<>();
    final Map<Integer, Long> deliveredTo = new HashMap<>();
    final List<String> wrongOrder = new ArrayList<>();
    /** Endpoints whose application does not poll: their buffers fill and credits stop. */
    final java.util.Set<Fabric.Endpoint> paused = new java.util.HashSet<>();
    /** Per destination LID, per VL it arrived on: packets. */
    final Map<Integer, long[]> deliveredOnVl = new HashMap<>();
    long gaps;
    long sent;
    long delivered;
    long vl15Delivered;

    FabricHarness(final Topology topology, final Routes routes, final FabricConfiguration.Builder settings)
    {
        this.topology = topology;
        clock.update(1_000_000);
        settings.clocks(clock, SystemEpochClock.INSTANCE);
        this.fabric = settings.build(topology, routes);
    }

    FabricHarness(final Topology topology, final FabricConfiguration.Builder settings)
    {
        this(topology, MinHopRouting.route(topology), settings);
    }

    /**
     * @return the cable ends whose credits are not back ({@link CreditRecovery}), read with the switches paused.
     */
    List<String> unrecoveredCredits()
    {
        try (Fabric.Paused paused = fabric.pauseSwitches())
        {
            return CreditRecovery.unrecovered(fabric.topology(), fabric::counters,
                fabric.configuration().portSettings().vlBufferBlocks());
        }
    }

    static Topology topology(final String resource)
    {
        try (InputStream in = FabricHarness.class.getResourceAsStream("/topology/" + resource))
        {
            assertNotNull(in, resource);
            return parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static Topology parse(final String name, final String text)
    {
        return TopologyReader.parse(name, text, LineRate.EDR_4X).orThrow();
    }

    Fabric.Endpoint endpoint(final String id)
    {
        for (final Fabric.Endpoint endpoint : fabric.endpoints())
        {
            if (endpoint.node().id().equals(id))
            {
                return endpoint;
            }
        }
        throw new IllegalArgumentException(id);
    }

    Switch switchNamed(final String id)
    {
        return fabric.switchOf(topology.node(id));
    }

    void step()
    {
        clock.advance(STEP_NS);
        fabric.invoke();
        for (final Fabric.Endpoint endpoint : fabric.endpoints())
        {
            if (!paused.contains(endpoint))
            {
                endpoint.port().poll(this::onPacket, 256);
            }
        }
    }

    /**
     * Step until the condition holds, at most {@code steps} times.
     */
    void stepUntil(final int steps, final String what, final java.util.function.BooleanSupplier condition)
    {
        for (int i = 0; i < steps; i++)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            step();
        }
        if (!condition.getAsBoolean())
        {
            throw new AssertionError("not after " + steps + " steps: " + what);
        }
    }

    void bringUp()
    {
        stepUntil(10_000, "every link Active", fabric::isActive);
    }

    /**
     * @return whether the packet was posted (false: back-pressure).
     */
    boolean send(final Fabric.Endpoint from, final int dlid, final int sl, final int size)
    {
        final long key = key(from.lid(), dlid, sl);
        final long seq = nextSeq.getOrDefault(key, 0L);
        lrh.wrap(packet, 0).vl(0).sl(sl).lnh(LrhFlyweight.LNH_LOCAL).dlid(dlid).slid(from.lid());
        packet.putInt(LrhFlyweight.LENGTH, 0);
        packet.putInt(HEADER, from.lid());
        packet.putInt(HEADER + 4, dlid);
        packet.putInt(HEADER + 8, sl);
        packet.putLong(HEADER + 12, seq);
        final long result = from.port().postPacket(sl, packet, 0, size - Sizes.ICRC_LENGTH);
        if (result < 0)
        {
            return false;
        }
        nextSeq.put(key, seq + 1);
        sent++;
        return true;
    }

    boolean sendSmp(final Fabric.Endpoint from, final int dlid)
    {
        return sendSmp(from, dlid, 256);
    }

    boolean sendSmp(final Fabric.Endpoint from, final int dlid, final int length)
    {
        lrh.wrap(packet, 0).vl(LrhFlyweight.VL15).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(dlid).slid(from.lid());
        return from.port().postSmp(packet, 0, length) >= 0;
    }

    private void onPacket(final PacketHeader header)
    {
        final DirectBuffer buffer = header.buffer();
        // whole packets: the harness header counts from the LRH
        final int vl = header.vl();
        final int offset = header.packetOffset();
        if (LrhFlyweight.VL15 == vl)
        {
            vl15Delivered++;
            return;
        }
        final int src = buffer.getInt(offset + HEADER);
        final int dst = buffer.getInt(offset + HEADER + 4);
        final int sl = buffer.getInt(offset + HEADER + 8);
        final long seq = buffer.getLong(offset + HEADER + 12);
        assertEquals(dst, LrhFlyweight.dlid(buffer, offset), "DLID");
        final long key = key(src, dst, sl);
        final long expected = expectedSeq.getOrDefault(key, 0L);
        if (seq < expected)
        {
            wrongOrder.add(src + "->" + dst + " SL" + sl + ": " + seq + " expected " + expected);
        }
        else
        {
            gaps += seq - expected;
            expectedSeq.put(key, seq + 1);
        }
        deliveredOnVl.computeIfAbsent(dst, (d) -> new long[16])[vl]++;
        deliveredTo.merge(dst, 1L, Long::sum);
        delivered++;
    }

    private static long key(final int src, final int dst, final int sl)
    {
        return ((long)src << 32) | ((long)dst << 8) | sl;
    }

    long discards(final Switch sw, final io.vlink.core.credit.DiscardReason reason)
    {
        long total = 0;
        for (int p = 0; p <= sw.ports(); p++)
        {
            total += sw.counters(p).discards(reason.id()).get();
        }
        return total;
    }

    @Override
    public void close()
    {
        fabric.close();
    }
}
