package io.vlink.nic.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The rules of docs/api.md that japicmp does not check itself: a break japicmp is told to accept (an exclude in the
 * parent pom) is announced in CHANGELOG.md's Unreleased section under <b>Breaking</b>, in a version allowed to
 * break; and the baseline jars are the ones the release made.
 */
class ApiPolicyTest
{
    /** @return the Unreleased section's lines that start an entry marked Breaking, with their continuation lines. */
    private static List<String> breakingEntries() throws Exception
    {
        final String changelog = Files.readString(ApiFiles.CHANGELOG);
        final int start = changelog.indexOf("\n## [Unreleased]");
        assertTrue(start >= 0, "CHANGELOG.md has an Unreleased section");
        final int end = changelog.indexOf("\n## [", start + 1);
        final String unreleased = changelog.substring(start, end < 0 ? changelog.length() : end);
        final List<String> entries = new ArrayList<>();
        for (final String entry : unreleased.split("\n- "))
        {
            if (entry.startsWith("**Breaking:**"))
            {
                entries.add(entry.replaceAll("\\s+", " "));
            }
        }
        return entries;
    }

    /**
     * @param exclude a japicmp exclude: {@code package.Class}, or {@code package.Class#member(parameters)}.
     * @return how CHANGELOG.md names it: {@code Class}, or {@code Class.member}.
     */
    static String changelogName(final String exclude)
    {
        final int hash = exclude.indexOf('#');
        final String type = hash < 0 ? exclude : exclude.substring(0, hash);
        final String simple = type.substring(type.lastIndexOf('.') + 1).replace('$', '.');
        if (hash < 0)
        {
            return simple;
        }
        final int paren = exclude.indexOf('(', hash);
        return simple + "." + exclude.substring(hash + 1, paren < 0 ? exclude.length() : paren);
    }

    @Test
    void everyAcceptedBreakIsAnnouncedUnderBreaking() throws Exception
    {
        final List<String> entries = breakingEntries();
        for (final String exclude : ApiFiles.announcedBreaks())
        {
            final String name = changelogName(exclude);
            assertTrue(entries.stream().anyMatch(e -> e.contains("`" + name) || e.contains(" " + name)),
                "the API check accepts a break of " + exclude + ", but CHANGELOG.md's Unreleased section has no " +
                "entry starting **Breaking:** that names " + name);
        }
    }

    @Test
    void breaksAreAcceptedOnlyInAVersionThatMayBreak() throws Exception
    {
        final String version = ApiFiles.projectVersion();
        final String baseline = ApiFiles.baselineVersion();
        final boolean breaks = !ApiFiles.announcedBreaks().isEmpty() || !breakingEntries().isEmpty();
        if (breaks)
        {
            assertTrue(ApiFiles.breakingNumber(version) > ApiFiles.breakingNumber(baseline),
                "version " + version + " announces breaks of " + baseline + ": it must raise " +
                (version.startsWith("0.") ? "the minor version (0.x: the minor is the breaking number)" :
                "the major version"));
        }
        assertTrue(ApiFiles.breakingNumber(version) >= ApiFiles.breakingNumber(baseline),
            version + " is older than the baseline " + baseline);
    }

    @Test
    void theBaselineJarsAreTheReleasedOnes() throws Exception
    {
        final String baseline = ApiFiles.baselineVersion();
        final List<String> sums = Files.readAllLines(ApiFiles.API.resolve("vlink-" + baseline + ".sha256"));
        assertEquals(2, sums.size(), "a checksum for vlink-core and vlink-nic");
        for (final String line : sums)
        {
            final String[] parts = line.split("\\s+");
            final byte[] jar = Files.readAllBytes(ApiFiles.API.resolve(parts[1]));
            assertEquals(parts[0], HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar)),
                parts[1] + " is not the jar api/build-baseline made for " + baseline);
        }
        assertTrue(Files.isRegularFile(ApiFiles.baselineJar("core")));
        assertTrue(Files.isRegularFile(ApiFiles.baselineJar("nic")));
    }

    @Test
    void namesAndVersionsAreReadAsDocumented()
    {
        assertEquals("ReceiveHandler", changelogName("io.vlink.nic.ReceiveHandler"));
        assertEquals("Port.poll", changelogName("io.vlink.nic.Port#poll(io.vlink.nic.ReceiveHandler,int)"));
        assertEquals("Engine.Builder.udp", changelogName("io.vlink.nic.Engine$Builder#udp"));
        assertTrue(ApiFiles.breakingNumber("0.2.0-SNAPSHOT") > ApiFiles.breakingNumber("0.1.0"));
        assertEquals(ApiFiles.breakingNumber("0.1.0"), ApiFiles.breakingNumber("0.1.7"));
        assertTrue(ApiFiles.breakingNumber("1.0.0") > ApiFiles.breakingNumber("0.9.3"));
        assertEquals(ApiFiles.breakingNumber("1.0.0"), ApiFiles.breakingNumber("1.4.0-SNAPSHOT"));
        assertTrue(ApiFiles.breakingNumber("2.0.0") > ApiFiles.breakingNumber("1.4.0"));
    }
}
