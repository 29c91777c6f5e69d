package io.vlink.core.qos;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QosConfigTest
{
    @Test
    void seedExampleIsTheSoakDefault()
    {
        final QosConfig config = QosConfig.seedExample();
        assertEquals(8, config.dataVls());
        assertEquals(6, config.highLimit());
        assertEquals("0:4", config.high().toString());
        assertEquals("0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64", config.low().toString());
        assertEquals(7, config.sl2vl(15));
        assertEquals(LowBurst.WEIGHT, config.lowBurst());
    }

    @Test
    void opensmDefaults()
    {
        final QosConfig config = QosConfig.opensmDefaults(15);
        assertEquals(0, config.highLimit());
        assertEquals(15, config.high().size());
        assertEquals(QosConfig.DEFAULT_VLARB_LOW, config.low().toString());
    }

    @Test
    void builderRefusesOutOfRangeValuesInsteadOfFoldingThem()
    {
        final IllegalArgumentException vl15 = assertThrows(IllegalArgumentException.class,
            () -> QosConfig.builder().vlarbLow("0:4,15:64"));
        assertTrue(vl15.getMessage().contains("VL 15 in entry '15:64' is out of range"), vl15::getMessage);
        assertThrows(IllegalArgumentException.class, () -> QosConfig.builder().vlarbHigh("0:300"));
        assertThrows(IllegalArgumentException.class, () -> QosConfig.builder().highLimit(256));
        assertThrows(IllegalArgumentException.class, () -> QosConfig.builder().dataVls(3));
        assertThrows(IllegalArgumentException.class, () -> QosConfig.builder().sl2vl(16));
        assertThrows(IllegalArgumentException.class, () -> VlArbTable.of(0, 4, 15, 1));
    }

    @Test
    void shortSl2vlMapsTheRestToVl0()
    {
        final QosConfig config = QosConfig.builder().sl2vl("3,2").build();
        assertEquals(3, config.sl2vl(0));
        assertEquals(2, config.sl2vl(1));
        assertEquals(0, config.sl2vl(15));
    }

    @Test
    void dataVlsFromTheCaps()
    {
        assertEquals(15, QosConfig.dataVlsFor(15, QosConfig.vlsOfMaxOpVls(5)));
        assertEquals(8, QosConfig.dataVlsFor(15, QosConfig.vlsOfMaxOpVls(4)));
        assertEquals(4, QosConfig.dataVlsFor(7, QosConfig.vlsOfMaxOpVls(5)));
        assertEquals(2, QosConfig.dataVlsFor(3, 15));
        assertEquals(1, QosConfig.dataVlsFor(1, 15));
    }

    @Test
    void tableValidity()
    {
        final VlArbTable table = VlArbTable.parse("0:0,1:4,9:4");
        assertTrue(!table.isValid(0, 8) && table.isValid(1, 8) && !table.isValid(2, 8) && table.isValid(2, 15));
    }
}
