package io.vlink.tools.soak;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultSpecTest
{
    @Test
    void readsEveryKindOfCliMd()
    {
        final FaultSpec spec = FaultSpec.parse("drop-data=0.001,corrupt-data=0.002,drop-fcp=0.01,corrupt-fcp=0.02," +
            "stall-receiver=50,vl15-flood=100,retable=3,link-bounce=2");
        assertEquals(0.001, spec.probability(FaultKind.DROP_DATA));
        assertEquals(0.002, spec.probability(FaultKind.CORRUPT_DATA));
        assertEquals(0.01, spec.probability(FaultKind.DROP_FCP));
        assertEquals(0.02, spec.probability(FaultKind.CORRUPT_FCP));
        assertEquals(50, spec.count(FaultKind.STALL_RECEIVER));
        assertEquals(100, spec.count(FaultKind.VL15_FLOOD));
        assertEquals(3, spec.count(FaultKind.RETABLE));
        assertEquals(2, spec.count(FaultKind.LINK_BOUNCE));
        assertTrue(spec.any());
        assertEquals(spec.toString(), FaultSpec.parse(spec.toString()).toString());
    }

    @Test
    void nothingGivenIsNoFault()
    {
        assertFalse(FaultSpec.parse("").any());
        assertFalse(FaultSpec.parse(null).any());
        assertFalse(FaultSpec.parse("drop-data=0").isOn(FaultKind.DROP_DATA));
        assertEquals(0, FaultSpec.none().count(FaultKind.RETABLE));
    }

    @Test
    void whitespaceAroundItemsIsAllowed()
    {
        assertEquals(0.5, FaultSpec.parse(" drop-fcp = 0.5 , retable=1").probability(FaultKind.DROP_FCP));
    }

    @Test
    void mistakesAreRefusedWithTheFix()
    {
        assertMessage("unknown kind 'drop-packets'; kinds: drop-data=P", "drop-packets=0.1");
        assertMessage("'1.5' is out of range; drop-data=P takes a probability from 0 to 1", "drop-data=1.5");
        assertMessage("'-0.1' is out of range", "corrupt-fcp=-0.1");
        assertMessage("'often' is not a number; retable=N takes a whole number", "retable=often");
        assertMessage("'2.5' is not a number; link-bounce=N", "link-bounce=2.5");
        assertMessage("'1000' is out of range; stall-receiver=MS takes milliseconds from 0 to 999",
            "stall-receiver=1000");
        assertMessage("'drop-data' has no value; write KIND=VALUE", "drop-data");
        assertMessage("'retable' is given twice", "retable=1,retable=2");
        assertMessage("empty item", "retable=1,,drop-data=0.1");
    }

    private static void assertMessage(final String expectedPart, final String spec)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> FaultSpec.parse(spec));
        assertTrue(ex.getMessage().contains(expectedPart), () -> "message: " + ex.getMessage());
    }

    @Test
    void countOfAProbabilityIsMisuse()
    {
        assertThrows(IllegalArgumentException.class, () -> FaultSpec.none().count(FaultKind.DROP_DATA));
        assertThrows(IllegalArgumentException.class, () -> FaultSpec.none().probability(FaultKind.RETABLE));
    }
}
