package io.vlink.core.qos;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SmpqueryFormatTest
{
    @Test
    void specExampleTables()
    {
        final QosConfig config = QosConfig.builder().dataVls(8).vlarbLow("1:28,2:4").vlarbHigh("0:4").build();
        assertEquals(String.join("\n",
            "# VLArbitration tables: ca LowCap 8 HighCap 8",
            "# Low priority VL Arbitration Table:",
            "VL    : |0x1 |0x2 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "WEIGHT: |0x1C|0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "# High priority VL Arbitration Table:",
            "VL    : |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "WEIGHT: |0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            ""), SmpqueryFormat.vlarb(new StringBuilder(), config, "ca", 8, 8).toString());
    }

    @Test
    void aboveThirtyTwoEntriesTheSecondHalfFollowsAfterAnEmptyLine()
    {
        final StringBuilder entries = new StringBuilder();
        for (int i = 0; i < 40; i++)
        {
            entries.append(i == 0 ? "" : ",").append(i % 15).append(':').append(255 - i);
        }
        final QosConfig config = QosConfig.builder().vlarbLow(entries.toString()).build();
        final String[] lines = SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 40, 16).toString().split("\n", -1);
        assertEquals("# VLArbitration tables: p LowCap 40 HighCap 16", lines[0]);
        assertEquals(32, lines[2].chars().filter(c -> c == 'x').count());
        assertEquals("WEIGHT: |0xFF|0xFE|", lines[3].substring(0, 19));
        assertEquals("", lines[4]);
        assertEquals("VL    : |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |0x8 |0x9 |", lines[5]);
        assertEquals("WEIGHT: |0xDF|0xDE|0xDD|0xDC|0xDB|0xDA|0xD9|0xD8|", lines[6]);
        assertEquals("# High priority VL Arbitration Table:", lines[7]);
    }

    @Test
    void capRules()
    {
        final QosConfig config = QosConfig.opensmDefaults(15);
        assertThrows(IllegalArgumentException.class,
            () -> SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 8, 16));
        assertThrows(IllegalArgumentException.class,
            () -> SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 65, 16));
        assertTrue(SmpqueryFormat.vlarb(new StringBuilder(), config, "p").toString()
            .startsWith("# VLArbitration tables: p LowCap 15 HighCap 15\n"), "a table's own size by default");
    }

    @Test
    void capsAtTheirLimits()
    {
        final QosConfig config = QosConfig.builder().vlarbLow("0:1,1:1,2:1,3:1,4:1,5:1,6:1,7:1").vlarbHigh("0:1").build();
        assertTrue(SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 8, 64).toString()
            .contains("HighCap 64"), "a cap equal to the entries, and the largest cap");
        assertThrows(IllegalArgumentException.class, () -> SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 8, 0),
            "the high table is checked too");
        final String[] lines = SmpqueryFormat.vlarb(new StringBuilder(), config, "p", 32, 8).toString().split("\n", -1);
        assertEquals("# High priority VL Arbitration Table:", lines[4], "32 entries: one block, no empty one after");
    }

    @Test
    void aSwitchPortHasARowPerInputPort()
    {
        final String text = SmpqueryFormat.sl2vl(new StringBuilder(), QosConfig.opensmDefaults(8), "Lid 1", 12, 3)
            .toString();
        final String[] lines = text.split("\n");
        assertEquals(15, lines.length);
        assertEquals("ports: in  0, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|", lines[2]);
        assertEquals("ports: in 12, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|", lines[14]);
    }

    @Test
    void sl2vlAsSmpqueryPrintsIt()
    {
        assertEquals(String.join("\n",
            "# SL2VL table: ca",
            "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|",
            "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|",
            ""), SmpqueryFormat.sl2vl(new StringBuilder(), QosConfig.opensmDefaults(15), "ca").toString());
    }
}
