package io.vlink.nic.link;

import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.SystemEpochClock;

import java.io.File;

/**
 * The counters of two ports (0 and 1, 8 data VLs) in one counters file, for the link tests: each end of a link writes
 * its port's {@link LinkCounters}, the test reads the port's {@link PortCounters}.
 */
final class TwoPorts implements AutoCloseable
{
    final CountersFile countersFile;
    final LinkCounters linkA;
    final LinkCounters linkB;
    final PortCounters countersA;
    final PortCounters countersB;

    /**
     * @param dir  where the counters file goes.
     * @param name its name.
     */
    TwoPorts(final File dir, final String name)
    {
        countersFile = CountersFile.create(dir, name, 512, 4096, SystemEpochClock.INSTANCE);
        final PortCounterSet setA = new PortCounterSet(countersFile, 0, 8);
        final PortCounterSet setB = new PortCounterSet(countersFile, 1, 8);
        linkA = setA.link();
        linkB = setB.link();
        countersA = setA.view();
        countersB = setB.view();
    }

    @Override
    public void close()
    {
        countersFile.close();
    }
}
