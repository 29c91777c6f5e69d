package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink soak} writing onto a file system that is really full, as a user meets it: the soak in a JVM of its
 * own, in a mount namespace of its own ({@code unshare(1)}) where a small tmpfs is mounted, so that nothing outlives
 * the test. As root (CI) {@code unshare --mount} is enough; another user needs unprivileged user namespaces
 * ({@code --map-root-user}). Where neither works the test fails and says so: it never skips.
 * <p>
 * The data verdict depends on the data path only: every packet arrives, so the soak says {@code soak: ok}; each output
 * that could not be written is a line of its own on stderr and the exit status is 4. A JSON or report is whole or
 * absent: the file the run would have replaced keeps its old content and no temporary file is left. A capture stops
 * where the file system ends and decodes.
 */
class FullFileSystemTest
{
    private static final long DEADLINE_S = 120;
    /** The shell's exit status when the tmpfs could not be mounted. */
    private static final int NO_MOUNT = 90;

    @TempDir
    Path dir;

    /**
     * Run {@code script} as {@code sh -c} in a mount namespace of its own, with {@code $1} a fresh mount point whose
     * tmpfs holds {@code size}, {@code $2} a directory outside it for what the script leaves for the test, then
     * {@code vlink} and its JVM's command line.
     *
     * @return the script's exit status.
     */
    private int inMountNamespace(final String size, final String script, final String... vlinkArgs) throws Exception
    {
        final Path mount = Files.createDirectory(dir.resolve("mnt"));
        final Path out = Files.createDirectories(dir.resolve("out"));
        final List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private"));
        if (!"root".equals(System.getProperty("user.name")))
        {
            command.add("--map-root-user");
        }
        command.addAll(List.of("sh", "-c",
            "mount -t tmpfs -o size=" + size + " vlink-full \"$1\" || exit " + NO_MOUNT + "\n" + script,
            "sh", mount.toString(), out.toString()));
        command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (Runtime.version().feature() >= 24)
        {
            // the JDK's own warnings on stderr (Chronicle Bytes' sun.misc.Unsafe and the native library it loads):
            // not this test's lines
            command.add("--sun-misc-unsafe-memory-access=allow");
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Vlink.class.getName()));
        command.addAll(List.of(vlinkArgs));
        final Process process = new ProcessBuilder(command)
            .redirectOutput(out.resolve("stdout").toFile())
            .redirectError(out.resolve("stderr").toFile())
            .start();
        assertTrue(process.waitFor(DEADLINE_S, TimeUnit.SECONDS), "ended within " + DEADLINE_S + " s");
        assertNotEquals(NO_MOUNT, process.exitValue(), "a full file system needs unshare(1) and a tmpfs mount in a " +
            "mount namespace: root, or unprivileged user namespaces; " + read("stderr"));
        return process.exitValue();
    }

    private String read(final String name) throws IOException
    {
        final Path file = dir.resolve("out").resolve(name);
        return Files.exists(file) ? Files.readString(file) : "";
    }

    @Test
    void jsonAndReportOntoAFullFileSystemFailAloneAndLeaveTheOldFile() throws Exception
    {
        final Path counters = Files.createDirectory(dir.resolve("counters"));
        // the old summary first, then a filler takes every block left; after the soak, what is on the tmpfs
        final String script = "mnt=$1; out=$2; shift 2\n" +
            "printf 'the old summary\\n' > \"$mnt/soak.json\"\n" +
            "dd if=/dev/zero of=\"$mnt/filler\" bs=4096 2>/dev/null\n" +
            "\"$@\"; status=$?\n" +
            "ls -A \"$mnt\" > \"$out/listing\"; cp \"$mnt/soak.json\" \"$out/soak.json\"\n" +
            "exit $status\n";
        final int status = inMountNamespace("256k", script,
            "soak", "--packets", "2000", "--size", "512", "--dir", counters.toString(),
            "--json", dir.resolve("mnt/soak.json").toString(), "--report", dir.resolve("mnt/soak.html").toString());
        final String stdout = read("stdout");
        final String stderr = read("stderr");
        assertEquals(Outputs.EXIT_OUTPUT_FAILED, status, stdout + stderr);
        assertTrue(stdout.endsWith("\nsoak: ok\n"), "every packet arrived: " + stdout);
        assertEquals("vlink soak: --json " + dir.resolve("mnt/soak.json") + ": No space left on device\n" +
            "vlink soak: --report " + dir.resolve("mnt/soak.html") + ": No space left on device\n", stderr);
        assertEquals("the old summary\n", read("soak.json"), "the old file, whole");
        assertEquals("filler\nsoak.json\n", read("listing"), "no report, no temporary file");
    }

    @Test
    void aCaptureOntoAFullFileSystemStopsAloneAndDecodes() throws Exception
    {
        final Path counters = Files.createDirectory(dir.resolve("counters"));
        final Path json = dir.resolve("soak.json");
        final String script = "mnt=$1; out=$2; shift 2; \"$@\"; status=$?\n" +
            "cp \"$mnt/soak.pcap\" \"$out/soak.pcap\"\n" +
            "exit $status\n";
        final int status = inMountNamespace("3m", script,
            "soak", "--packets", "20000", "--size", "512", "--threads", "invoker", "--dir", counters.toString(),
            "--json", json.toString(), "--capture", dir.resolve("mnt/soak.pcap").toString());
        final String stdout = read("stdout");
        final String stderr = read("stderr");
        assertEquals(Outputs.EXIT_OUTPUT_FAILED, status, stdout + stderr);
        assertTrue(stdout.endsWith("\nsoak: ok\n"), "every packet arrived: " + stdout);
        assertTrue(stderr.matches("vlink soak: --capture \\S+/mnt/soak.pcap: No space left on device \\(\\d+ bytes " +
            "free, the capture grows by 1048576 at a time\\); the capture stopped after \\d+ records, which the file " +
            "keeps \\(vlink decode reads them\\)\n"), stderr);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEquals(true, summary.get("ok"), summary.toString());
        @SuppressWarnings("unchecked")
        final Map<String, Object> invariants = (Map<String, Object>)summary.get("invariants");
        assertEquals(true, invariants.get("no_engine_errors"), "a capture is not the engine's data path");

        final Cli decode = Cli.run("decode", dir.resolve("out/soak.pcap").toString());
        assertEquals(0, decode.exitCode, decode.err);
        assertEquals("", decode.err, "cut to its whole records when the engine closed");
        assertTrue(decode.out.lines().count() > 1000, decode.out.lines().count() + " records");
    }
}
