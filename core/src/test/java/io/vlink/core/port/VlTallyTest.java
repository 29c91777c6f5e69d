package io.vlink.core.port;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class VlTallyTest
{
    @Test
    void addsWhatWasCountedOncePerPublishToEachVlsCounters()
    {
        final UnsafeBuffer values = new UnsafeBuffer(ByteBuffer.allocateDirect(2 * 16 * CountersReader.COUNTER_LENGTH));
        final AtomicCounter[] packets = new AtomicCounter[16];
        final AtomicCounter[] bytes = new AtomicCounter[16];
        for (int vl = 0; vl < 16; vl++)
        {
            // a port with data VLs 0..3 and VL15: no counters for the others
            if (vl < 4 || vl == 15)
            {
                packets[vl] = new AtomicCounter(values, 2 * vl);
                bytes[vl] = new AtomicCounter(values, 2 * vl + 1);
            }
        }
        final VlTally tally = new VlTally(packets, bytes);

        tally.add(3, 64);
        tally.add(3, 4096);
        tally.add(15, 256);
        assertEquals(0, packets[3].get(), "nothing written before the end of the duty cycle");

        tally.publish();
        assertEquals(2, packets[3].get());
        assertEquals(4160, bytes[3].get());
        assertEquals(1, packets[15].get());
        assertEquals(256, bytes[15].get());
        assertEquals(0, packets[0].get());

        tally.publish();
        assertEquals(2, packets[3].get(), "a second publish with nothing counted adds nothing");

        tally.add(3, 128);
        tally.publish();
        assertEquals(3, packets[3].get());
        assertEquals(4288, bytes[3].get());
        assertEquals(1, packets[15].get());
    }
}
