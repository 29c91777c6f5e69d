package io.vlink.core.capture;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Packets;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PcapTest
{
    /** 2023-11-14T22:13:20.5Z: half a second, so the ERF fraction is exactly 0x80000000. */
    private static final long EPOCH_NANOS = 1_700_000_000_500_000_000L;

    @TempDir
    Path dir;

    private static PcapReader reader(final byte[] file) throws CaptureException
    {
        return new PcapReader(new UnsafeBuffer(file), file.length);
    }

    @Test
    void writerOutputEqualsHandBuiltRecords() throws IOException
    {
        final Path file = dir.resolve("two.pcap");
        final UnsafeBuffer fcp = new UnsafeBuffer(new byte[8]);
        Fcp.encode(fcp, 0, Fcp.word(0, 0x123, 3, 0x456));
        try (PcapWriter writer = new PcapWriter(file))
        {
            writer.writeFcp(EPOCH_NANOS, 1, false, fcp, 0, 8);
            writer.writeData(EPOCH_NANOS + 1_000, 0, true, new UnsafeBuffer(Packets.RC_ACK), 0, Packets.RC_ACK.length);
        }

        final String expected =
            // pcap file header: magic, 2.4, thiszone, sigfigs, snaplen 65535, link type 197
            "d4c3b2a1" + "0200" + "0400" + "00000000" + "00000000" + "ffff0000" + "c5000000" +
            // FCP record: ts 1700000000 s + 500000 us, incl = orig = 16 + 8
            "00f15365" + "20a10700" + "18000000" + "18000000" +
            // ERF: 32.32 timestamp LE, type 25, flags 0x04 | iface 1, rlen 24, lctr 0, wlen 8
            "0000008000f15365" + "19" + "05" + "0018" + "0000" + "0008" +
            "01233456d19f0000" +
            // data record: 1 us later, incl = orig = 16 + 30
            "00f15365" + "21a10700" + "2e000000" + "2e000000" +
            // ERF: fraction 0.500001 s rounded to 2^-32, type 21, flags 0x04 | 0x10 (rx error), rlen 16 + 32, wlen 30
            String.format("%016x", Long.reverseBytes(Pcap.erfTimestamp(EPOCH_NANOS + 1_000))) + "15" + "14" + "0030" +
            "0000" + "001e" + HexFormat.of().formatHex(Packets.RC_ACK);
        assertEquals(expected, HexFormat.of().formatHex(Files.readAllBytes(file)));
        assertEquals(0x6553F100_80000000L, Pcap.erfTimestamp(EPOCH_NANOS));

        try (PcapReader reader = PcapReader.open(file))
        {
            assertTrue(reader.next());
            assertNull(reader.error());
            assertTrue(reader.isFcp());
            assertEquals(1, reader.iface());
            assertFalse(reader.rxError());
            assertEquals(EPOCH_NANOS, reader.timestampNanos());
            assertEquals(8, reader.packetLength());
            assertEquals(Fcp.OK, Fcp.verdict(Fcp.decode(reader.buffer(), reader.packetOffset(), reader.packetLength())));

            assertTrue(reader.next());
            assertNull(reader.error());
            assertTrue(reader.isData());
            assertTrue(reader.rxError());
            assertEquals(0, reader.iface());
            assertEquals(EPOCH_NANOS + 1_000, reader.timestampNanos());
            final byte[] packet = new byte[reader.packetLength()];
            reader.buffer().getBytes(reader.packetOffset(), packet);
            assertArrayEquals(Packets.RC_ACK, packet);
            assertFalse(reader.next());
        }
    }

    @Test
    void erfTimestampsRoundTripToTheNanosecond()
    {
        for (long nanos = 0; nanos < 2_000_000_000L; nanos += 7_777_777)
        {
            assertEquals(EPOCH_NANOS + nanos, Pcap.epochNanos(Pcap.erfTimestamp(EPOCH_NANOS + nanos)));
        }
        assertEquals(0xFFFF_FFFCL, Pcap.erfTimestamp(999_999_999L), "0.999999999 s is 4294967291.7 / 2^32 s");
    }

    @Test
    void realCaptureRecordsCarryRlenPaddingBeyondWlen() throws IOException
    {
        try (PcapReader reader = reader(Packets.captureBytes()))
        {
            assertTrue(reader.next());
            assertEquals(290, reader.wlen());
            assertEquals(312, reader.rlen());
            assertEquals(Pcap.rlen(290), reader.rlen());
            assertEquals(290, reader.packetLength());
            // ERF 0x482b41ef.7febea60: 1210794479 s + 2146167392 / 2^32 s = 0.49969353527 s; pcap says 499693 us
            assertEquals(1_210_794_479_499_693_535L, reader.timestampNanos());
        }
    }

    @Test
    void capturedPaddingAfterThePacketIsSkipped() throws IOException
    {
        // a writer that stores the whole rlen: incl_len 16 + 32 for a 30-byte packet
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[24 + 32 + 32 + 32 + 8]);
        int position = Pcap.writeFileHeader(buffer, 0);
        position += Pcap.writeRecord(buffer, position, 0, Pcap.ERF_TYPE_INFINIBAND, 0, false,
            new UnsafeBuffer(Packets.RC_ACK), 0, Packets.RC_ACK.length);
        buffer.putInt(24 + Pcap.INCL_LEN_OFFSET, 48, ByteOrder.LITTLE_ENDIAN);
        position += 2;
        position += Pcap.writeRecord(buffer, position, 0, Pcap.ERF_TYPE_INFINIBAND_LINK, 0, false,
            new UnsafeBuffer(new byte[8]), 0, 8);

        try (PcapReader reader = new PcapReader(buffer, position))
        {
            assertTrue(reader.next());
            assertNull(reader.error());
            assertEquals(30, reader.packetLength());
            assertTrue(reader.next());
            assertNull(reader.error());
            assertTrue(reader.isFcp());
            assertFalse(reader.next());
        }
    }

    @Test
    void fileThatIsNotACaptureIsRefusedClearly()
    {
        final CaptureException text = assertThrows(CaptureException.class,
            () -> reader("this is a text file, not a capture\n".getBytes()));
        assertTrue(text.getMessage().contains("not a pcap capture"), text.getMessage());

        final CaptureException empty = assertThrows(CaptureException.class, () -> reader(new byte[0]));
        assertTrue(empty.getMessage().contains("0 bytes"), empty.getMessage());

        final byte[] pcapng = HexFormat.of().parseHex("0a0d0d0a1c0000004d3c2b1a01000000ffffffffffffffff1c000000");
        final CaptureException ng = assertThrows(CaptureException.class, () -> reader(pcapng));
        assertTrue(ng.getMessage().contains("pcapng"), ng.getMessage());

        assertThrows(CaptureException.class, () -> PcapReader.open(writeFile("text.pcap", "hello".getBytes())));
    }

    @Test
    void wrongLinkTypeIsRefused()
    {
        final byte[] file = Packets.captureBytes();
        file[Pcap.LINKTYPE_OFFSET] = 1; // Ethernet
        final CaptureException ex = assertThrows(CaptureException.class, () -> reader(file));
        assertTrue(ex.getMessage().contains("link type 1 is not ERF (197)"), ex.getMessage());
    }

    @Test
    void wrongVersionIsRefused()
    {
        final byte[] file = Packets.captureBytes();
        file[Pcap.VERSION_MAJOR_OFFSET] = 3;
        assertThrows(CaptureException.class, () -> reader(file));
    }

    @Test
    void bigEndianPcapIsRead() throws IOException
    {
        final byte[] file = swapPcapHeaders(Packets.captureBytes());
        try (PcapReader reader = reader(file))
        {
            assertEquals(ByteOrder.BIG_ENDIAN, reader.byteOrder());
            int records = 0;
            while (reader.next())
            {
                assertNull(reader.error());
                records++;
            }
            assertEquals(43, records);
        }
    }

    @Test
    void nanosecondPcapIsRead() throws IOException
    {
        final byte[] file = Packets.captureBytes();
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(0, Pcap.MAGIC_NANOS);
        // the first record loses its ERF header (8 bytes captured): its time comes from the pcap header, in ns
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + Pcap.TS_SUBSEC_OFFSET, 123_456_789);
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertNull(reader.error());
            assertEquals(1_210_794_479_499_693_535L, reader.timestampNanos(), "ERF's timestamp wins when present");
        }
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + Pcap.INCL_LEN_OFFSET, 8);
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertTrue(reader.error().contains("too short for the 16-byte ERF header"), reader.error());
            assertEquals(1_210_794_479_123_456_789L, reader.timestampNanos());
        }
    }

    @Test
    void aCutFileEndsAtItsLastWholeRecord() throws IOException
    {
        final byte[] whole = Packets.captureBytes();
        // cut inside the last record, a few records back, inside the first record's header, inside its packet
        for (final int cut : new int[] {whole.length - 1, whole.length - 300, whole.length - 306 - 10, 24 + 5, 24 + 20})
        {
            final byte[] file = Arrays.copyOf(whole, cut);
            int recordStart = -1;
            int records = 0;
            try (PcapReader reader = reader(file))
            {
                int position = Pcap.FILE_HEADER_LENGTH;
                while (reader.next())
                {
                    records++;
                    assertNull(reader.error(), "cut at " + cut);
                    position = reader.packetOffset() + reader.packetLength();
                }
                recordStart = position;
                assertEquals(recordStart, reader.truncatedAt(), "cut at " + cut);
                assertNotNull(reader.truncation());
                assertEquals(records, reader.index());
                assertFalse(reader.next(), "the end stays the end");
            }
            try (PcapReader reader = reader(Arrays.copyOf(whole, recordStart)))
            {
                int again = 0;
                while (reader.next())
                {
                    again++;
                }
                assertEquals(records, again, "the records before the cut are the whole file up to it");
                assertEquals(-1, reader.truncatedAt());
                assertNull(reader.truncation());
            }
        }
    }

    @Test
    void aZeroFilledTailIsWhereTheWriterStopped() throws IOException
    {
        final byte[] whole = Packets.captureBytes();
        final byte[] file = Arrays.copyOf(whole, whole.length + 1024 * 1024);
        try (PcapReader reader = reader(file))
        {
            int records = 0;
            while (reader.next())
            {
                assertNull(reader.error());
                records++;
            }
            assertEquals(43, records);
            assertEquals(whole.length, reader.truncatedAt());
            assertEquals("a record header of length 0, the unwritten part of a capture file", reader.truncation());
        }
        // a header written but for its length (a writer stopped while writing it)
        file[whole.length] = 1;
        try (PcapReader reader = reader(file))
        {
            while (reader.next())
            {
                assertNull(reader.error());
            }
            assertEquals(whole.length, reader.truncatedAt());
        }
    }

    @Test
    void aStreamIsReadWithinItsLimit() throws IOException
    {
        final byte[] whole = Packets.captureBytes();
        try (PcapReader reader = PcapReader.read(new java.io.ByteArrayInputStream(whole), whole.length))
        {
            int records = 0;
            while (reader.next())
            {
                assertNull(reader.error());
                records++;
            }
            assertEquals(43, records);
            assertEquals(-1, reader.truncatedAt());
        }
        final CaptureException tooLong = assertThrows(CaptureException.class,
            () -> PcapReader.read(new java.io.ByteArrayInputStream(whole), whole.length - 1));
        assertEquals("a capture longer than " + (whole.length - 1) + " bytes on a stream: save it to a file and decode " +
            "the file", tooLong.getMessage());
        final CaptureException notPcap = assertThrows(CaptureException.class,
            () -> PcapReader.read(new java.io.ByteArrayInputStream(new byte[100]), 1 << 20));
        assertTrue(notPcap.getMessage().startsWith("not a pcap capture: the file starts with 0x00000000"));
        // a stream that never ends is refused from its first 24 bytes
        final java.io.InputStream zeros = new java.io.InputStream()
        {
            @Override
            public int read()
            {
                return 0;
            }
        };
        assertThrows(CaptureException.class, () -> PcapReader.read(zeros, Integer.MAX_VALUE));
    }

    @Test
    void damagedErfHeadersAreReportedAndReadingGoesOn() throws IOException
    {
        final byte[] file = Packets.captureBytes();
        final int erf = 24 + 16;
        file[erf + Pcap.ERF_RLEN_OFFSET] = 0;
        file[erf + Pcap.ERF_RLEN_OFFSET + 1] = 8; // rlen 8 < 16
        final int second = 24 + 16 + 306 + 16;
        file[second + Pcap.ERF_TYPE_OFFSET] = 2; // Ethernet
        final int third = second + 306 + 16;
        file[third + Pcap.ERF_WLEN_OFFSET] = 0x7F; // wlen far beyond the record
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertEquals("ERF rlen 8 is less than its own 16-byte header", reader.error());
            assertTrue(reader.next());
            assertTrue(reader.error().contains("ERF type 2"), reader.error());
            assertTrue(reader.next());
            assertTrue(reader.error().contains("rlen 192 cannot hold"), reader.error());
            assertEquals(174, reader.packetLength(), "only what the record holds");
            int sound = 0;
            while (reader.next())
            {
                assertNull(reader.error());
                sound++;
            }
            assertEquals(40, sound);
        }
    }

    @Test
    void absurdRlenIsReported() throws IOException
    {
        final byte[] file = Packets.captureBytes();
        file[24 + 16 + Pcap.ERF_RLEN_OFFSET] = (byte)0xFF; // rlen 0xff38 for a 290-byte packet
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertEquals("ERF rlen 65336 does not fit wlen 290: 16 + wlen rounded up to 8 is 312", reader.error());
            assertEquals(290, reader.packetLength(), "the packet is still there to decode");
            assertTrue(reader.next());
            assertNull(reader.error());
        }
    }

    @Test
    void recordTooShortForAnErfHeaderIsSkipped() throws IOException
    {
        final byte[] whole = Packets.captureBytes();
        final byte[] file = new byte[whole.length + 16 + 4];
        System.arraycopy(whole, 0, file, 0, 24);
        // a record of 4 bytes, then the real ones
        file[24 + Pcap.INCL_LEN_OFFSET] = 4;
        System.arraycopy(whole, 24, file, 24 + 16 + 4, whole.length - 24);
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertTrue(reader.error().contains("too short for the 16-byte ERF header"), reader.error());
            assertEquals(-1, reader.erfType());
            assertTrue(reader.next());
            assertNull(reader.error());
            assertEquals(290, reader.packetLength());
        }
    }

    @Test
    void aLengthNoRecordCanHaveIsDamageNotATruncation() throws IOException
    {
        final byte[] file = Packets.captureBytes();
        file[24 + Pcap.INCL_LEN_OFFSET + 2] = 0x01; // 65,536 + 306 bytes: more than the snap length
        try (PcapReader reader = reader(file))
        {
            assertTrue(reader.next());
            assertTrue(reader.error().startsWith("truncated record: its header says 65842 bytes"), reader.error());
            assertFalse(reader.next());
            assertEquals(-1, reader.truncatedAt());
        }
    }

    private Path writeFile(final String name, final byte[] bytes) throws IOException
    {
        return Files.write(dir.resolve(name), bytes);
    }

    static byte[] swapPcapHeaders(final byte[] littleEndian)
    {
        final ByteBuffer in = ByteBuffer.wrap(littleEndian).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer out = ByteBuffer.wrap(littleEndian.clone()).order(ByteOrder.BIG_ENDIAN);
        out.putInt(0, in.getInt(0));
        out.putShort(4, in.getShort(4));
        out.putShort(6, in.getShort(6));
        for (int i = 8; i < 24; i += 4)
        {
            out.putInt(i, in.getInt(i));
        }
        int position = 24;
        while (position < littleEndian.length)
        {
            for (int i = 0; i < 16; i += 4)
            {
                out.putInt(position + i, in.getInt(position + i));
            }
            position += 16 + in.getInt(position + 8);
        }
        return out.array();
    }
}
