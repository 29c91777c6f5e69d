package io.vlink.tools;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's quick-start commands on the files in {@code examples/}: they must keep working as written.
 */
class ExamplesTest
{
    private static final String EXAMPLES = "../examples/";

    /**
     * The library example builds against the version the project is at: a release that changes the project's version
     * changes the example's {@code vlink.version} with it (docs/api.md, "Releasing").
     */
    @Test
    void theLibraryExampleDependsOnTheProjectsVersion() throws java.io.IOException
    {
        final String parent = java.nio.file.Files.readString(java.nio.file.Path.of("../pom.xml"));
        final java.util.regex.Matcher project = java.util.regex.Pattern.compile(
            "<artifactId>vlink-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(parent);
        assertTrue(project.find(), "the parent pom's version");
        final String example = java.nio.file.Files.readString(java.nio.file.Path.of(EXAMPLES + "library/pom.xml"));
        assertTrue(example.contains("<vlink.version>" + project.group(1) + "</vlink.version>"),
            "examples/library/pom.xml: set vlink.version to the project's version, " + project.group(1));
    }

    @Test
    void seedFigure2510GrantsAsTheBookSays()
    {
        final Cli cli = Cli.run("arb", "simulate", EXAMPLES + "seed-figure-25-10.scn");
        assertEquals(0, cli.exitCode, cli::toString);
        final List<String> grants = Arrays.stream(cli.out.split("\n"))
            .filter(l -> l.startsWith("grant "))
            .map(l -> l.replaceAll("^grant \\d+ vl=(\\d+) bytes=4096 from=(\\w+)$", "$1$2"))
            .collect(Collectors.toList());
        assertEquals(List.of("6high", "6high", "1high", "7high", "7high", "3low",
            "7high", "7high", "6high", "6high", "1high", "5low"), grants);
    }

    @Test
    void opensmExampleChecksAndShows()
    {
        final Cli check = Cli.run("qos", "check", EXAMPLES + "opensm-qos.conf");
        assertEquals(0, check.exitCode, check::toString);
        final Cli show = Cli.run("qos", "show", EXAMPLES + "opensm-qos.conf");
        assertEquals(0, show.exitCode, show::toString);
        assertTrue(show.out.contains("WEIGHT: |0x0 |0x40|0x80|0xC0|0x0 |0x40|0x40|0x40|"), show::toString);
        assertTrue(show.out.contains("VLHighLimit: 6"), show::toString);
    }

    @Test
    void tenureExampleSharesFollowTheTable()
    {
        final Cli cli = Cli.run("sched", "simulate", EXAMPLES + "tenure.sched");
        assertEquals(0, cli.exitCode, cli::toString);
        // SL1 is listed twice with 2048 bytes; SL2 once with 2048; SL3 once with 1024: while all have work,
        // SL1 gets twice SL2's bytes; every byte posted is sent (32768 + 16384 + 16384).
        assertTrue(cli.out.contains("share sl=1 bytes=32768 fraction=0.5000"), cli::toString);
        assertTrue(cli.out.contains("share sl=2 bytes=16384 fraction=0.2500"), cli::toString);
        assertTrue(cli.out.contains("share sl=3 bytes=16384 fraction=0.2500"), cli::toString);
    }

    @Test
    void realCaptureDecodesClean()
    {
        final Cli cli = Cli.run("decode", "../core/src/test/resources/captures/infiniband.pcap");
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(43, cli.out.split("\n").length, cli::toString);
        assertTrue(!cli.out.contains("=bad"), cli::toString);
    }
}
