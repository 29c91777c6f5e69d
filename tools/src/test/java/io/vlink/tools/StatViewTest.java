package io.vlink.tools;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink stat} on real counters files in a temporary directory: the link state by name, rates per second from
 * two looks (an injected clock, so the rates are exact), the filters, silent engines listed apart, and the redraw on a
 * terminal only.
 */
class StatViewTest
{
    @TempDir
    File dir;

    private final CachedNanoClock nanoClock = new CachedNanoClock();
    private final CachedEpochClock epochClock = new CachedEpochClock();
    private final StringWriter err = new StringWriter();

    private List<String> look(final StatView view)
    {
        final StringWriter out = new StringWriter();
        view.print(dir, new PrintWriter(out, true), new PrintWriter(err, true));
        return Arrays.asList(out.toString().split("\n"));
    }

    private static StatView.Filter filter()
    {
        return new StatView.Filter();
    }

    @Test
    void showsTheLinkStateByNameAndRatesFromTwoLooks()
    {
        epochClock.update(System.currentTimeMillis());
        try (CountersFile file = CountersFile.create(dir, "soak", 256, 64 * 1024, SystemEpochClock.INSTANCE))
        {
            final PortCounters port = new PortCounterSet(file, 0, 2).view();
            file.countersManager().setCounterValue(port.linkState().id(), LinkState.ACTIVE.code());
            file.countersManager().setCounterValue(port.txPackets(1).id(), 1000);
            file.countersManager().setCounterValue(port.rxFreeBlocks(1).id(), 2048);
            final StatView view = new StatView(filter(), epochClock, nanoClock);

            nanoClock.update(TimeUnit.SECONDS.toNanos(100));
            final List<String> first = look(view);
            assertTrue(first.contains("counter engine=soak port=0 vl=- name=link_state value=ACTIVE"), first.toString());
            assertTrue(first.contains("counter engine=soak port=0 vl=1 name=tx_packets value=1000"), first.toString());
            assertTrue(first.stream().noneMatch(line -> line.contains("per_sec")), "one look has no rate");

            file.countersManager().setCounterValue(port.txPackets(1).id(), 1750);
            file.countersManager().setCounterValue(port.fcpSent().id(), 3);
            file.countersManager().setCounterValue(port.rxFreeBlocks(1).id(), 1000);
            nanoClock.update(TimeUnit.SECONDS.toNanos(100) + TimeUnit.MILLISECONDS.toNanos(500));
            final List<String> second = look(view);
            assertTrue(second.contains("counter engine=soak port=0 vl=1 name=tx_packets value=1750 per_sec=1500"),
                second.toString());
            assertTrue(second.contains("counter engine=soak port=0 vl=- name=fcp_sent value=3 per_sec=6.0"),
                second.toString());
            assertTrue(second.contains("counter engine=soak port=0 vl=0 name=tx_packets value=0 per_sec=0.0"),
                second.toString());
            // gauges are levels: no rate
            assertTrue(second.contains("counter engine=soak port=0 vl=1 name=rx_free_blocks value=1000"),
                second.toString());
            assertTrue(second.contains("counter engine=soak port=0 vl=- name=link_state value=ACTIVE"),
                second.toString());
            assertTrue(CounterType.LINK_STATE.isGauge() && !CounterType.TX_PACKETS.isGauge());
        }
    }

    @Test
    void filtersByEngineAndCounterPrefix()
    {
        epochClock.update(System.currentTimeMillis());
        try (CountersFile a = CountersFile.create(dir, "alpha", 256, 64 * 1024, SystemEpochClock.INSTANCE);
            CountersFile b = CountersFile.create(dir, "beta", 256, 64 * 1024, SystemEpochClock.INSTANCE))
        {
            new PortCounterSet(a, 0, 1);
            new PortCounterSet(b, 0, 1);
            final StatView.Filter filter = filter();
            filter.engine = "beta";
            filter.counterPrefix = "tx_";
            final List<String> lines = look(new StatView(filter, epochClock, nanoClock));
            final List<String> counters = lines.stream().filter(l -> l.startsWith("counter ")).collect(Collectors.toList());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("engine name=beta ")), lines.toString());
            assertTrue(lines.stream().noneMatch(l -> l.contains("alpha")), lines.toString());
            assertFalse(counters.isEmpty());
            assertTrue(counters.stream().allMatch(l -> l.startsWith("counter engine=beta ") && l.contains(" name=tx_")),
                counters.toString());

            filter.engine = "gamma";
            assertTrue(look(new StatView(filter, epochClock, nanoClock)).contains("# no vlink engine named gamma"));

            // the positional filter is the same as --counter
            final Cli cli = Cli.run("stat", "--dir", dir.getPath(), "--engine", "alpha", "link_");
            assertEquals(0, cli.exitCode, cli.toString());
            assertTrue(cli.out.contains("counter engine=alpha port=0 vl=- name=link_state value=DOWN\n"), cli.out);
            assertTrue(cli.out.lines().filter(l -> l.startsWith("counter ")).allMatch(l -> l.contains(" name=link_")),
                cli.out);
        }
    }

    @Test
    void aSilentEngineIsListedApartOnlyWithAllAndItsFileIsKept()
    {
        try (CountersFile file = CountersFile.create(dir, "idle", 256, 64 * 1024, SystemEpochClock.INSTANCE))
        {
            new PortCounterSet(file, 0, 1);
            // a minute later, the heartbeat never moved: an invoker engine nobody drives
            epochClock.update(System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(1));
            final List<String> quiet = look(new StatView(filter(), epochClock, nanoClock));
            assertTrue(quiet.contains("# no vlink engine"), quiet.toString());
            assertTrue(quiet.contains("# 1 not running (--all lists them)"), quiet.toString());
            assertTrue(file.file().exists(), "the process is alive: its file stays");
            final StatView.Filter prune = filter();
            prune.prune = true;
            assertTrue(look(new StatView(prune, epochClock, nanoClock)).contains("# 1 not running (--all lists them)"));
            assertTrue(file.file().exists(), "--prune deletes only the files of processes that are gone");

            final StatView.Filter all = filter();
            all.all = true;
            final List<String> lines = look(new StatView(all, epochClock, nanoClock));
            final int apart = lines.indexOf("# not running");
            assertTrue(apart > 0, lines.toString());
            assertTrue(lines.get(apart + 1).startsWith("engine name=idle pid=" + ProcessHandle.current().pid() +
                " state=silent "), lines.toString());
            assertTrue(lines.stream().noneMatch(l -> l.startsWith("counter ")), "no counters of an engine not running");
        }
    }

    @Test
    void watchRedrawsInPlaceOnlyOnATerminal()
    {
        assertTrue(watch(true).startsWith(StatCommand.CLEAR_SCREEN + "# vlink stat "));
        assertEquals(3, watch(true).split("\033\\[H\033\\[2J", -1).length - 1);
        final String plain = watch(false);
        assertFalse(plain.contains("\033"), plain);
        assertEquals(3, plain.split("# vlink stat ", -1).length - 1, plain);
        assertTrue(plain.contains("# no vlink engine\n\n# vlink stat "), "blocks apart by a blank line: " + plain);
    }

    private String watch(final boolean terminal)
    {
        final StatCommand command = new StatCommand();
        command.terminal = () -> terminal;
        final StringWriter out = new StringWriter();
        final CommandLine commandLine = new CommandLine(command);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        assertEquals(0, commandLine.execute("--dir", dir.getPath(), "--watch", "--count", "3", "--interval", "1"));
        return out.toString();
    }
}
