package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

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
        final LftReader.Result ok = LftReader.read(file, T);
        assertTrue(ok.ok());
        assertEquals(5, ok.orThrow().outPort(T.node("Switch1"), 6));
        assertEquals(ok.routes(), ok.orThrow());
        final LftReader.Result directory = LftReader.read(dir, T);
        assertEquals(List.of(dir + ": error: cannot read: is a directory"),
            directory.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertNull(directory.routes());
        assertThrows(ConfigException.class, directory::orThrow);
        assertEquals(dir.resolve("x") + ": error: cannot read: no such file",
            LftReader.read(dir.resolve("x"), T).diagnostics().get(0).toString());
    }

    @Test
    void rowLimits()
    {
        final String head = "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n";
        assertEquals(List.of("lfts:2:1: error: lid 49152 is not a unicast LID"), findings(head + "0xc000 001 # x\n"));
        assertEquals(List.of("lfts:2:1: error: lid 0 is not a unicast LID"), findings(head + "0x0000 001 # x\n"));
        assertEquals(List.of(), findings(head + "0xbfff 001 # a unicast LID no port answers to: passed over\n"));
        assertEquals(List.of(), findings(head + "0x0002 255 # 255: no route\n"));
        assertEquals(List.of("lfts:2:8: error: port 9 of \"Switch1\" has no cable in the topology; the dump and the topology disagree"),
            findings(head + "0x0002 009 # above the 8 ports\n"));
        assertEquals(List.of(), findings(head + "0x0002 001\n"), "the comment is optional");
        assertEquals(List.of("lfts:1:1: error: table row before any 'Unicast lids ... of switch' heading"),
            findings("0x0002 001\n"));
        assertEquals(List.of("lfts:2:4097: error: line longer than 4096 characters"),
            findings(head + "#" + "x".repeat(4097) + "\n").subList(0, 1));
        assertEquals(List.of("lfts:2:1: error: unknown line; an LFT dump has 'Unicast lids ...' headings and '0xLID PORT' rows"),
            findings(head + "#" + "x".repeat(4095) + "\n"), "a line at the limit is read (and is not a row)");
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
        final LftReader.Result result = LftReader.parse("ibroute", dump, t);
        assertEquals(List.of(), result.diagnostics());
        assertEquals(1, result.orThrow().outPort(t.node("S-0002c902004a5ad8"), 5));
        assertFalse(LftReader.parse("ibroute", dump.replace("Lid", "lid").replace("guid 0x0002c902004a5ad8", "guid 0x9"), t).ok());
    }
}
