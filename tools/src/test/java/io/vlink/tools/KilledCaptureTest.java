package io.vlink.tools;

import io.vlink.core.capture.Pcap;
import io.vlink.core.capture.PcapReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink decode} of a capture whose writer was killed, as an operator meets it: a real capture of a soak (4 KiB
 * data packets and FCPs), cut inside one record at every interesting offset, as a killed process leaves its
 * memory-mapped file: the bytes it had copied, then the zeros of the file it had extended ahead of itself (and, for
 * comparison, the same cut at the end of a file). Every cut decodes: exit 0, the records before it, and one warning
 * that says where the capture ends; a half-written record is reported as truncated, never as a bad CRC.
 */
class KilledCaptureTest
{
    /** Zeros after the cut: the part of the file the writer had extended but not written. */
    private static final int ZERO_FILL = 64 * 1024;
    private static final Pattern WARNING = Pattern.compile(
        "(\\S+): warning: truncated after (\\d+) records at byte (\\d+): (.*) \\(a capture whose writer stopped " +
        "without closing it\\); the records before it are decoded\n");

    @TempDir
    static Path dir;

    private static byte[] capture;
    /** Offsets and lengths (header included) of the records, in order; and which ones are data. */
    private static final List<int[]> RECORDS = new ArrayList<>();

    @BeforeAll
    static void captureASoak() throws IOException
    {
        final Path pcap = dir.resolve("soak.pcap");
        final Cli soak = Cli.run("soak", "--packets", "100", "--size", "4096", "--threads", "invoker", "--capture",
            pcap.toString(), "--dir", dir.toString());
        assertEquals(0, soak.exitCode, soak::toString);
        capture = Files.readAllBytes(pcap);
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                RECORDS.add(new int[] {reader.recordOffset(), Pcap.RECORD_HEADER_LENGTH + reader.recordLength(),
                    reader.isData() ? 1 : 0});
            }
        }
        assertTrue(RECORDS.size() > 100, RECORDS.size() + " records");
    }

    /**
     * A record after the bring-up, with records of both kinds before it: a 4 KiB data packet (not one of the soak's
     * SMPs on VL15, which are data records too), or an FCP.
     *
     * @return its number from 1.
     */
    private static int middle(final boolean data)
    {
        for (int i = 40; i < RECORDS.size(); i++)
        {
            final boolean dataRecord = RECORDS.get(i)[2] == 1;
            if (data ? dataRecord && RECORDS.get(i)[1] == Pcap.RECORD_HEADER_LENGTH + 4114 : !dataRecord)
            {
                return i + 1;
            }
        }
        throw new AssertionError("no record of that kind after the bring-up");
    }

    private static Cli decode(final String name, final byte[] bytes) throws IOException
    {
        return Cli.run("decode", Files.write(dir.resolve(name), bytes).toString());
    }

    /**
     * Cut record {@code number} after {@code written} of its bytes; decode; every cut ends the capture at that record
     * (or just after it, when what was written is the whole record: its last bytes were zeros anyway).
     */
    private static void assertCutDecodes(final int number, final int written, final boolean zeroFill)
        throws IOException
    {
        final int[] record = RECORDS.get(number - 1);
        final int cut = record[0] + written;
        final byte[] file = Arrays.copyOf(capture, zeroFill ? Math.max(cut, record[0] + record[1]) + ZERO_FILL : cut);
        Arrays.fill(file, cut, file.length, (byte)0);
        final Cli cli = decode("cut.pcap", file);
        final String where = "record " + number + " cut after " + written + " of " + record[1] + " bytes" +
            (zeroFill ? ", then zeros" : ", then the end of the file") + ":\n" + cli.err;
        assertEquals(0, cli.exitCode, where);
        final boolean whole = zeroFill ? Arrays.equals(capture, record[0], record[0] + record[1], file, record[0],
            record[0] + record[1]) : written == record[1];
        final int decoded = whole ? number : number - 1;
        if (!zeroFill && (0 == written || whole))
        {
            // cut at a record's boundary: a closed capture looks the same
            assertEquals("", cli.err, where);
            assertEquals(decoded, cli.out.split("\n").length, where);
            return;
        }
        final Matcher warning = WARNING.matcher(cli.err);
        assertTrue(warning.matches(), where);
        assertEquals(decoded, Integer.parseInt(warning.group(2)), where);
        assertEquals(whole ? record[0] + record[1] : record[0], Integer.parseInt(warning.group(3)), where);
        final String[] lines = cli.out.split("\n");
        assertEquals(decoded, lines.length, where);
        for (final String line : lines)
        {
            assertFalse(line.contains("error") || line.contains("=bad"), where + line);
        }
        if (!whole && zeroFill && written > Pcap.RECORD_HEADER_LENGTH)
        {
            int present = written - Pcap.RECORD_HEADER_LENGTH;
            while (present > 0 && 0 == capture[record[0] + Pcap.RECORD_HEADER_LENGTH + present - 1])
            {
                present--;
            }
            assertEquals("a record cut short by its writer: its header says " + (record[1] -
                Pcap.RECORD_HEADER_LENGTH) + " bytes, " + present + " are there and the rest is the unwritten, " +
                "zero-filled part of the file", warning.group(4), where);
        }
    }

    @Test
    void aDataRecordCutAtEveryInterestingOffsetIsTheEndNeverABadCrc() throws IOException
    {
        final int number = middle(true);
        final int length = RECORDS.get(number - 1)[1];
        assertEquals(Pcap.RECORD_HEADER_LENGTH + 4114, length, "16 + ERF 16 + 4096 + VCRC 2");
        final List<Integer> offsets = new ArrayList<>();
        // every byte of the pcap header (incl_len at 8..11) and the ERF header, then the LRH, BTH and soak header
        for (int i = 0; i <= 40; i++)
        {
            offsets.add(i);
        }
        for (int i = 44; i <= 96; i += 8)
        {
            offsets.add(i);
        }
        // through the payload (the issue's case: 1,344 of 4,114 bytes)
        for (int i = 97; i < length - 24; i += 509)
        {
            offsets.add(i);
        }
        offsets.add(Pcap.RECORD_HEADER_LENGTH + 1344);
        // the end of the payload, the ICRC and the VCRC
        for (int i = length - 24; i <= length; i++)
        {
            offsets.add(i);
        }
        for (final int written : offsets)
        {
            assertCutDecodes(number, written, true);
            if (written <= 40 || written >= length - 24)
            {
                // the end of the file inside the headers or the CRCs (the payload's cuts are alike)
                assertCutDecodes(number, written, false);
            }
        }
    }

    @Test
    void anFcpRecordCutAtEveryOffsetIsTheEndNeverABadLpcrc() throws IOException
    {
        final int number = middle(false);
        final int length = RECORDS.get(number - 1)[1];
        for (int written = 0; written <= length; written++)
        {
            assertCutDecodes(number, written, true);
            assertCutDecodes(number, written, false);
        }
    }

    @Test
    void aCaptureKilledBeforeItsHeaderHasNoRecordsAndAWarning() throws IOException
    {
        for (final byte[] file : List.of(new byte[0], new byte[Pcap.FILE_HEADER_LENGTH - 1], new byte[1 << 20]))
        {
            final Cli cli = decode("empty.pcap", file);
            assertEquals(0, cli.exitCode, cli::toString);
            assertEquals("", cli.out);
            assertEquals(dir.resolve("empty.pcap") + ": warning: no records: the file is empty or all zeros, a " +
                "capture whose writer stopped before it wrote the pcap header\n", cli.err);
        }
        // a complete record with a bad CRC before the end is still a bad CRC: one whose last byte (the VCRC's) is not
        // 0, for a damaged last record that ends in a zero byte cannot be told from one cut short (docs/wire.md)
        int number = middle(true);
        while (0 == capture[RECORDS.get(number - 1)[0] + RECORDS.get(number - 1)[1] - 1] ||
            RECORDS.get(number - 1)[1] != RECORDS.get(middle(true) - 1)[1] || RECORDS.get(number - 1)[2] != 1)
        {
            number++;
        }
        final int[] record = RECORDS.get(number - 1);
        final byte[] damaged = Arrays.copyOf(capture, record[0] + record[1] + ZERO_FILL);
        Arrays.fill(damaged, record[0] + record[1], damaged.length, (byte)0);
        damaged[record[0] + 100] ^= 0x10;
        final Cli cli = decode("damaged.pcap", damaged);
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains("1 of " + number + " records have a bad CRC"), cli.err);
    }
}
