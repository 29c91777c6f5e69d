package io.vlink.nic;

import io.vlink.core.config.ConfigException;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.PortType;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * An engine built from an {@code opensm.conf} as it is; a refused file is reported with {@code file:line:column}
 * and no engine starts; ready packets posted on an SL go out on the VL SL2VL gives, with the engine's CRCs.
 */
class ConfigurationTest
{
    @TempDir
    File dir;

    @Test
    void anEngineFromARealOpensmConfCarriesReadyPacketsOnTheMappedVls() throws Exception
    {
        final Path conf = Path.of(getClass().getResource("/opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf").toURI());
        try (Engine engine = Engine.builder().name("conf").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(conf, PortType.CA).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            assertEquals(15, a.dataVls(), "max_vls 15 and OpenSM's max_op_vls 5: 15 data VLs");
            assertEquals(6, a.qos().highLimit());
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);

            // a ready packet: LRH (VL and SL left 0: the engine sets them), BTH, 8 bytes of payload
            final UnsafeBuffer packet = new UnsafeBuffer(new byte[28]);
            new LrhFlyweight().wrap(packet, 0).lnh(LrhFlyweight.LNH_LOCAL).dlid(2).slid(1);
            new BthFlyweight().wrap(packet, 8).opcode(0x04).pKey(0xFFFF).destQp(77).psn(5);
            packet.putLong(20, 0x1122334455667788L);
            assertTrue(a.postPacket(3, packet, 0, 28) >= 0);
            assertTrue(a.postPacket(15, packet, 0, 28) >= 0, "SL15 maps to VL7 in this file");

            final List<String> got = new ArrayList<>();
            Deadline.await(10, "both delivered", () ->
            {
                b.poll(in -> got.add(in.vl() + " sl=" + in.sl() + " pktlen=" +
                    LrhFlyweight.pktLen(in.buffer(), in.packetOffset()) + " qp=" + in.destQp() + " payload=" +
                    Long.toHexString(in.buffer().getLong(in.payloadOffset())) + " length=" + in.packetLength()), 16);
                return got.size() == 2;
            }, engine::invoke);
            got.sort(null);
            assertEquals(List.of(
                "3 sl=3 pktlen=8 qp=77 payload=1122334455667788 length=32",
                "7 sl=15 pktlen=8 qp=77 payload=1122334455667788 length=32"), got);
            assertEquals(0, b.counters().discards(io.vlink.core.credit.DiscardReason.DATA_BAD_CRC.id()).get(),
                "the engine's ICRC and VCRC were good");
            EngineErrors.assertNone(engine.countersFile());
        }
    }

    @Test
    void aRefusedOpensmConfStartsNothingAndSaysWhereAndWhy() throws Exception
    {
        final Path conf = dir.toPath().resolve("opensm.conf");
        Files.writeString(conf, "qos TRUE\nmax_op_vls 4\nqos_ca_vlarb_low 0:0,1:300\n");
        final ConfigException refused = assertThrows(ConfigException.class,
            () -> Engine.builder().name("refused").directory(dir).qos(conf, PortType.CA));
        final String message = refused.diagnostics().stream().filter(d -> d.isError()).findFirst().orElseThrow()
            .toString();
        assertTrue(message.startsWith(conf + ":3:24: error: qos_ca_vlarb_low: weight 300"), message);
        assertEquals(0, dir.listFiles((d, name) -> name.endsWith(".counters")).length);
    }
}
