package io.vlink.nic.api;

import io.vlink.core.wire.PacketHeader;
import io.vlink.nic.Port;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Code written for an earlier form of the receive callback fails to compile against this version, instead of
 * compiling with its parameters bound to other things (CHANGELOG.md, 0.2.0). Each snippet is compiled with javac
 * against this build's classes and, where it matters, against the 0.1.0 jars in {@code api/}.
 */
class PacketHandlerShapeTest
{
    /**
     * The form before 0.1.0, {@code (vl, buffer, offset, length)}, in a lambda whose body would compile with any
     * types: against 0.1.0's {@code (buffer, offset, length, header)} it compiled and printed a buffer for the VL and
     * a header for the length.
     */
    private static final String PRE_0_1_LAMBDA = """
        package example;

        import io.vlink.nic.Port;

        public final class OldLogger
        {
            public static int poll(final Port port)
            {
                return port.poll((vl, buffer, offset, length) ->
                    System.out.println("VL" + vl + ": " + length + " bytes at " + offset), 16);
            }
        }
        """;

    /** 0.1.0's form, in a lambda. */
    private static final String V0_1_LAMBDA = """
        package example;

        import io.vlink.nic.Port;

        public final class Counter
        {
            public static long bytes;

            public static int poll(final Port port)
            {
                return port.poll((buffer, offset, length, header) -> bytes += length, 16);
            }
        }
        """;

    /** 0.1.0's form, as a class that implements the interface by name. */
    private static final String V0_1_CLASS = """
        package example;

        import io.vlink.core.wire.PacketHeader;
        import io.vlink.nic.ReceiveHandler;
        import org.agrona.DirectBuffer;

        public final class Sink implements ReceiveHandler
        {
            public long bytes;

            @Override
            public void onPacket(final DirectBuffer buffer, final int offset, final int length, final PacketHeader h)
            {
                bytes += length;
            }
        }
        """;

    /** This version's form. */
    private static final String CURRENT = """
        package example;

        import io.vlink.nic.PacketHandler;
        import io.vlink.nic.Port;

        public final class Logger
        {
            public static long bytes;
            private static final PacketHandler COUNT = packet -> bytes += packet.payloadLength();

            public static int poll(final Port port)
            {
                return port.poll(packet -> System.out.println("VL" + packet.vl() + ": " + packet.payloadLength() +
                    " bytes at " + packet.payloadOffset() + " of " + packet.buffer().capacity()), 16) +
                    port.poll(COUNT, 16);
            }
        }
        """;

    @TempDir
    Path out;

    private static List<Path> thisVersion() throws Exception
    {
        return List.of(ApiFiles.origin(Port.class), ApiFiles.origin(PacketHeader.class),
            ApiFiles.origin(DirectBuffer.class));
    }

    private static List<Path> version010() throws Exception
    {
        return List.of(ApiFiles.API.resolve("vlink-nic-0.1.0.jar"), ApiFiles.API.resolve("vlink-core-0.1.0.jar"),
            ApiFiles.origin(DirectBuffer.class));
    }

    @Test
    void aLambdaOfTheFormBefore010CompiledAgainst010WithAnotherMeaningAndNoLongerCompiles() throws Exception
    {
        final ApiFiles.Compiled then = ApiFiles.compile("example.OldLogger", PRE_0_1_LAMBDA, version010(),
            out.resolve("then"));
        assertTrue(then.ok(), "against 0.1.0 the old lambda compiled (vl bound to the buffer, length to the header): " +
            then.errors());

        final ApiFiles.Compiled now = ApiFiles.compile("example.OldLogger", PRE_0_1_LAMBDA, thisVersion(),
            out.resolve("now"));
        assertFalse(now.ok(), "a four-parameter lambda must not compile against PacketHandler");
        assertTrue(now.errors().contains("incompatible parameter types in lambda expression"), now.errors());
    }

    @Test
    void aLambdaOf010sFormNoLongerCompiles() throws Exception
    {
        assertTrue(ApiFiles.compile("example.Counter", V0_1_LAMBDA, version010(), out.resolve("then")).ok());

        final ApiFiles.Compiled now = ApiFiles.compile("example.Counter", V0_1_LAMBDA, thisVersion(),
            out.resolve("now"));
        assertFalse(now.ok());
        assertTrue(now.errors().contains("incompatible parameter types in lambda expression"), now.errors());
    }

    @Test
    void aClassImplementingTheOldInterfaceNoLongerCompiles() throws Exception
    {
        assertTrue(ApiFiles.compile("example.Sink", V0_1_CLASS, version010(), out.resolve("then")).ok());

        final ApiFiles.Compiled now = ApiFiles.compile("example.Sink", V0_1_CLASS, thisVersion(), out.resolve("now"));
        assertFalse(now.ok());
        assertTrue(now.errors().contains("cannot find symbol") && now.errors().contains("ReceiveHandler"),
            now.errors());
    }

    @Test
    void theCurrentFormCompiles() throws Exception
    {
        final ApiFiles.Compiled now = ApiFiles.compile("example.Logger", CURRENT, thisVersion(), out.resolve("now"));
        assertTrue(now.ok(), now.errors());
    }
}
