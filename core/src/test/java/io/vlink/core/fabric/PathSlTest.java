package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.credit.LineRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathSlTest
{
    /** Four switches in a ring (LIDs 1..4), a CA on each (LIDs 5..8). */
    private static final String RING = String.join("\n",
        "Switch 3 \"S0\"", "[1] \"S1\"[2]", "[2] \"S3\"[1]", "[3] \"H0\"[1]", "",
        "Switch 3 \"S1\"", "[1] \"S2\"[2]", "[2] \"S0\"[1]", "[3] \"H1\"[1]", "",
        "Switch 3 \"S2\"", "[1] \"S3\"[2]", "[2] \"S1\"[1]", "[3] \"H2\"[1]", "",
        "Switch 3 \"S3\"", "[1] \"S0\"[2]", "[2] \"S2\"[1]", "[3] \"H3\"[1]", "",
        "Ca 1 \"H0\"", "[1] \"S0\"[3]", "",
        "Ca 1 \"H1\"", "[1] \"S1\"[3]", "",
        "Ca 1 \"H2\"", "[1] \"S2\"[3]", "",
        "Ca 1 \"H3\"", "[1] \"S3\"[3]", "");

    @TempDir
    Path dir;

    private static Topology ring()
    {
        return TopologyReader.parse("ring", RING, LineRate.EDR_4X).orThrow();
    }

    @Test
    void aPathCrossesTheDatelineCableInEitherDirectionAndOnlyThen()
    {
        final Topology t = ring();
        final Routes routes = MinHopRouting.route(t);
        final Topology.Node s0 = t.node("S0");
        // H0 -> H1 crosses S0[1]-S1[2]; H1 -> H0 crosses it the other way; H2 -> H3 does not
        assertTrue(PathSl.crosses(routes, t.node("H0"), 1, t.node("H1").baseLid(1), s0, 1));
        assertTrue(PathSl.crosses(routes, t.node("H1"), 1, t.node("H0").baseLid(1), s0, 1));
        assertFalse(PathSl.crosses(routes, t.node("H2"), 1, t.node("H3").baseLid(1), s0, 1));
        // to a CA on the same switch: no switch-to-switch cable at all
        assertFalse(PathSl.crosses(routes, t.node("H0"), 1, s0.baseLid(0), s0, 1));
    }

    @Test
    void aMapGivesEachListedPairItsSl() throws IOException
    {
        final Path file = dir.resolve("sl.map");
        Files.writeString(file, "# SRC DST SL\n5 6 1\n0x6 0x5 2   # hex LIDs\n\n");
        final Result<PathSl> read = PathSl.readMap(file, ring());
        final PathSl map = read.value();
        assertNotNull(map, read::toString);
        assertEquals(2, map.size());
        assertEquals(1, map.sl(5, 6));
        assertEquals(2, map.sl(6, 5));
        assertEquals(PathSl.NONE, map.sl(5, 7));
    }

    @Test
    void everyMistakeOfAMapIsReportedAtItsLineAndColumn() throws IOException
    {
        final Path file = dir.resolve("bad.map");
        Files.writeString(file, "5 6\n5 99 1\n5 6 16\n5 6 1\n5 6 0\nx 6 1\n");
        final Result<PathSl> read = PathSl.readMap(file, ring());
        assertNull(read.value());
        final List<String> lines = new ArrayList<>();
        for (final Diagnostic d : read.diagnostics())
        {
            lines.add(d.toString());
        }
        final String f = file.toString();
        assertEquals(List.of(
            f + ":1:1: error: expected 'SRC_LID DST_LID SL', found 2 fields; write one pair per line",
            f + ":2:3: error: no port of the topology has LID 99; use a LID 'vlink fabric check' lists",
            f + ":3:5: error: SL '16' is not a number from 0 to 15",
            f + ":5:1: error: the pair 5 6 has an SL already at line 4; give each pair once",
            f + ":6:1: error: source LID 'x' is not a number from 1 to 49151"), lines);
    }
}
