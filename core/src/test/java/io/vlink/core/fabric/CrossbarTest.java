package io.vlink.core.fabric;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CrossbarTest
{
    @Test
    void inputsCompetingForOneOutputVlTakeTurnsInRoundRobin()
    {
        final Crossbar x = new Crossbar(5, 16);
        final List<Integer> order = new ArrayList<>();
        for (final int input : new int[]{1, 2, 4})
        {
            x.head(x.fifo(input, 0), 3, 0, 64, 0);
        }
        for (int i = 0; i < 6; i++)
        {
            final int fifo = x.take(3, 0);
            order.add(x.inputOf(fifo));
            x.head(fifo, 3, 0, 64, 0);         // each input always has another packet for the same output
        }
        assertEquals(List.of(1, 2, 4, 1, 2, 4), order);
    }

    @Test
    void theRoundRobinResumesAfterTheLastPickNotFromTheStart()
    {
        final Crossbar x = new Crossbar(5, 16);
        x.head(x.fifo(1, 0), 3, 0, 64, 0);
        x.head(x.fifo(2, 0), 3, 0, 64, 0);
        assertEquals(x.fifo(1, 0), x.take(3, 0));
        x.head(x.fifo(1, 0), 3, 0, 64, 0);     // input 1 comes back at once: input 2 still goes first
        assertEquals(x.fifo(2, 0), x.take(3, 0));
        assertEquals(x.fifo(1, 0), x.take(3, 0));
        assertEquals(Crossbar.NONE, x.take(3, 0));
    }

    @Test
    void headSizeIsTheSizeOfThePacketTakeWouldPick()
    {
        final Crossbar x = new Crossbar(4, 16);
        assertEquals(0, x.headSize(2, 5));
        x.head(x.fifo(1, 3), 2, 5, 256, 0);
        x.head(x.fifo(3, 0), 2, 5, 4160, 0);
        assertEquals(256, x.headSize(2, 5));
        x.take(2, 5);
        assertEquals(4160, x.headSize(2, 5));
        assertEquals(0, x.headSize(2, 4), "another VL of the same output has nothing");
        assertEquals(0, x.headSize(1, 5), "the same VL of another output has nothing");
    }

    @Test
    void oneFifoFromSeveralInputVlsOfOneInputCompetesAsSeparateFifos()
    {
        final Crossbar x = new Crossbar(3, 16);
        x.head(x.fifo(1, 0), 2, 1, 64, 0);
        x.head(x.fifo(1, 7), 2, 1, 128, 0);
        assertEquals(x.fifo(1, 0), x.take(2, 1));
        assertEquals(x.fifo(1, 7), x.take(2, 1));
        assertEquals(1, x.inputOf(x.fifo(1, 7)));
        assertEquals(7, x.vlOf(x.fifo(1, 7)));
    }

    @Test
    void aFifoHasOneHeadAndARemovedHeadStopsCompeting()
    {
        final Crossbar x = new Crossbar(3, 16);
        x.head(x.fifo(1, 0), 2, 0, 64, 0);
        assertThrows(IllegalStateException.class, () -> x.head(x.fifo(1, 0), 2, 0, 64, 0));
        assertTrue(x.isWaiting(2, 0));
        x.remove(x.fifo(1, 0));
        assertFalse(x.isWaiting(2, 0));
        assertEquals(Crossbar.NONE, x.take(2, 0));
        assertEquals(Crossbar.NONE, x.targetOf(x.fifo(1, 0)));
    }

    @Test
    void headOfQueueLifetime()
    {
        final Crossbar x = new Crossbar(3, 16);
        x.head(x.fifo(1, 0), 2, 0, 64, 1_000);
        x.head(x.fifo(2, 0), 2, 0, 64, 5_000);
        assertEquals(Crossbar.NONE, x.expired(100_000, Long.MAX_VALUE), "infinite by default");
        assertEquals(Crossbar.NONE, x.expired(3_000, 2_000), "waited exactly the limit: not yet");
        assertEquals(x.fifo(1, 0), x.expired(3_001, 2_000));
        x.remove(x.fifo(1, 0));
        assertEquals(Crossbar.NONE, x.expired(7_000, 2_000));
        assertEquals(x.fifo(2, 0), x.expired(7_001, 2_000));
    }

    @Test
    void agreesWithAPlainRoundRobinModelOverRandomOperations()
    {
        final Random random = new Random(42);
        for (int round = 0; round < 50; round++)
        {
            final int ports = 2 + random.nextInt(40);       // up to 41 ports: several bitmap words
            final int vls = 16;
            final Crossbar x = new Crossbar(ports, vls);
            final int[] target = new int[ports * vls];
            java.util.Arrays.fill(target, -1);
            final int[] last = new int[ports * vls];
            java.util.Arrays.fill(last, ports * vls - 1);
            for (int op = 0; op < 2_000; op++)
            {
                final int fifo = random.nextInt(ports * vls);
                final int out = random.nextInt(ports);
                final int vl = random.nextInt(vls);
                if (random.nextBoolean() && target[fifo] == -1)
                {
                    x.head(fifo, out, vl, 64, 0);
                    target[fifo] = out * vls + vl;
                }
                else
                {
                    final int t = out * vls + vl;
                    int expected = Crossbar.NONE;
                    for (int i = 1; i <= ports * vls; i++)
                    {
                        final int f = (last[t] + i) % (ports * vls);
                        if (target[f] == t)
                        {
                            expected = f;
                            break;
                        }
                    }
                    assertEquals(expected, x.take(out, vl));
                    if (expected != Crossbar.NONE)
                    {
                        last[t] = expected;
                        target[expected] = -1;
                    }
                }
            }
        }
    }

    @Test
    void sizesAreChecked()
    {
        assertThrows(IllegalArgumentException.class, () -> new Crossbar(0, 16));
        assertThrows(IllegalArgumentException.class, () -> new Crossbar(4, 0));
        final Crossbar one = new Crossbar(1, 1);
        one.head(0, 0, 0, 64, 0);
        assertEquals(0, one.take(0, 0));
    }

    @Test
    void isWaitingLooksAtEveryWordOfItsOwnOutputVlOnly()
    {
        final Crossbar x = new Crossbar(10, 16);          // 160 FIFOs: three words per (output, VL)
        x.head(x.fifo(9, 15), 4, 2, 64, 0);               // the last FIFO: the third word
        assertTrue(x.isWaiting(4, 2));
        for (int out = 0; out < 10; out++)
        {
            for (int vl = 0; vl < 16; vl++)
            {
                assertEquals(out == 4 && vl == 2, x.isWaiting(out, vl), out + "/" + vl);
            }
        }
        assertEquals(4 * 16 + 2, x.targetOf(x.fifo(9, 15)));
        assertEquals(x.fifo(9, 15), x.take(4, 2));
        assertFalse(x.isWaiting(4, 2));
    }
}
