package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.status.ReadableCounter;
import io.vlink.nic.test.Deadline;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * By reflection, so that a method added later cannot forget the check: after {@code close()} every public
 * method of {@link Engine}, {@link Port}, {@link QueuePair} and {@link CountersFile}, and every counter a
 * {@link PortCounters} hands out, throws {@link EngineClosedException} ("engine closed"), except the fixed settings
 * named here, which read no engine memory. Arguments are valid ones, so a refusal can only be the closed check.
 */
class EveryMethodAfterCloseTest
{
    private static final Set<String> ENGINE_FIXED = Set.of(
        "name", "configuration", "threading", "threads", "countersSnapshot", "captureFailure", "isClosed", "close");
    private static final Set<String> PORT_FIXED = Set.of(
        "id", "engine", "qos", "currentQos", "dataVls", "mtu", "maxPacketSize", "localLid", "remoteLid", "closeReport",
        "injection");
    private static final Set<String> QUEUE_PAIR_FIXED = Set.of(
        "qpn", "sl", "remoteQpn", "port", "inlineCapacity", "capacity");
    private static final Set<String> COUNTERS_FILE_FIXED = Set.of("file", "name", "isClosed", "close");
    private static final Set<String> PORT_COUNTERS_FIXED = Set.of("port", "dataVls");

    @TempDir
    File dir;

    @Test
    void everyPublicMethodIsRefusedOrAFixedSetting() throws Exception
    {
        final Engine engine = Engine.builder().name("every").directory(dir).threading(ThreadingMode.INVOKER).build();
        final Port port = engine.port(0);
        Deadline.await(10, "active", () -> engine.port(1).linkState() == LinkState.ACTIVE, engine::invoke);
        final QueuePair qp = port.createQueuePair(1, 0, 2);
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[64]);
        final MemoryRegion region = engine.registerMemory(bytes);
        final PortCounters counters = port.counters();
        final CountersFile countersFile = engine.countersFile();
        engine.close();

        final List<String> checked = new ArrayList<>();
        checked.addAll(check(engine, Engine.class, ENGINE_FIXED, bytes, region));
        checked.addAll(check(port, Port.class, PORT_FIXED, bytes, region));
        checked.addAll(check(qp, QueuePair.class, QUEUE_PAIR_FIXED, bytes, region));
        checked.addAll(check(countersFile, CountersFile.class, COUNTERS_FILE_FIXED, bytes, region));
        for (final Method method : PortCounters.class.getMethods())
        {
            if (method.getDeclaringClass() == PortCounters.class && !Modifier.isStatic(method.getModifiers()) &&
                !PORT_COUNTERS_FIXED.contains(method.getName()))
            {
                // read only: every counter a user reaches can be read, never written
                assertEquals(ReadableCounter.class, method.getReturnType(), method.getName());
                final ReadableCounter counter = (ReadableCounter)(0 == method.getParameterCount() ?
                    method.invoke(counters) : method.invoke(counters, 0));
                refused("PortCounters." + method.getName() + ".get", counter::get);
                checked.add("PortCounters." + method.getName());
            }
        }
        assertEquals(0, PortCounters.class.getFields().length - 2, "no public field but the two VL constants");
        assertTrue(checked.size() > 50, "checked " + checked);
        assertTrue(checked.containsAll(List.of("Port.poll", "Port.createQueuePair", "QueuePair.offer",
            "QueuePair.completed", "Engine.invoke", "Engine.registerMemory", "PortCounters.txPackets")), checked.toString());
    }

    private static List<String> check(
        final Object target,
        final Class<?> type,
        final Set<String> fixed,
        final UnsafeBuffer bytes,
        final MemoryRegion region) throws Exception
    {
        final List<String> checked = new ArrayList<>();
        for (final Method method : type.getMethods())
        {
            if (method.getDeclaringClass() != type || Modifier.isStatic(method.getModifiers()))
            {
                continue;
            }
            final String name = type.getSimpleName() + "." + method.getName();
            final Object[] args = arguments(method, bytes, region);
            if (fixed.contains(method.getName()))
            {
                method.invoke(target, args);                 // readable after close, never throws
                continue;
            }
            refused(name, () -> method.invoke(target, args));
            checked.add(name);
        }
        return checked;
    }

    private static Object[] arguments(final Method method, final UnsafeBuffer bytes, final MemoryRegion region)
    {
        final Class<?>[] types = method.getParameterTypes();
        final Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++)
        {
            final Class<?> t = types[i];
            if (t == int.class)
            {
                args[i] = i == types.length - 1 && types.length > 1 ? 16 : 0;   // a length or a limit last
            }
            else if (t == long.class)
            {
                args[i] = 0L;
            }
            else if (t == boolean.class)
            {
                args[i] = false;
            }
            else if (t == DirectBuffer.class)
            {
                args[i] = bytes;
            }
            else if (t == MemoryRegion.class)
            {
                args[i] = region;
            }
            else if (t == PacketHandler.class)
            {
                args[i] = (PacketHandler)packet -> fail("nothing is delivered after close");
            }
            else if (t == CounterType.class)
            {
                args[i] = CounterType.ERRORS;
            }
            else if (t == QosConfig.class)
            {
                args[i] = QosConfig.opensmDefaults(8);
            }
            else if (t == Duration.class)
            {
                args[i] = Duration.ZERO;
            }
            else
            {
                fail("no argument for " + method + ": add one here");
            }
        }
        return args;
    }

    interface Call
    {
        Object call() throws Exception;
    }

    private static void refused(final String name, final Call call)
    {
        try
        {
            call.call();
            fail(name + " did not throw after close");
        }
        catch (final InvocationTargetException ex)
        {
            assertRefusal(name, ex.getCause());
        }
        catch (final Exception | Error ex)
        {
            if (ex instanceof AssertionError)
            {
                throw (AssertionError)ex;
            }
            assertRefusal(name, ex);
        }
    }

    private static void assertRefusal(final String name, final Throwable thrown)
    {
        assertTrue(thrown instanceof EngineClosedException, name + " threw " + thrown);
        assertEquals("engine closed", thrown.getMessage(), name);
    }
}
