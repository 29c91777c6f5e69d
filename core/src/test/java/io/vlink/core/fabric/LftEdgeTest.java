package io.vlink.core.fabric;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LftEdgeTest
{
    private static final Topology T = TopologyFixtures.sample("net.2sw2path4hca");

    private static List<String> findings(final String text)
    {
        return LftReader.parse("lfts", text, T).diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
    }

    @Test
    void readsFromFilesAndRefusesDirectoriesAndMissingFiles(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("lfts");
        Files.writeString(file, LftReaderTest.OPENSM_DUMP);
        final Result<Routes> ok = LftReader.read(file, T);
        assertTrue(ok.ok());
        assertEquals(5, ok.orThrow().outPort(T.node("Switch1"), 6));
        assertEquals(ok.value(), ok.orThrow());
        final Result<Routes> directory = LftReader.read(dir, T);
        assertEquals(List.of(dir + ": error: cannot read: is a directory"),
            directory.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertNull(directory.value());
        assertThrows(ConfigException.class, directory::orThrow);
        assertEquals(dir.resolve("x") + ": error: cannot read: no such file",
            LftReader.read(dir.resolve("x"), T).diagnostics().get(0).toString());
    }

    @Test
    void rowLimits()
    {
        final String head = "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n";
        assertEquals(List.of("lfts:2:1: error: lid 0xc000 is not a unicast LID (0x0001..0xBFFF)"),
            findings(head + "0xc000 001 # x\n"));
        assertEquals(List.of("lfts:2:1: error: lid 0x0000 is not a unicast LID (0x0001..0xBFFF)"),
            findings(head + "0x0000 001 # x\n"));
        assertEquals(List.of("lfts:2:1: error: lid 0x1FFFFFFFFFFFFFFFF is not a unicast LID (0x0001..0xBFFF)"),
            findings(head + "0x1FFFFFFFFFFFFFFFF 001 # more than 64 bits, as written\n"));
        assertEquals(List.of("lfts:2:8: error: port 9223372036854775808 is out of range: a forwarding table's port " +
            "is 0..254, or 255 for no route"), findings(head + "0x0004 9223372036854775808\n"));
        assertEquals(List.of("lfts:2:10: error: port 4294967296 is out of range: a forwarding table's port is 0..254, " +
            "or 255 for no route"), findings(head + "0x0004   004294967296 # not wrapped to 2147483647 or 0\n"));
        assertEquals(List.of("lfts:2:8: error: port 256 is out of range: a forwarding table's port is 0..254, or 255 " +
            "for no route"), findings(head + "0x0004 256\n"));
        assertEquals(List.of(), findings(head + "0xbfff 001 # a unicast LID no port answers to: passed over\n"));
        assertEquals(List.of(), findings(head + "0x0002 255 # 255: no route\n"));
        assertEquals(List.of("lfts:2:8: error: port 9 of \"Switch1\" has no cable in the topology; the dump and the topology disagree"),
            findings(head + "0x0002 009 # above the 8 ports\n"));
        assertEquals(List.of(), findings(head + "0x0002 001\n"), "the comment is optional");
        assertEquals(List.of("lfts:1:1: error: table row before any 'Unicast lids ... of switch' heading"),
            findings("0x0002 001\n"));
        assertEquals(List.of("lfts:2:4097: error: line longer than 4096 bytes, the most vlink reads (files up to " +
            "67108864 bytes): check that this is the file you meant"),
            findings(head + "#" + "x".repeat(TextLines.MAX_LINE_BYTES) + "\n" + "0x0000 001\n"), "one line: the rest unread");
        assertEquals(List.of("lfts:2:1: error: unknown line; an LFT dump has 'Unicast lids ...' headings and '0xLID PORT' rows"),
            findings(head + "#" + "x".repeat(TextLines.MAX_LINE_BYTES - 1) + "\n"),
            "a line at the limit is read (and is not a row)");
    }

    @Test
    void aSecondTableForOneSwitchAndRowsOfARefusedTable()
    {
        final String head = "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n";
        assertEquals(List.of("lfts:3:1: error: a second table for \"Switch1\"; each switch has one"),
            findings(head + "0x0002 001\n" + head + "0x0002 001\n"));
        assertEquals(List.of("lfts:1:1: error: no switch of the topology has guid 0x0000000000200007 or lid 7; was the " +
            "dump taken from this fabric?"), findings(head.replace("Lid 1", "Lid 7").replace("200000", "200007") +
            "0x0003 009\n"), "the rows of an unknown switch are passed over");
    }

    @Test
    void aRowGivenTwiceIsAnErrorSoAnEndlessRepeatKeepsNothing()
    {
        final String head = "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n";
        assertEquals(List.of("lfts:3:1: error: lid 0x0002 has a row already in the table of \"Switch1\"; a table " +
            "gives each LID once"), findings(head + "0x0002 001\n0x0002 001\n"));
        assertEquals(List.of(), findings(head + "0x0002 255\n0x0002 001\n"), "no route, then a route: one row kept");
    }

    @Test
    void lfCrlfAndCrOnlyDumpsReadAlike()
    {
        final Routes lf = LftReader.parse("lfts", LftReaderTest.OPENSM_DUMP, T).orThrow();
        for (final String ending : new String[] {"\r\n", "\r"})
        {
            final Result<Routes> other = LftReader.parse("lfts", LftReaderTest.OPENSM_DUMP.replace("\n", ending), T);
            assertEquals(List.of(), other.diagnostics(), ending::toString);
            for (final Topology.Node sw : T.switches())
            {
                assertArrayEquals(lf.lft(sw), other.orThrow().lft(sw), sw.id());
            }
        }
    }

    @Test
    void numbersOfAHeadingTooLargeForALongAreReportedAsWritten()
    {
        assertEquals(List.of("lfts:1:45: error: guid 0x10000000000200000 is longer than 64 bits; was the dump cut or " +
            "joined?"), findings("Unicast lids [0x0-0x6] of switch Lid 1 guid 0x10000000000200000 ('Switch1'):\n" +
            "0x0002 001\n"));
        assertEquals(List.of("lfts:1:1: error: no switch of the topology has guid 0x0000000000200007 or lid " +
            "99999999999999999999; was the dump taken from this fabric?"), findings("Unicast lids [0x0-0x6] of switch " +
            "Lid 99999999999999999999 guid 0x0000000000200007 ('Switch1'):\n"));
    }

    @Test
    void findingsComeInLineOrder()
    {
        final String head = "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n";
        // the walk error (found after reading) on line 2 is reported before the row error of line 3
        final List<String> found = findings(head + "0x0004 005\n0x0003 009\n");
        assertEquals(2, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("lfts:2:"), found.toString());
        assertTrue(found.get(1).startsWith("lfts:3:"), found.toString());
    }

    @Test
    void directRoutedHeadingsAreMatchedByGuid()
    {
        final Topology t = TopologyFixtures.parse(TopologyReaderTest.IBNETDISCOVER).orThrow();
        final String dump = "Unicast lids [0x1-0x9] of switch DR path slid 0; dlid 0; 0,1 guid 0x0002c902004a5ad8 (MF0):\n" +
            "0x0005 001 : (Channel Adapter portguid 0x0002c903000e8f4d: 'node1 HCA-1')\n";
        final Result<Routes> result = LftReader.parse("ibroute", dump, t);
        assertEquals(List.of(), result.diagnostics());
        assertEquals(1, result.orThrow().outPort(t.node("S-0002c902004a5ad8"), 5));
        assertFalse(LftReader.parse("ibroute", dump.replace("Lid", "lid").replace("guid 0x0002c902004a5ad8", "guid 0x9"), t).ok());
    }
}
