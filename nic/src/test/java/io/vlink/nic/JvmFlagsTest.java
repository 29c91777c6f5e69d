package io.vlink.nic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * An application started without the JVM flags vlink needs, as a transport builder meets it: a JVM of its own that
 * builds an engine. {@code EngineBuilder.build()} says which flag is missing and where it goes, instead of Agrona's
 * {@code IllegalAccessError} from deep inside; a capture without Chronicle's flags is refused by the builder, not
 * left to stop in the background with a 0-byte file.
 */
class JvmFlagsTest
{
    private static final String AGRONA_FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    @TempDir
    Path dir;

    /** The child: builds an engine (with a capture into {@code args[0]} when given) and prints what it threw. */
    public static final class BuildAnEngine
    {
        public static void main(final String[] args)
        {
            final EngineBuilder builder = Engine.builder().name("flags").loopback()
                .directory(new File(args[0]));
            if (args.length > 1)
            {
                builder.capture(Path.of(args[1]));
            }
            try (Engine engine = builder.build())
            {
                System.out.println("built");
            }
            catch (final Throwable ex)
            {
                System.out.println(ex.getClass().getName() + ": " + ex.getMessage());
            }
        }
    }

    private String child(final List<String> flags, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
        for (final String flag : flags)
        {
            command.addAll(List.of(flag.split(" ")));
        }
        if (Runtime.version().feature() >= 24 && flags.stream().noneMatch(f -> f.startsWith("--sun-misc")))
        {
            // JDK 24 and later warn on stderr when a library calls sun.misc.Unsafe (Chronicle Bytes does, for a
            // capture: the README says so): not this test's lines
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BuildAnEngine.class.getName()));
        command.addAll(List.of(args));
        // stdout only: what the child printed of the exception (the JDK's own warnings go to stderr)
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child ended");
        return out;
    }

    @Test
    void withoutAgronasFlagTheBuilderNamesItAndWhereItGoes() throws Exception
    {
        final String out = child(List.of(), dir.toString());
        assertEquals("java.lang.IllegalStateException: the JVM lacks " + AGRONA_FLAG + ", which Agrona needs to " +
            "reach jdk.internal.misc.Unsafe: add it to the JVM's command line before -jar or the main class (or to " +
            "JDK_JAVA_OPTIONS, or to the JVM options of your build's test and exec plugins); the README lists them " +
            "under \"Using vlink as a library\"\n", out);
        try (var files = Files.list(dir))
        {
            assertEquals(0, files.count(), "nothing made");
        }
    }

    @Test
    void aCaptureWithoutChroniclesFlagsIsRefusedByTheBuilder() throws Exception
    {
        final Path capture = dir.resolve("refused.pcap");
        final String out = child(List.of(AGRONA_FLAG), dir.toString(), capture.toString());
        assertTrue(out.startsWith("java.lang.IllegalStateException: a capture needs JVM flags this JVM lacks, for " +
            "Chronicle Bytes, which maps the capture file: --add-opens java.base/java.lang=ALL-UNNAMED "), out);
        assertTrue(out.contains(" --add-opens java.base/sun.nio.ch=ALL-UNNAMED "), out);
        assertTrue(out.endsWith("the README lists them under \"Using vlink as a library\"\n"), out);
        assertFalse(Files.exists(capture), "no 0-byte capture");

        // with the flags this JVM was given (the build's), the same program captures
        final List<String> flags = new ArrayList<>();
        final List<String> input = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < input.size(); i++)
        {
            if (input.get(i).startsWith("--add-"))
            {
                flags.add(input.get(i).contains("=") ? input.get(i).replaceFirst("=", " ") : input.get(i) + " " +
                    input.get(++i));
            }
        }
        assertEquals("built\n", child(flags, dir.toString(), capture.toString()));
        assertTrue(Files.size(capture) > 0, "captured");
    }

    @Test
    void eachFlagIsCheckedAgainstTheModuleThatNeedsIt()
    {
        final Module unnamed = JvmFlagsTest.class.getModule();
        // surefire gives this JVM the engine's and the capture's flags
        assertNull(JvmFlags.missing(true));
        assertEquals(List.of(), JvmFlags.missing(AGRONA_FLAG, unnamed));
        assertEquals(List.of("--add-opens java.base/java.security=ALL-UNNAMED"),
            JvmFlags.missing("--add-opens java.base/java.security=ALL-UNNAMED", unnamed));
        assertEquals(List.of("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"),
            JvmFlags.missing("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED " +
                "--add-exports no.such.module/x=ALL-UNNAMED", unnamed), "a module this JDK lacks has nothing to open");
        // a named module is told by its name: ALL-UNNAMED does not reach it
        assertEquals(List.of("--add-exports java.base/jdk.internal.misc=java.sql"),
            JvmFlags.missing(AGRONA_FLAG, ModuleLayer.boot().findModule("java.sql").orElseThrow()));
    }
}
