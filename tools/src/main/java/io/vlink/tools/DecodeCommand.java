package io.vlink.tools;

import io.vlink.core.capture.CaptureException;
import io.vlink.core.capture.PcapReader;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Diagnostic.Severity;
import io.vlink.core.crc.Crc16;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.GrhFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import org.agrona.DirectBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code vlink decode FILE [--json]} (docs/cli.md): decodes a pcap/ERF capture and checks every CRC, which
 * Wireshark does not. One line per packet; with {@code --json} one JSON object per line.
 */
@Command(
    name = "decode",
    mixinStandardHelpOptions = true,
    description = {
        "Decodes a capture (classic pcap, link type 197 ERF, as ibdump writes) and checks every CRC: the ICRC and " +
            "VCRC of data packets, the LPCRC of flow-control packets.",
        "One line per packet; with --json one JSON object per line. A damaged record is reported on its line " +
            "(\"error\") and decoding goes on with the next record where the file still says where it starts.",
        "A capture whose writer was stopped without closing it (a half-written last record, the zero-filled " +
            "unwritten part of the file) ends there, with one warning on stderr: truncated after N records at byte B. " +
            "A record its writer was copying when it was killed (its first bytes, then zeros) is that end, never a " +
            "bad CRC; a file of nothing but zeros (or empty) has no records, with a warning.",
    },
    footer = {
        "",
        "Exit status: 0 every complete packet is sound (a killed writer's capture included: the warning says where it " +
            "ends); 1 some packet has a bad CRC or is malformed (every packet is " +
            "still printed, and a count goes to stderr), or FILE cannot be read or is not a capture; 2 usage error.",
    })
public final class DecodeCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    /** The most bytes taken from a pipe or standard input, which are read into memory. */
    static final int MAX_STREAM_BYTES = 256 * 1024 * 1024;

    @Parameters(index = "0", paramLabel = "FILE", description = "The capture to decode: a file, a pipe " +
        "(<(command)), or - for standard input (up to 256 MiB).")
    Path file;

    /** Standard input, for {@code -}. */
    InputStream stdin = System.in;

    @Option(names = "--json", description = "One JSON object per packet and line.")
    boolean json;

    @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "4096",
        description = "The link's MTU (256, 512, 1024, 2048, 4096): longer packets are malformed. Default: ${DEFAULT-VALUE}.")
    int mtu;

    private static final String STDIN = "-";

    private final LrhFlyweight lrh = new LrhFlyweight();
    private final StringBuilder line = new StringBuilder(256);
    private boolean first;

    @Override
    public Integer call()
    {
        final PacketChecker checker;
        try
        {
            checker = new PacketChecker(mtu);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), "--mtu: " + ex.getMessage());
        }

        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        int data = 0;
        int fcps = 0;
        int bad = 0;
        final String name = file.toString();
        if (neverWritten())
        {
            err.println(new Diagnostic(name, 0, 0, Severity.WARNING, "no records: the file is empty or all zeros, a " +
                "capture whose writer stopped before it wrote the pcap header"));
            return 0;
        }
        String torn = null;
        int tornAt = -1;
        try (PcapReader reader = open())
        {
            while (reader.next())
            {
                line.setLength(0);
                first = true;
                final boolean sound;
                if (reader.isData())
                {
                    data++;
                    sound = decodeData(reader, checker);
                }
                else if (reader.isFcp())
                {
                    fcps++;
                    sound = decodeFcp(reader);
                }
                else
                {
                    start(reader, "unknown");
                    error(reader.error());
                    sound = false;
                }
                if (!sound && reader.followedByUnwritten() && reader.writtenLength() < reader.recordLength())
                {
                    // the record its writer was copying when it was stopped: its first bytes, then the file's zeros
                    torn = "a record cut short by its writer: its header says " + reader.recordLength() + " bytes, " +
                        reader.writtenLength() + " are there and the rest is the unwritten, zero-filled part of the file";
                    tornAt = reader.recordOffset();
                    if (reader.isData())
                    {
                        data--;
                    }
                    else if (reader.isFcp())
                    {
                        fcps--;
                    }
                    break;
                }
                if (!sound)
                {
                    bad++;
                }
                out.println(end());
            }
            out.flush();
            final int records = null != torn ? reader.index() - 1 : reader.index();
            if (null != torn || reader.truncatedAt() >= 0)
            {
                err.println(new Diagnostic(name, 0, 0, Severity.WARNING, "truncated after " + records +
                    " records at byte " + (null != torn ? tornAt : reader.truncatedAt()) + ": " +
                    (null != torn ? torn : reader.truncation()) + " (a capture whose writer stopped without closing " +
                    "it); the records before it are decoded"));
            }
            if (bad > 0)
            {
                err.println("vlink decode: " + bad + " of " + records + " records have a bad CRC or are " +
                    "malformed (" + data + " data, " + fcps + " fcp)");
            }
        }
        catch (final CaptureException ex)
        {
            err.println(new Diagnostic(name, 0, 0, Severity.ERROR, ex.getMessage()));
            return Vlink.EXIT_FAILURE;
        }
        catch (final IOException ex)
        {
            err.println(Diagnostic.cannotRead(name, ex));
            return Vlink.EXIT_FAILURE;
        }
        return bad == 0 ? 0 : Vlink.EXIT_FAILURE;
    }

    /**
     * @return whether the file is a regular file that holds nothing but zeros (or nothing): what a capture whose
     * writer was killed before it wrote the pcap header leaves.
     */
    private boolean neverWritten()
    {
        if (STDIN.equals(file.toString()) || !Files.isRegularFile(file))
        {
            return false;
        }
        try (InputStream in = Files.newInputStream(file))
        {
            final byte[] chunk = new byte[64 * 1024];
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk))
            {
                for (int i = 0; i < n; i++)
                {
                    if (0 != chunk[i])
                    {
                        return false;
                    }
                }
            }
            return true;
        }
        catch (final IOException ex)
        {
            // said when the file is opened for decoding
            return false;
        }
    }

    /**
     * A regular file is mapped; a pipe, a device or standard input ({@code -}) is read into memory, bounded.
     */
    private PcapReader open() throws IOException
    {
        if (STDIN.equals(file.toString()))
        {
            return PcapReader.read(stdin, MAX_STREAM_BYTES);
        }
        if (Files.isDirectory(file))
        {
            throw new FileSystemException(file.toString(), null, Diagnostic.IS_A_DIRECTORY);
        }
        if (Files.isRegularFile(file))
        {
            return PcapReader.open(file);
        }
        try (InputStream in = Files.newInputStream(file))
        {
            return PcapReader.read(in, MAX_STREAM_BYTES);
        }
    }

    private boolean decodeData(final PcapReader reader, final PacketChecker checker)
    {
        final DirectBuffer buffer = reader.buffer();
        final int offset = reader.packetOffset();
        final int length = reader.packetLength();
        start(reader, "data");

        if (length < LrhFlyweight.LENGTH)
        {
            field("length", length);
            text("icrc", "none");
            text("vcrc", "none");
            error(reader.error() != null ? reader.error() : "packet of " + length + " bytes, shorter than an LRH");
            return false;
        }

        final int lnh = LrhFlyweight.lnh(buffer, offset);
        field("vl", LrhFlyweight.vl(buffer, offset));
        field("lver", buffer.getByte(offset) & 0x0F);
        field("sl", LrhFlyweight.sl(buffer, offset));
        field("lnh", lnh);
        field("dlid", LrhFlyweight.dlid(buffer, offset));
        field("pktlen", LrhFlyweight.pktLen(buffer, offset));
        field("slid", LrhFlyweight.slid(buffer, offset));
        field("length", length);

        final int result = checker.check(buffer, offset, length);
        final int verdict = PacketChecker.verdict(result);
        final int icrc = PacketChecker.icrcStatus(result);
        final int vcrc = PacketChecker.vcrcStatus(result);
        text("icrc", PacketChecker.crcStatusName(icrc));
        text("vcrc", PacketChecker.crcStatusName(vcrc));

        final int bthOffset = LrhFlyweight.LENGTH + (lnh == LrhFlyweight.LNH_GLOBAL ? GrhFlyweight.LENGTH : 0);
        if (LrhFlyweight.isIba(lnh) && length >= bthOffset + BthFlyweight.LENGTH)
        {
            hex("bth_opcode", BthFlyweight.opcode(buffer, offset + bthOffset), 2);
            field("dest_qp", BthFlyweight.destQp(buffer, offset + bthOffset));
            field("psn", BthFlyweight.psn(buffer, offset + bthOffset));
        }

        String error = reader.error();
        if (error == null && verdict != PacketChecker.OK && verdict != PacketChecker.BAD_ICRC &&
            verdict != PacketChecker.BAD_VCRC)
        {
            error = malformed(verdict, buffer, offset, length, checker);
        }
        if (error != null)
        {
            error(error);
        }
        return error == null && verdict == PacketChecker.OK;
    }

    private static String malformed(
        final int verdict, final DirectBuffer buffer, final int offset, final int length, final PacketChecker checker)
    {
        final int pktLen = LrhFlyweight.pktLen(buffer, offset);
        switch (verdict)
        {
            case PacketChecker.LENGTH_MISMATCH:
                return "bad length: " + length + " bytes, PktLen " + pktLen + " says " + Sizes.wireLength(pktLen);
            case PacketChecker.TOO_LONG:
                return "bad length: " + Sizes.sizeOfPktLen(pktLen) + " bytes exceed the " + checker.maxSize() +
                    " an MTU of " + (checker.maxSize() - PacketChecker.HEADERS_ALLOWANCE) + " allows";
            case PacketChecker.TOO_SHORT:
                return "bad length: " + length + " bytes, too short for the headers LNH " +
                    LrhFlyweight.lnh(buffer, offset) + " announces";
            default:
                return PacketChecker.verdictName(verdict);
        }
    }

    private boolean decodeFcp(final PcapReader reader)
    {
        final DirectBuffer buffer = reader.buffer();
        final int offset = reader.packetOffset();
        final int length = reader.packetLength();
        start(reader, "fcp");

        final long result = Fcp.decode(buffer, offset, length);
        final int verdict = Fcp.verdict(result);
        final int word = Fcp.word(result);
        if (length >= 4)
        {
            field("op", Fcp.op(word));
            field("fctbs", Fcp.fctbs(word));
            field("vl", Fcp.vl(word));
            field("fccl", Fcp.fccl(word));
        }
        field("length", length);
        final boolean lpcrcPresent = length >= Fcp.RESERVED_OFFSET;
        final boolean lpcrcOk = lpcrcPresent && Fcp.lpcrc(buffer, offset) == Crc16.ofWord(word);
        text("lpcrc", !lpcrcPresent ? "none" : lpcrcOk ? "ok" : "bad");

        String error = reader.error();
        if (error == null)
        {
            if (verdict == Fcp.TOO_SHORT)
            {
                error = "bad length: " + length + " bytes, an FCP has " + Fcp.LENGTH;
            }
            else if (verdict == Fcp.RESERVED_OP)
            {
                error = "reserved op " + Fcp.op(word) + ": only 0 (normal) and 1 (init) are defined";
            }
            else if (length != Fcp.LENGTH)
            {
                error = "bad length: " + length + " bytes, an FCP has " + Fcp.LENGTH;
            }
        }
        if (error != null)
        {
            error(error);
        }
        return error == null && verdict == Fcp.OK;
    }

    private void start(final PcapReader reader, final String kind)
    {
        if (json)
        {
            line.append('{');
            field("index", reader.index());
            text("kind", kind);
            if (reader.erfType() >= 0)
            {
                field("iface", reader.iface());
                text("time", Instant.ofEpochSecond(0, reader.timestampNanos()).toString());
                if (reader.rxError())
                {
                    line.append(",\"rx_error\":true");
                }
            }
        }
        else
        {
            line.append(reader.index()).append(' ').append(kind);
            if (reader.erfType() >= 0)
            {
                line.append(" if").append(reader.iface());
                if (reader.rxError())
                {
                    line.append(" rx-error");
                }
            }
            first = false;
        }
    }

    private String end()
    {
        if (json)
        {
            line.append('}');
        }
        return line.toString();
    }

    private void key(final String key)
    {
        if (json)
        {
            if (!first)
            {
                line.append(',');
            }
            line.append('"').append(key).append("\":");
        }
        else
        {
            line.append(' ').append(key).append('=');
        }
        first = false;
    }

    private void field(final String key, final int value)
    {
        key(key);
        line.append(value);
    }

    private void hex(final String key, final int value, final int digits)
    {
        key(key);
        if (json)
        {
            line.append(value);
        }
        else
        {
            final String hex = Integer.toHexString(value);
            line.append("0x");
            for (int i = hex.length(); i < digits; i++)
            {
                line.append('0');
            }
            line.append(hex);
        }
    }

    private void text(final String key, final String value)
    {
        key(key);
        if (json)
        {
            quote(value);
        }
        else
        {
            line.append(value);
        }
    }

    private void error(final String reason)
    {
        key("error");
        if (json)
        {
            quote(reason);
        }
        else
        {
            line.append('"').append(reason).append('"');
        }
    }

    private void quote(final String value)
    {
        line.append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\')
            {
                line.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                line.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                line.append(c);
            }
        }
        line.append('"');
    }
}
