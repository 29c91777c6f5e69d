package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink stat} reads a running engine's counters from another process (cli.md), like AeronStat.
 */
class StatTwoJvmTest
{
    @TempDir
    File dir;

    @Test
    void readsTheCountersOfAnEngineRunningInAnotherJvm() throws Exception
    {
        final Process child = new ProcessBuilder(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            StatChildEngine.class.getName(),
            dir.getPath()))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        try
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do
            {
                line = out.readLine();
            }
            while (null != line && !line.equals("READY") && !line.equals("FAILED"));
            assertEquals("READY", line, "the child engine sent its packets");

            final Cli cli = Cli.run("stat", "--dir", dir.getPath(), "--nonzero");
            assertEquals(0, cli.exitCode, cli.toString());
            assertTrue(cli.out.contains("engine name=stat-child pid=" + child.pid() + " state=live "), cli.out);
            assertTrue(cli.out.contains("counter engine=stat-child port=0 vl=2 name=tx_packets value=100\n"), cli.out);
            assertTrue(cli.out.contains("counter engine=stat-child port=1 vl=2 name=delivered_packets value=100\n"),
                cli.out);
            assertTrue(cli.out.contains("counter engine=stat-child port=0 vl=- name=link_state value=ACTIVE\n"), cli.out);

            // the same counters as perfquery shows a port: 100 packets of 124 bytes (LRH, BTH, 100, ICRC) = 3100 words
            final Cli perfquery = Cli.run("stat", "--dir", dir.getPath(), "--perfquery");
            assertEquals(0, perfquery.exitCode, perfquery.toString());
            assertTrue(perfquery.out.contains("# Port counters: engine stat-child pid " + child.pid() + " port 0 " +
                "(CapMask: 0x400)\nPortSelect:......................0\n"), perfquery.out);
            final String port0 = perfquery.out.substring(perfquery.out.indexOf(" port 0 "),
                perfquery.out.indexOf(" port 1 "));
            final String port1 = perfquery.out.substring(perfquery.out.indexOf(" port 1 "));
            assertTrue(port0.contains("\nPortXmitData:....................3100\n"), perfquery.out);
            assertTrue(port0.contains("\nPortXmitPkts:....................100\n"), perfquery.out);
            assertTrue(port1.contains("\nPortRcvData:.....................3100\n"), perfquery.out);
            assertTrue(port1.contains("\nPortRcvPkts:.....................100\n"), perfquery.out);
            assertTrue(port1.contains("\nPortRcvErrors:...................0\n"), perfquery.out);

            child.getOutputStream().close();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child closed its engine");
            assertEquals(0, child.exitValue());
            assertTrue(Cli.run("stat", "--dir", dir.getPath()).out.contains("# no vlink engine"),
                "the counters file is gone once the engine closed");
        }
        finally
        {
            child.destroyForcibly();
        }
    }
}
