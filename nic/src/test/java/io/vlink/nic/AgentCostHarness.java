package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.reflect.Field;
import java.util.Arrays;

/**
 * Not a test: a tool to see where a packet's time goes. It runs {@code PipelineBenchmark}'s workload (4 queue
 * pairs on SLs 1-4, OpenSM's default tables, 8 data VLs, loopback) in invoker mode on one thread, calling each
 * agent's {@code doWork} itself and timing it, and prints nanoseconds per packet for the application's offers, each
 * agent and the application's polls. A clock read per agent per duty cycle adds a few ns a packet in all.
 * <p>
 * Run (after {@code mvn -pl core,nic -am test-compile}), with the bench's flags:
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Dagrona.disable.bounds.checks=true
 * -cp nic/target/test-classes:nic/target/classes:core/target/classes:<dependencies> io.vlink.nic.AgentCostHarness
 * 64 [burst]}.
 */
public final class AgentCostHarness
{
    private static final String[] NAMES = {"offer", "receive", "credit", "inject", "arbiter", "poll"};
    private static long received;

    private AgentCostHarness()
    {
    }

    /**
     * @param args packet size (LRH through ICRC, at least 25), and optionally the burst.
     * @throws Exception if the engine's internals moved (reflection) or an agent failed.
     */
    public static void main(final String[] args) throws Exception
    {
        final int size = Integer.parseInt(args[0]);
        final EngineBuilder builder = Engine.builder().name("harness").threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8));
        if (args.length > 1)
        {
            builder.burst(Integer.parseInt(args[1]));
        }
        try (Engine engine = builder.build())
        {
            final Port sender = engine.port(0);
            final Port receiver = engine.port(1);
            while (receiver.linkState() != LinkState.ACTIVE || sender.linkState() != LinkState.ACTIVE)
            {
                engine.invoke();
            }
            final Agent[] agents = agents(engine);
            final QueuePair[] qps = new QueuePair[4];
            for (int i = 0; i < qps.length; i++)
            {
                qps[i] = sender.createQueuePair(1 + i, 1 + i, 1 + i);
            }
            final int payloadLength = size - 24;
            final UnsafeBuffer payload = OffHeap.allocate(payloadLength);
            try
            {
                run(engine, receiver, agents, qps, payload, payloadLength, size);
            }
            finally
            {
                OffHeap.free(payload);
            }
        }
    }

    private static void run(
        final Engine engine,
        final Port receiver,
        final Agent[] agents,
        final QueuePair[] qps,
        final UnsafeBuffer payload,
        final int payloadLength,
        final int size) throws Exception
    {
        final MemoryRegion region = engine.registerMemory(payload);
        final UnsafeBuffer inline = new UnsafeBuffer(new byte[payloadLength]);
        final boolean immediate = payloadLength <= qps[0].inlineCapacity();
        final PacketHandler handler = packet -> received++;
        final long[] ns = new long[agents.length + 2];
        final long packetsPerRound = size > 1024 ? 400_000 : 3_000_000;
        int next = 0;
        for (int round = 0; round < 8; round++)
        {
            Arrays.fill(ns, 0);
            final long start = received;
            final long began = System.nanoTime();
            long cycles = 0;
            while (received - start < packetsPerRound)
            {
                long before = System.nanoTime();
                while (true)
                {
                    final QueuePair qp = qps[next];
                    final long result = immediate ?
                        qp.offer(inline, 0, payloadLength) : qp.offer(region, 0, payloadLength);
                    if (QueuePair.BACK_PRESSURED == result)
                    {
                        break;
                    }
                    next = next + 1 == qps.length ? 0 : next + 1;
                }
                long after = System.nanoTime();
                ns[0] += after - before;
                for (int i = 0; i < agents.length; i++)
                {
                    before = after;
                    agents[i].doWork();
                    after = System.nanoTime();
                    ns[i + 1] += after - before;
                }
                receiver.poll(handler, 256);
                ns[agents.length + 1] += System.nanoTime() - after;
                cycles++;
            }
            final long packets = received - start;
            final long total = System.nanoTime() - began;
            final StringBuilder line = new StringBuilder(String.format("%.2f M/s %.1f ns/packet, %.1f packets/cycle |",
                packets * 1e3 / total, (double)total / packets, (double)packets / cycles));
            for (int i = 0; i < ns.length; i++)
            {
                line.append(String.format(" %s %.1f", NAMES[i], (double)ns[i] / packets));
            }
            System.out.println(line);
        }
    }

    private static Agent[] agents(final Engine engine) throws ReflectiveOperationException
    {
        final Object group = field(Engine.class, "agents").get(engine);
        final AgentInvoker invoker = (AgentInvoker)field(group.getClass(), "invoker").get(group);
        return (Agent[])field(CompositeAgent.class, "agents").get(invoker.agent());
    }

    private static Field field(final Class<?> type, final String name) throws NoSuchFieldException
    {
        final Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
