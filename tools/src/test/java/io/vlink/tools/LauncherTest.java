package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The {@code ./vlink} launcher as a new user meets it: on first use it says at once that it is building and about how
 * long that takes, then a line per module as Maven reaches it, then the time it took, and runs the command with the
 * JVM flags the build wrote. The launcher here is the repository's own script in a directory of its own, with a
 * Maven that holds its build until the test has seen the first lines (no timing in the test) and a {@code java} that
 * prints what it was given.
 */
class LauncherTest
{
    private static final long DEADLINE_S = 60;

    @TempDir
    Path root;

    private Path go;

    private Process launch(final String... args) throws Exception
    {
        Files.copy(Path.of("..", "vlink"), root.resolve("vlink"), StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(root.resolve("vlink"), PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path bin = Files.createDirectories(root.resolve("fake/bin"));
        go = root.resolve("go");
        script(bin.resolve("mvn"), "echo '[INFO] Building vlink-core 0.2.0-SNAPSHOT                                 [1/2]'\n" +
            "i=0; while [ ! -f '" + go + "' ]; do sleep 0.05; i=$((i + 1)); [ $i -gt 2000 ] && exit 1; done\n" +
            "echo '[INFO] Building vlink-tools 0.2.0-SNAPSHOT                                [2/2]'\n" +
            "mkdir -p tools/target/classes\n" +
            "echo '--add-exports java.base/jdk.internal.misc=ALL-UNNAMED' > tools/target/classes/jvm.flags\n" +
            ": > tools/target/vlink.jar\n");
        script(bin.resolve("java"), "echo \"java $*\"\n");
        final List<String> command = new ArrayList<>(List.of(root.resolve("vlink").toString()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        final Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("JAVA_HOME", root.resolve("fake").toString());
        env.remove("VLINK_JAVA_OPTS");
        return builder.start();
    }

    private static void script(final Path file, final String body) throws Exception
    {
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void theFirstUseSaysAtOnceThatItBuildsAndHowLongThenRunsTheCommandWithTheFlags() throws Exception
    {
        final Process launcher = launch("soak", "--seconds", "1");
        final BufferedReader err = new BufferedReader(new InputStreamReader(launcher.getErrorStream(),
            StandardCharsets.UTF_8));
        // the build waits for `go`: these lines came while it was running
        final String first = err.readLine();
        assertTrue(first.startsWith("vlink: first use: building the command with Maven into tools/target: 25 to 35 " +
            "s on a quiet 2-core machine, up to 2 minutes on a busy one"), first);
        final String module = err.readLine();
        assertTrue(module.matches("vlink: building vlink-core \\d+\\.\\d+\\.\\d+-SNAPSHOT \\[1/2] \\(\\d+ s\\)"), module);
        Files.createFile(go);
        String line = err.readLine();
        while (null != line && line.startsWith("vlink: building "))
        {
            line = err.readLine();
        }
        assertNotNull(line);
        assertTrue(line.matches("vlink: built in \\d+ s"), line);
        assertTrue(launcher.waitFor(DEADLINE_S, TimeUnit.SECONDS));
        assertEquals(0, launcher.exitValue());
        final String out = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar " +
            root.resolve("tools/target/vlink.jar") + " soak --seconds 1\n", out, "the results alone on stdout");
    }

    @Test
    void aSourceNewerThanTheJarIsARebuildAndSaysSo() throws Exception
    {
        Files.createDirectories(root.resolve("tools/target/classes"));
        Files.writeString(root.resolve("tools/target/classes/jvm.flags"), "-Dold=1\n");
        final Path jar = Files.createFile(root.resolve("tools/target/vlink.jar"));
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Files.writeString(Files.createDirectories(root.resolve("core/src/main/java")).resolve("New.java"), "");
        final Process launcher = launch("--version");
        final BufferedReader err = new BufferedReader(new InputStreamReader(launcher.getErrorStream(),
            StandardCharsets.UTF_8));
        final String first = err.readLine();
        assertTrue(first.startsWith("vlink: sources changed: rebuilding the command (10 to 30 s); log: "), first);
        Files.createFile(go);
        assertTrue(launcher.waitFor(DEADLINE_S, TimeUnit.SECONDS));
        assertEquals(0, launcher.exitValue());
    }

    @Test
    void perfRunsWithoutAgronasBoundsChecksAndEveryOtherCommandWithThem() throws Exception
    {
        Files.createDirectories(root.resolve("tools/target/classes"));
        Files.writeString(root.resolve("tools/target/classes/jvm.flags"), "-Dflags=1\n");
        Files.createFile(root.resolve("tools/target/vlink.jar"));
        final String jar = root.resolve("tools/target/vlink.jar").toString();
        final Process perf = launch("perf", "ring-lat", "--help");
        assertTrue(perf.waitFor(DEADLINE_S, TimeUnit.SECONDS));
        assertEquals("java -Dagrona.disable.bounds.checks=true -Dflags=1 -jar " + jar + " perf ring-lat --help\n",
            new String(perf.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        final Process stat = launch("stat", "--help");
        assertTrue(stat.waitFor(DEADLINE_S, TimeUnit.SECONDS));
        assertEquals("java -Dflags=1 -jar " + jar + " stat --help\n",
            new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
