package io.vlink.core.inject;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What an {@link InjectionConfig} takes and refuses (docs/injection.md): marks need {@code 0 <= low < high} for
 * the IDC pair and each injector's own, a class must exist, every setter chains, and a copy is independent.
 */
class InjectionConfigLimitsTest
{
    @Test
    void everyMarkPairNeedsLowBelowHigh()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 2);
        assertThrows(IllegalArgumentException.class, () -> config.idcMarks(3, 3));
        assertThrows(IllegalArgumentException.class, () -> config.idcMarks(-1, 3));
        assertThrows(IllegalArgumentException.class, () -> config.marks(1, 4, 4));
        assertThrows(IllegalArgumentException.class, () -> config.marks(1, -1, 4));
        assertThrows(IllegalArgumentException.class, () -> config.marks(5, 2));
        assertSame(config, config.idcMarks(0, 1));
        assertSame(config, config.marks(1, 0, 1));
    }

    @Test
    void anInjectorJoinsOnlyAClassThatExists()
    {
        final InjectionConfig config = new InjectionConfig().shape(3, 2);
        assertSame(config, config.injectorClass(0, 1));
        assertSame(config, config.injectorClass(2, 0));
        assertThrows(IllegalArgumentException.class, () -> config.injectorClass(1, 2));
        assertThrows(IllegalArgumentException.class, () -> config.injectorClass(1, -1));
        assertEquals(1, new CellBuffer(config).injectorClass(0));
    }

    @Test
    void settersChainAndGettersSayWhatWasSet()
    {
        final InjectionConfig config = new InjectionConfig().shape(4, 3).cellSize(128).idcThreshold(96);
        assertSame(config, config.priorityTimerNs(2, 500));
        assertEquals(128, config.cellSize());
        assertEquals(3, config.classes());
        assertEquals(4, config.injectors());
        assertEquals(96, config.idcThreshold());
        assertEquals(true, config.isIdc(96));
        assertEquals(false, config.isIdc(97));
    }

    @Test
    void aCopyIsIndependentOfItsOriginal()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 2).marks(1, 1, 2);
        final InjectionConfig copy = config.copy();
        assertNotSame(config, copy);
        config.marks(1, 3, 6).injectorClass(0, 1).cellSize(512);
        assertEquals(256, copy.cellSize());
        assertEquals(0, new CellBuffer(copy).injectorClass(0), "the copy keeps injector 0 in class 0");
        assertEquals(2, copy.injectors());
    }
}
