package io.vlink.core.inject;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The numbers of docs/injection.md, "Guarantees", worked out by hand. */
class InjectionBoundsTest
{
    /** examples/inject-full-buffer.inj: 57 shared cells, 4 classes of weights 26, 25, 17, 13, P = 32, D = 7. */
    private static InjectionConfig fullBuffer()
    {
        final InjectionConfig config = new InjectionConfig().shape(5, 4).cellSize(64).sharedCells(57);
        final int[] weights = {26, 25, 17, 13};
        for (int k = 0; k < 4; k++)
        {
            config.bufferClass(k, 0, Integer.MAX_VALUE, weights[k], k < 2 ? InjectionConfig.Policy.ROUND_ROBIN :
                InjectionConfig.Policy.FIRST_AVAILABLE);
        }
        return config.injectorClass(0, 0).injectorClass(1, 1).injectorClass(2, 2).injectorClass(3, 3)
            .injectorClass(4, 1);
    }

    @Test
    void theWaitsOfAFullBufferWithoutReservedCells()
    {
        final InjectionConfig config = fullBuffer();
        // class 0: r = ceil(32 / 26) = 2, S = 55, n = 1: N = 1 + 2 * 55 = 111, X = 32 + 2 * (55 + 3 * 31) = 328,
        // 111 + 1 + floor((328 + 62) / 7) = 167; any wait: + ceil((57 + 31) / 7) = 13
        assertEquals(167, InjectionBounds.highWait(config, 0, 32, 7));
        assertEquals(180, InjectionBounds.anyWait(config, 0, 32, 7));
        // class 1, two injectors under round robin: N = 2 (1 + 2 * 56) = 226, X = 2 (32 + 2 (56 + 93)) = 660
        assertEquals(330, InjectionBounds.highWait(config, 1, 32, 7));
        assertEquals(330, InjectionBounds.highWait(config, 4, 32, 7));
        // class 2, first available, its first injector: N = 1 + 2 * 64 = 129, X = 32 + 2 (64 + 93) = 346
        assertEquals(188, InjectionBounds.highWait(config, 2, 32, 7));
        // class 3: r = ceil(32 / 13) = 3, S = 68: N = 205, X = 32 + 3 (68 + 93) = 515, 206 + floor(577 / 7)
        assertEquals(288, InjectionBounds.highWait(config, 3, 32, 7));
        assertEquals(301, InjectionBounds.anyWait(config, 3, 32, 7));
    }

    @Test
    void withReservedCellsEachHeldTurnAlsoWaitsForTheirDrain()
    {
        final InjectionConfig config = fullBuffer();
        config.bufferClass(3, 7, Integer.MAX_VALUE, 13, InjectionConfig.Policy.FIRST_AVAILABLE);
        // R = 7: class 0's N = 111 packets, each held at most ceil((63 + 7) / 7) = 10 steps: 111 * 11
        assertEquals(1221, InjectionBounds.highWait(config, 0, 32, 7));
        config.bufferClass(3, 8, Integer.MAX_VALUE, 13, InjectionConfig.Policy.FIRST_AVAILABLE);
        assertEquals(1332, InjectionBounds.highWait(config, 0, 32, 7), "ceil(71 / 7) = 11: 111 * 12");
        // R = 3, C = 60: + ceil((60 + 31) / 7) = 13
        config.bufferClass(3, 3, Integer.MAX_VALUE, 13, InjectionConfig.Policy.FIRST_AVAILABLE);
        assertEquals(1221 + 13, InjectionBounds.anyWait(config, 0, 32, 7));
        config.bufferClass(3, 4, Integer.MAX_VALUE, 13, InjectionConfig.Policy.FIRST_AVAILABLE);
        assertEquals(1221 + 14, InjectionBounds.anyWait(config, 0, 32, 7), "ceil(92 / 7) = 14");
    }

    @Test
    void aClassInDebtWaitsCeilOfThePacketOverItsWeightVisits()
    {
        final InjectionConfig config = fullBuffer();
        // weight 16 divides P = 32: r = 2 exactly (S = 25 + 17 + 13 = 55, as with 26): the numbers of class 0 above
        config.classWeight(0, 16);
        assertEquals(167, InjectionBounds.highWait(config, 0, 32, 7));
        // weight 32: r = 1: N = 1 + 55 = 56, X = 32 + 55 + 93 = 180, 57 + floor(242 / 7) = 91
        config.classWeight(0, 32);
        assertEquals(91, InjectionBounds.highWait(config, 0, 32, 7));
    }

    @Test
    void aFirstAvailableClassBoundsItsFirstInjectorOnly()
    {
        final InjectionConfig config = fullBuffer().injectorClass(1, 0);
        config.bufferClass(0, 0, Integer.MAX_VALUE, 26, InjectionConfig.Policy.FIRST_AVAILABLE);
        assertEquals(167, InjectionBounds.highWait(config, 0, 32, 7), "injector 0 comes first in class 0");
        assertEquals(InjectionBounds.UNBOUNDED, InjectionBounds.highWait(config, 1, 32, 7));
    }

    @Test
    void noBoundForAFirstAvailableInjectorAfterTheFirstOrClassesThatCannotTakeThePool()
    {
        final InjectionConfig config = fullBuffer().injectorClass(4, 2);
        assertEquals(InjectionBounds.UNBOUNDED, InjectionBounds.highWait(config, 4, 32, 7));
        assertEquals(InjectionBounds.UNBOUNDED, InjectionBounds.anyWait(config, 4, 32, 7));
        assertEquals(188, InjectionBounds.highWait(config, 2, 32, 7), "the first one keeps its bound");
        config.bufferClass(0, 0, 56, 26, InjectionConfig.Policy.ROUND_ROBIN);
        assertEquals(InjectionBounds.UNBOUNDED, InjectionBounds.highWait(config, 2, 32, 7));
        config.bufferClass(0, 0, 57, 26, InjectionConfig.Policy.ROUND_ROBIN);
        assertEquals(188, InjectionBounds.highWait(config, 2, 32, 7), "a limit of the whole pool is no limit");
    }

    @Test
    void theShareSlackIsTwoWeightsAndAnOverdrawSpreadOverTheClasses()
    {
        final InjectionConfig config = fullBuffer();
        // 2W + (P - 1) max(1, K W / total): 52 + ceil(4 * 26 * 31 / 81) = 52 + 40
        assertEquals(92, InjectionBounds.shareSlack(config, 0, 32));
        assertEquals(89, InjectionBounds.shareSlack(config, 1, 32));
        assertEquals(65, InjectionBounds.shareSlack(config, 2, 32));
        // class 3: 4 * 13 * 31 / 81 = 19.9, below P - 1 = 31
        assertEquals(57, InjectionBounds.shareSlack(config, 3, 32));
        assertEquals(2, InjectionBounds.shareSlack(new InjectionConfig().shape(1, 1).classWeight(0, 1), 0, 1));
    }
}
