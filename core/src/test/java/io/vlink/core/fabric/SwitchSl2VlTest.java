package io.vlink.core.fabric;

import io.vlink.core.qos.QosConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SwitchSl2VlTest
{
    @Test
    void externalOutputsUseTheSweTablePort0UsesTheSw0Table()
    {
        final QosConfig swe = QosConfig.builder().dataVls(4).sl2vl(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15).build();
        final QosConfig sw0 = QosConfig.builder().dataVls(4).sl2vl(3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3).build();
        final SwitchSl2Vl map = new SwitchSl2Vl(4, swe, sw0, new int[]{4, 4, 4, 2});
        assertEquals(1, map.map(1, 2, 5), "SL 5 -> VL 1 on an external output");
        assertEquals(3, map.map(2, 1, 3));
        assertEquals(3, map.map(1, 0, 5), "every SL -> VL 3 towards port 0");
        assertEquals(SwitchSl2Vl.DISCARD, map.map(1, 2, 15), "an SL mapped to VL15 is discarded");
        assertEquals(SwitchSl2Vl.DISCARD, map.map(1, 3, 2), "VL 2 is above output 3's two operational VLs");
        assertEquals(1, map.map(1, 3, 1));
        assertEquals(0, map.map(3, 3, 0), "the map is per (in, out) pair, in == out included");
    }
}
