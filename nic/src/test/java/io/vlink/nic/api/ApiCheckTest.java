package io.vlink.nic.api;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The API check of {@code mvn verify} fails on a break and passes an addition: the build's own japicmp configuration
 * (the parent pom's) run by this Maven, offline, on a project that stands for vlink-core, whose "new" jar is
 * vlink-core 0.1.0 with one class recompiled. The break is the kind PacketHandler guards against: a callback
 * interface whose method takes other parameters ({@code ArbiterSource.canSend(int vl, int size)} becoming
 * {@code canSend(int vl, long size)}); the addition is a new default method.
 */
@Tag("long")
class ApiCheckTest
{
    private static final long DEADLINE_S = 240;

    /** ArbiterSource as 0.1.0 has it, but for its last member(s). */
    private static String arbiterSource(final String last)
    {
        return """
            package io.vlink.core.arb;

            public interface ArbiterSource
            {
                boolean hasVl15();

                boolean hasFcp();

                int headSize(int vl);

            %s
            }
            """.formatted(last);
    }

    private static final String BROKEN = arbiterSource("    boolean canSend(int vl, long size);");

    private static final String EXTENDED = arbiterSource("""
            boolean canSend(int vl, int size);

            default int priority(int vl)
            {
                return 0;
            }
        """);

    @TempDir
    Path dir;

    @Test
    void aChangedCallbackFailsTheCheckAndNamesIt() throws Exception
    {
        final Run run = check(withClass(BROKEN));
        assertNotEquals(0, run.exit, run.output);
        assertTrue(run.output.contains("There is at least one incompatibility"), run.output);
        assertTrue(run.output.contains("io.vlink.core.arb.ArbiterSource.canSend(int,int):METHOD_REMOVED"),
            run.output);
    }

    @Test
    void anAdditionPasses() throws Exception
    {
        final Run run = check(withClass(EXTENDED));
        assertEquals(0, run.exit, run.output);
    }

    /** @return vlink-core 0.1.0's jar with ArbiterSource compiled from the given source. */
    private Path withClass(final String source) throws Exception
    {
        final Path baseline = ApiFiles.baselineJar("core");
        final Path classes = dir.resolve("classes");
        final ApiFiles.Compiled compiled = ApiFiles.compile("io.vlink.core.arb.ArbiterSource", source,
            List.of(baseline, ApiFiles.origin(DirectBuffer.class)), classes);
        assertTrue(compiled.ok(), compiled.errors());
        final String entryName = "io/vlink/core/arb/ArbiterSource.class";
        final Path jar = dir.resolve("vlink-core-changed.jar");
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(baseline));
            ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar)))
        {
            for (ZipEntry entry = in.getNextEntry(); null != entry; entry = in.getNextEntry())
            {
                out.putNextEntry(new ZipEntry(entry.getName()));
                if (entryName.equals(entry.getName()))
                {
                    out.write(Files.readAllBytes(classes.resolve(entryName)));
                }
                else
                {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
        return jar;
    }

    private record Run(int exit, String output)
    {
    }

    /** Run the build's API check on a project named vlink-core whose jar is the given one. */
    private Run check(final Path newJar) throws Exception
    {
        final Path project = Files.createDirectories(dir.resolve("project"));
        final Path api = Files.createDirectories(dir.resolve("api"));
        Files.copy(ApiFiles.baselineJar("core"), api.resolve(ApiFiles.baselineJar("core").getFileName()));
        final Path module = Files.createDirectories(project.resolve("core"));
        Files.move(api, project.resolve("api"));
        Files.writeString(module.resolve("pom.xml"), """
            <?xml version="1.0" encoding="UTF-8"?>
            <project xmlns="http://maven.apache.org/POM/4.0.0">
                <modelVersion>4.0.0</modelVersion>
                <parent>
                    <groupId>io.vlink</groupId>
                    <artifactId>vlink-parent</artifactId>
                    <version>%s</version>
                    <relativePath>%s</relativePath>
                </parent>
                <artifactId>vlink-core</artifactId>
                <dependencies>
                    <dependency>
                        <groupId>org.agrona</groupId>
                        <artifactId>agrona</artifactId>
                    </dependency>
                </dependencies>
                <build>
                    <plugins>
                        <plugin>
                            <groupId>com.github.siom79.japicmp</groupId>
                            <artifactId>japicmp-maven-plugin</artifactId>
                        </plugin>
                    </plugins>
                </build>
            </project>
            """.formatted(ApiFiles.projectVersion(), module.relativize(ApiFiles.PARENT_POM)));

        final String home = System.getProperty("vlink.maven.home");
        final String mvn = null == home || home.isEmpty() ? "mvn" : Path.of(home, "bin", "mvn").toString();
        final List<String> command = new ArrayList<>(List.of(mvn, "-B", "-ntp", "-o", "-q", "-f",
            module.resolve("pom.xml").toString(), "-Dvlink.api.newJar=" + newJar, "verify"));
        final String repo = System.getProperty("vlink.maven.repo");
        if (null != repo && !repo.isEmpty())
        {
            command.add("-Dmaven.repo.local=" + repo);
        }
        final ProcessBuilder builder = new ProcessBuilder(command).directory(module.toFile()).redirectErrorStream(true);
        builder.environment().remove("MAVEN_ARGS");
        final Process process = builder.start();
        final byte[] output;
        try (InputStream in = process.getInputStream())
        {
            output = readWithin(process, in);
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static byte[] readWithin(final Process process, final InputStream in) throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final Thread reader = new Thread(() ->
        {
            try
            {
                in.transferTo(bytes);
            }
            catch (final IOException ignored)
            {
                // the process was ended
            }
        });
        reader.start();
        if (!process.waitFor(DEADLINE_S, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail("mvn did not finish in " + DEADLINE_S + " s");
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return bytes.toByteArray();
    }
}
