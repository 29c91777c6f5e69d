package io.vlink.core.fuzz;

import io.vlink.core.capture.CaptureException;
import io.vlink.core.capture.Pcap;
import io.vlink.core.capture.PcapReader;
import io.vlink.core.wire.Packets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the capture reader on arbitrary files and on mutated real captures: a file is refused with a
 * {@link CaptureException} or read record by record, damage reported per record; every record lies inside the
 * file; the number of records is bounded by the file's length (no endless loop); and a record whose length field
 * lies (4 GB) makes the reader allocate nothing.
 */
@AddLifecycleHook(FuzzTries.class)
class PcapFuzzTest
{
    private static final byte[] REAL = Packets.captureBytes();

    @TempDir
    Path dir;

    @Property(tries = 1500, seed = "7201")
    void arbitraryBytesAfterAValidFileHeader(
        @ForAll @Size(max = 400) final byte[] body,
        @ForAll @IntRange(max = 3) final int header,
        @ForAll final boolean bigEndian)
    {
        // without a valid header almost every input is refused at once: give most of them one, either byte order
        final byte[] file;
        if (header == 0)
        {
            file = body;
        }
        else
        {
            file = new byte[Pcap.FILE_HEADER_LENGTH + body.length];
            final UnsafeBuffer buffer = new UnsafeBuffer(file);
            Pcap.writeFileHeader(buffer, 0);
            if (bigEndian)
            {
                buffer.putInt(Pcap.MAGIC_OFFSET, Pcap.MAGIC_MICROS, ByteOrder.BIG_ENDIAN);
                buffer.putShort(Pcap.VERSION_MAJOR_OFFSET, (short)Pcap.VERSION_MAJOR, ByteOrder.BIG_ENDIAN);
                buffer.putShort(Pcap.VERSION_MINOR_OFFSET, (short)Pcap.VERSION_MINOR, ByteOrder.BIG_ENDIAN);
                buffer.putInt(Pcap.SNAPLEN_OFFSET, Pcap.SNAPLEN, ByteOrder.BIG_ENDIAN);
                buffer.putInt(Pcap.LINKTYPE_OFFSET, Pcap.LINKTYPE_ERF, ByteOrder.BIG_ENDIAN);
            }
            if (header == 2)
            {
                buffer.putInt(Pcap.MAGIC_OFFSET, Pcap.MAGIC_NANOS, bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            }
            System.arraycopy(body, 0, file, Pcap.FILE_HEADER_LENGTH, body.length);
        }
        readAll(file, Base64.getEncoder().encodeToString(file));
    }

    @Property(tries = 1500, seed = "7202")
    void mutatedRealCapture(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final byte[] file = mutator.mutate(REAL, 1 + mutator.random().nextInt(6));
        readAll(file, "seed " + seed);
    }

    @Property(tries = 200, seed = "7203")
    void lyingRecordLengthsAllocateNothing(@ForAll final long seed) throws CaptureException
    {
        // every record header of the real capture claims a huge length: reading must not allocate for it
        final Mutator mutator = new Mutator(seed);
        final byte[] file = REAL.clone();
        final UnsafeBuffer buffer = new UnsafeBuffer(file);
        final int[] lies = {0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFF0, 0x1_0000, Pcap.SNAPLEN + 1};
        int position = Pcap.FILE_HEADER_LENGTH;
        while (position + Pcap.RECORD_HEADER_LENGTH <= file.length)
        {
            final int inclLen = buffer.getInt(position + Pcap.INCL_LEN_OFFSET, ByteOrder.LITTLE_ENDIAN);
            if (mutator.random().nextInt(4) == 0)
            {
                buffer.putInt(position + Pcap.INCL_LEN_OFFSET, lies[mutator.random().nextInt(lies.length)],
                    ByteOrder.LITTLE_ENDIAN);
            }
            position += Pcap.RECORD_HEADER_LENGTH + inclLen;
        }
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        readAll(file, "seed " + seed);
        final long before = threads.getThreadAllocatedBytes(thread);
        try (PcapReader reader = new PcapReader(buffer, file.length))
        {
            int records = 0;
            while (reader.next() && records++ < file.length)
            {
                reader.packetLength();
            }
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        // the error strings of damaged records only: nothing that grows with the lie
        assertTrue(allocated < 256 * 1024, "seed " + seed + ": allocated " + allocated + " bytes");
    }

    @Test
    void aRecordClaimingFourGigabytesFromAFileOnDisk() throws IOException
    {
        final byte[] file = REAL.clone();
        new UnsafeBuffer(file).putInt(Pcap.FILE_HEADER_LENGTH + Pcap.INCL_LEN_OFFSET, 0xFFFF_FFFF, ByteOrder.LITTLE_ENDIAN);
        final Path path = Files.write(dir.resolve("lie.pcap"), file);
        try (PcapReader reader = PcapReader.open(path))
        {
            assertTrue(reader.next());
            assertNotNull(reader.error());
            assertTrue(reader.error().startsWith("truncated record: its header says 4294967295 bytes"), reader.error());
            assertFalse(reader.next(), "a record cut by the end of the file is the last one");
        }
    }

    private static void readAll(final byte[] file, final String input)
    {
        final PcapReader reader;
        try
        {
            reader = new PcapReader(new UnsafeBuffer(file), file.length);
        }
        catch (final CaptureException ex)
        {
            assertNotNull(ex.getMessage(), input);
            return;
        }
        try (reader)
        {
            // each record takes at least its 16-byte header, the last one at least a byte
            final int maxRecords = Math.max(0, file.length - Pcap.FILE_HEADER_LENGTH + Pcap.RECORD_HEADER_LENGTH - 1) /
                Pcap.RECORD_HEADER_LENGTH;
            int records = 0;
            long checksum = 0;
            while (reader.next())
            {
                records++;
                assertTrue(records <= maxRecords, input + ": more records than the file can hold");
                assertEquals(records, reader.index(), input);
                final DirectBuffer buffer = reader.buffer();
                final int offset = reader.packetOffset();
                final int length = reader.packetLength();
                assertTrue(offset >= Pcap.FILE_HEADER_LENGTH && length >= 0 && offset + length <= file.length,
                    input + ": record " + records + " packet [" + offset + ", +" + length + ")");
                for (int i = 0; i < length; i++)
                {
                    checksum += buffer.getByte(offset + i);
                }
                assertTrue(reader.erfType() >= -1 && reader.erfType() <= 0x7F, input);
                if (!reader.isData() && !reader.isFcp())
                {
                    assertNotNull(reader.error(), input + ": record " + records + " is neither data nor FCP");
                }
                if (reader.error() == null)
                {
                    assertEquals(reader.wlen(), length, input);
                }
                reader.timestampNanos();
                reader.iface();
                reader.rxError();
                reader.rlen();
            }
            assertFalse(reader.next(), input + ": next() after the end");
            assertTrue(checksum != Long.MIN_VALUE);
        }
    }
}
