package io.vlink.tools;

import io.vlink.core.capture.PcapWriter;
import io.vlink.core.wire.Fcp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecodeCommandTest
{
    private static final long EPOCH_NANOS = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    private static byte[] realCapture() throws IOException
    {
        try (InputStream in = DecodeCommandTest.class.getResourceAsStream("/captures/infiniband.pcap"))
        {
            return in.readAllBytes();
        }
    }

    private Path write(final String name, final byte[] bytes) throws IOException
    {
        return Files.write(dir.resolve(name), bytes);
    }

    private static String[] lines(final Cli cli)
    {
        return cli.out.isEmpty() ? new String[0] : cli.out.split("\r?\n");
    }

    @Test
    void textLinesOfTheRealCapture() throws IOException
    {
        final Cli cli = Cli.run("decode", write("ib.pcap", realCapture()).toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("", cli.err);
        final String[] lines = lines(cli);
        assertEquals(43, lines.length, cli::toString);
        assertEquals("11 data if0 vl=0 lver=0 sl=0 lnh=2 dlid=4 pktlen=7 slid=1 length=30 icrc=ok vcrc=ok " +
            "bth_opcode=0x11 dest_qp=8848392 psn=13896277", lines[10]);
        assertEquals("1 data if1 vl=15 lver=0 sl=0 lnh=2 dlid=65535 pktlen=72 slid=65535 length=290 icrc=ok vcrc=ok " +
            "bth_opcode=0x64 dest_qp=0 psn=489", lines[0]);
        for (final String line : lines)
        {
            assertTrue(line.contains(" icrc=ok vcrc=ok "), line);
        }
    }

    @Test
    void jsonLinesOfTheRealCapture() throws IOException
    {
        final Cli cli = Cli.run("decode", "--json", write("ib.pcap", realCapture()).toString());
        assertEquals(0, cli.exitCode, cli::toString);
        final String[] lines = lines(cli);
        assertEquals(43, lines.length);
        assertEquals("{\"index\":11,\"kind\":\"data\",\"iface\":0,\"time\":\"2008-05-14T19:48:08.680434100Z\"," +
            "\"vl\":0,\"lver\":0,\"sl\":0,\"lnh\":2,\"dlid\":4,\"pktlen\":7,\"slid\":1,\"length\":30," +
            "\"icrc\":\"ok\",\"vcrc\":\"ok\",\"bth_opcode\":17,\"dest_qp\":8848392,\"psn\":13896277}", lines[10]);
        // frame 3: a global packet, its BTH after the GRH
        assertTrue(lines[2].contains("\"lnh\":3,\"dlid\":49152,\"pktlen\":43,\"slid\":5,\"length\":174," +
            "\"icrc\":\"ok\",\"vcrc\":\"ok\",\"bth_opcode\":100,\"dest_qp\":16777215,\"psn\":911096}"), lines[2]);
        for (int i = 0; i < lines.length; i++)
        {
            assertTrue(lines[i].startsWith("{\"index\":" + (i + 1) + ",\"kind\":\"data\","), lines[i]);
            assertTrue(lines[i].endsWith("}"), lines[i]);
        }
    }

    @Test
    void flippedBitIsABadCrcAndExitOne() throws IOException
    {
        final byte[] file = realCapture();
        final int frame11 = packetOffset(file, 11);
        file[frame11 + 20] ^= 0x04; // in the BTH's PSN: both CRCs break
        file[packetOffset(file, 15) + 29] ^= 0x01; // frame 15's VCRC: only the VCRC breaks
        final Cli cli = Cli.run("decode", "--json", write("flip.pcap", file).toString());
        assertEquals(1, cli.exitCode, cli::toString);
        final String[] lines = lines(cli);
        assertEquals(43, lines.length, "every packet still printed");
        assertTrue(lines[10].contains("\"icrc\":\"bad\",\"vcrc\":\"bad\""), lines[10]);
        assertTrue(lines[14].contains("\"icrc\":\"ok\",\"vcrc\":\"bad\""), lines[14]);
        assertTrue(!lines[10].contains("error"), "a bad CRC is not a malformed packet");
        assertTrue(cli.err.contains("2 of 43 records have a bad CRC or are malformed"), cli.err);
    }

    @Test
    void pktLenThatDisagreesWithTheLengthIsAnError() throws IOException
    {
        final byte[] file = realCapture();
        file[packetOffset(file, 11) + 5] = 8; // PktLen 8 on a 30-byte packet
        final Cli cli = Cli.run("decode", "--json", write("len.pcap", file).toString());
        assertEquals(1, cli.exitCode);
        assertTrue(lines(cli)[10].contains("\"pktlen\":8,\"slid\":1,\"length\":30,\"icrc\":\"none\",\"vcrc\":\"none\""),
            lines(cli)[10]);
        assertTrue(lines(cli)[10].endsWith(",\"error\":\"bad length: 30 bytes, PktLen 8 says 34\"}"), lines(cli)[10]);
    }

    @Test
    void recordOfAnotherErfTypeIsReportedAndDecodingGoesOn() throws IOException
    {
        final byte[] file = realCapture();
        file[24 + 16 + 8] = 2; // record 1: ERF type 2 (Ethernet)
        file[packetOffset(file, 3) + 8 + 20] ^= 0x01; // record 3 (global): a bit of the SGID
        final Cli cli = Cli.run("decode", "--json", write("types.pcap", file).toString());
        assertEquals(1, cli.exitCode);
        final String[] lines = lines(cli);
        assertEquals(43, lines.length);
        assertTrue(lines[0].startsWith("{\"index\":1,\"kind\":\"unknown\",") &&
            lines[0].endsWith("\"error\":\"ERF type 2 is neither InfiniBand data (21) nor link (25)\"}"), lines[0]);
        assertTrue(lines[2].contains("\"lnh\":3,") && lines[2].contains("\"icrc\":\"bad\",\"vcrc\":\"bad\""), lines[2]);
        assertTrue(lines[3].contains("\"icrc\":\"ok\",\"vcrc\":\"ok\""), lines[3]);
    }

    @Test
    void aHalfWrittenLastRecordEndsTheCaptureWithOneWarning() throws IOException
    {
        final byte[] whole = realCapture();
        final Path file = write("cut.pcap", Arrays.copyOf(whole, whole.length - 100));
        final Cli cli = Cli.run("decode", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(42, lines(cli).length);
        assertEquals(file + ": warning: truncated after 42 records at byte " + (whole.length - 166) + ": a record cut " +
            "short: its header says 150 bytes, the file holds 50 (a capture whose writer stopped without closing it); " +
            "the records before it are decoded" + System.lineSeparator(), cli.err);
    }

    @Test
    void aKilledWritersZeroFilledTailIsTheEndNotAMillionBadRecords() throws IOException
    {
        final byte[] whole = realCapture();
        // what a memory-mapped capture holds when its writer is killed: the records, then the mapped chunk's zeros
        final Path file = write("killed.pcap", Arrays.copyOf(whole, whole.length + 16 * 1024 * 1024));
        final Cli cli = Cli.run("decode", "--json", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(43, lines(cli).length);
        assertEquals(file + ": warning: truncated after 43 records at byte " + whole.length + ": a record header of " +
            "length 0, the unwritten part of a capture file (a capture whose writer stopped without closing it); the " +
            "records before it are decoded" + System.lineSeparator(), cli.err);

        // a record header cut short by the end of the file
        final Path partial = write("partial.pcap", Arrays.copyOf(whole, whole.length + 9));
        final Cli cut = Cli.run("decode", partial.toString());
        assertEquals(0, cut.exitCode, cut::toString);
        assertTrue(cut.err.startsWith(partial + ": warning: truncated after 43 records at byte " + whole.length +
            ": a record header cut short: 9 of its 16 bytes"), cut::toString);
    }

    @Test
    void aBadCompleteRecordBeforeTheTailStillFails() throws IOException
    {
        final byte[] file = Arrays.copyOf(realCapture(), realCapture().length + 4096);
        file[packetOffset(file, 5) + 12] ^= 0x40;
        final Cli cli = Cli.run("decode", write("bad.pcap", file).toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains("truncated after 43 records"), cli::toString);
        assertTrue(cli.err.contains("1 of 43 records have a bad CRC or are malformed"), cli::toString);
    }

    @Test
    void standardInputAndPipes() throws Exception
    {
        final byte[] whole = realCapture();
        final InputStream stdin = System.in;
        try
        {
            System.setIn(new java.io.ByteArrayInputStream(whole));
            final Cli cli = Cli.run("decode", "-");
            assertEquals(0, cli.exitCode, cli::toString);
            assertEquals(43, lines(cli).length);
            System.setIn(new java.io.ByteArrayInputStream("no capture".getBytes()));
            final Cli text = Cli.run("decode", "-");
            assertEquals(1, text.exitCode, text::toString);
            assertEquals("-: error: not a pcap capture: 10 bytes, fewer than the 24-byte pcap file header" +
                System.lineSeparator(), text.err);
        }
        finally
        {
            System.setIn(stdin);
        }

        // a named pipe, as <(cat x.pcap) gives
        final Path fifo = dir.resolve("fifo");
        final boolean made;
        try
        {
            made = new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0;
        }
        catch (final IOException ex)
        {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "no mkfifo on this system: " + ex.getMessage());
            return;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(made, "mkfifo failed");
        final Thread writer = new Thread(() ->
        {
            try
            {
                Files.write(fifo, whole);
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        });
        writer.start();
        final Cli cli = Cli.run("decode", fifo.toString());
        writer.join();
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(43, lines(cli).length);
    }

    @Test
    void devZeroIsRefusedAtOnce()
    {
        final Cli cli = Cli.run("decode", "/dev/zero");
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("/dev/zero: error: not a pcap capture: the file starts with 0x00000000, not the pcap magic " +
            "a1b2c3d4" + System.lineSeparator(), cli.err);
    }

    @Test
    void flowControlPacketsWithTheirVerdicts() throws IOException
    {
        final Path file = dir.resolve("fcp.pcap");
        final UnsafeBuffer fcp = new UnsafeBuffer(new byte[8]);
        try (PcapWriter writer = new PcapWriter(file))
        {
            Fcp.encode(fcp, 0, Fcp.word(0, 0x123, 3, 0x456));
            writer.writeFcp(EPOCH_NANOS, 0, false, fcp, 0, 8);
            fcp.putByte(4, (byte)(fcp.getByte(4) ^ 1));
            writer.writeFcp(EPOCH_NANOS, 1, true, fcp, 0, 8);
            Fcp.encode(fcp, 0, Fcp.word(5, 1, 2, 3));
            writer.writeFcp(EPOCH_NANOS, 0, false, fcp, 0, 8);
            writer.writeFcp(EPOCH_NANOS, 0, false, fcp, 0, 5);
        }
        final Cli json = Cli.run("decode", "--json", file.toString());
        assertEquals(1, json.exitCode, json::toString);
        final String[] lines = lines(json);
        assertEquals(4, lines.length);
        assertEquals("{\"index\":1,\"kind\":\"fcp\",\"iface\":0,\"time\":\"2023-11-14T22:13:20Z\",\"op\":0,\"fctbs\":291," +
            "\"vl\":3,\"fccl\":1110,\"length\":8,\"lpcrc\":\"ok\"}", lines[0]);
        assertTrue(lines[1].contains("\"iface\":1,") && lines[1].contains("\"rx_error\":true") &&
            lines[1].endsWith("\"lpcrc\":\"bad\"}"), lines[1]);
        assertTrue(lines[2].contains("\"op\":5,\"fctbs\":1,\"vl\":2,\"fccl\":3,\"length\":8,\"lpcrc\":\"ok\"," +
            "\"error\":\"reserved op 5: only 0 (normal) and 1 (init) are defined\"}"), lines[2]);
        assertTrue(lines[3].contains("\"length\":5,\"lpcrc\":\"none\",\"error\":\"bad length: 5 bytes, an FCP has 8\""),
            lines[3]);

        final Cli text = Cli.run("decode", file.toString());
        assertEquals("1 fcp if0 op=0 fctbs=291 vl=3 fccl=1110 length=8 lpcrc=ok", lines(text)[0]);
        assertEquals("2 fcp if1 rx-error op=0 fctbs=291 vl=3 fccl=1110 length=8 lpcrc=bad", lines(text)[1]);
    }

    @Test
    void fileThatIsNotACaptureIsRefused() throws IOException
    {
        final Cli cli = Cli.run("decode", write("notes.txt", "just some text\n".getBytes()).toString());
        assertEquals(1, cli.exitCode);
        assertEquals("", cli.out);
        assertTrue(cli.err.contains("notes.txt: error: not a pcap capture"), cli.err);
    }

    @Test
    void missingFileIsRefused()
    {
        final Cli cli = Cli.run("decode", dir.resolve("nothing.pcap").toString());
        assertEquals(1, cli.exitCode);
        assertTrue(cli.err.contains("no such file"), cli.err);
    }

    @Test
    void usageErrors()
    {
        assertEquals(2, Cli.run("decode").exitCode);
        assertEquals(2, Cli.run("decode", "--mtu", "1500", "x.pcap").exitCode);
    }

    @Test
    void helpDocumentsTheExitStatus()
    {
        final Cli cli = Cli.run("decode", "--help");
        assertEquals(0, cli.exitCode);
        assertTrue(cli.out.contains("Exit status: 0 every complete packet is sound (a killed writer's capture"),
            cli.out);
        assertTrue(cli.out.contains("1 some packet has a bad CRC"), cli.out);
        assertTrue(Cli.run("--help").out.contains("decode"));
    }

    /** The offset of record {@code index}'s packet in a capture file (records of the real capture are sound). */
    private static int packetOffset(final byte[] file, final int index)
    {
        int position = 24;
        for (int i = 1; i < index; i++)
        {
            position += 16 + ((file[position + 8] & 0xFF) | (file[position + 9] & 0xFF) << 8);
        }
        return position + 16 + 16;
    }
}
