package io.vlink.nic;

import io.vlink.nic.link.ShmLink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shared-memory link between two JVMs, the checks of {@link UdpTwoJvmTest}: both directions, 4 VLs, no loss,
 * no duplication, FIFO per VL, no discards; and the link's file is gone once both ends closed.
 */
class ShmTwoJvmTest
{
    private static final int COUNT = 2_000;
    private static final int SECONDS = 60;

    @TempDir
    File dir;

    @Test
    void twoEnginesInTwoProcessesExchangeTrafficThroughAMappedFile() throws Exception
    {
        final Path file = dir.toPath().resolve("two-jvm.shm");
        final List<String> command = List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            UdpPeer.class.getName(), "shm", file.toString(), "b", String.valueOf(COUNT), dir.getPath(),
            String.valueOf(SECONDS));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String here = UdpPeer.run(link -> link.shm(file, ShmLink.Role.A), COUNT, dir, SECONDS, "shm-parent");
            assertTrue(child.waitFor(SECONDS + 30, TimeUnit.SECONDS), "the second JVM finished");
            final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            final String there = output.substring(output.lastIndexOf('\n') + 1);
            System.out.println("parent: " + here + "\nchild: " + there);
            assertTrue(here.startsWith("OK posted " + COUNT + " received " + COUNT), here);
            assertTrue(here.contains(" discards 0 "), here);
            assertEquals(0, child.exitValue(), output);
            assertTrue(there.startsWith("OK posted " + COUNT + " received " + COUNT), there);
            assertFalse(Files.exists(file), "the last end to close removed the file");
        }
        finally
        {
            child.destroyForcibly();
        }
    }
}
