package io.vlink.tools;

import io.vlink.core.config.TextLines;
import io.vlink.core.inject.InjectionBounds;
import io.vlink.core.inject.InjectionConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code vlink inject simulate}: the examples' outputs pinned line by line (golden files under
 * {@code src/test/resources/inject}), what each example shows, a run worked out by hand, and every error form.
 */
class InjectSimulateCommandTest
{
    private static final String EXAMPLES = "../examples/";

    @TempDir
    Path dir;

    private Path scenario(final String... lines) throws IOException
    {
        final Path file = dir.resolve("s.inj");
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.ISO_8859_1);
        return file;
    }

    private static Cli simulate(final Path file)
    {
        return Cli.run("inject", "simulate", file.toString());
    }

    private static List<String> lines(final String text)
    {
        return Arrays.asList(text.replace("\r\n", "\n").split("\n", -1));
    }

    private static List<String> run(final String example)
    {
        final Cli cli = Cli.run("inject", "simulate", EXAMPLES + example);
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("", cli.err, cli::toString);
        return lines(cli.out).stream().filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "inject-marks", "inject-flood-marks-4-8", "inject-flood-marks-64-128", "inject-timer", "inject-weights",
        "inject-reset"})
    void examplesPrintTheirGoldenOutputLineByLine(final String example) throws IOException
    {
        final List<String> expected = Files.readAllLines(Path.of("src/test/resources/inject/" + example + ".out"));
        final List<String> actual = run(example + ".inj");
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++)
        {
            assertEquals(expected.get(i), actual.get(i), example + ": line " + (i + 1));
        }
        assertEquals(expected.size(), actual.size(), example + ": lines");
    }

    @Test
    void anInjectorOverItsHighMarkYieldsToOneUnderItsLowMark()
    {
        final List<String> out = run("inject-marks.inj");
        assertTrue(out.contains("step 2 priority injector=0 low reason=high-mark occ=8"), out::toString);
        // injector 0 is first among equals ('policy first'): only its priority lets injector 1 go
        assertEquals("step 4 inject injector=1 class=0 cmd=dma bytes=1024 cells=4 occ=4 prio=high",
            out.stream().filter(l -> l.startsWith("step 4 inject")).findFirst().orElseThrow());
    }

    @Test
    void withMarksFourAndEightNoInjectorWaitsLongWhileAnotherFloods()
    {
        final List<String> low = run("inject-flood-marks-4-8.inj");
        final List<String> wide = run("inject-flood-marks-64-128.inj");
        assertTrue(low.contains("injector 1 cells=12 stalls=0 max-wait=1 changes=0"), low::toString);
        assertTrue(wide.contains("injector 1 cells=12 stalls=0 max-wait=30 changes=2"), wide::toString);
        // the same traffic in both: every cell of the flooder and of the IDCs is sent
        assertTrue(low.contains("injector 0 cells=256 stalls=0 max-wait=2 changes=18"), low::toString);
        assertTrue(wide.contains("step 30 priority injector=0 low reason=high-mark occ=128"), wide::toString);
    }

    @Test
    void aLongHighInjectorIsDemotedByItsTimer()
    {
        final List<String> out = run("inject-timer.inj");
        // held high since step 0 with its occupancy between its marks (2 and 24): the timer of 8 steps demotes it
        assertTrue(out.contains("step 8 priority injector=0 low reason=timer occ=8"), out::toString);
        assertTrue(out.contains("step 8 inject injector=1 class=0 cmd=dma bytes=512 cells=2 occ=2 prio=high"),
            out::toString);
        assertTrue(out.contains("step 13 priority injector=0 high reason=low-mark occ=2"), out::toString);
        assertTrue(out.contains("step 20 priority injector=0 low reason=timer occ=14"), out::toString);
    }

    @Test
    void classSharesFollowTheWeightsInCellsWithMixedPacketSizes()
    {
        final List<String> out = run("inject-weights.inj");
        assertTrue(out.containsAll(List.of(
            "share class=0 cells=48 fraction=0.5000",
            "share class=1 cells=24 fraction=0.2500",
            "share class=2 cells=24 fraction=0.2500")), out::toString);
        assertEquals(59, out.stream().filter(l -> l.contains(" inject ")).count());
    }

    @Test
    void aResetMakesEveryInjectorHigh()
    {
        final List<String> out = run("inject-reset.inj");
        assertTrue(out.containsAll(List.of(
            "step 10 priority injector=0 high reason=reset occ=16",
            "step 10 inject injector=0 class=0 cmd=dma bytes=1024 cells=4 occ=20 prio=high",
            "step 10 priority injector=0 low reason=high-mark occ=20",
            "step 14 priority injector=0 high reason=reset occ=16",
            "step 14 priority injector=1 high reason=reset occ=12",
            "step 15 priority injector=0 low reason=high-mark occ=12")), out::toString);
    }

    /**
     * Worked out by hand: the wire saves its budget while a packet waits (8 cells at 2 a step: released at step 5),
     * class 0's overdraw at step 1 is a debt its next turn pays, the IDCs use the global marks (4 8) and stay high.
     */
    @Test
    void aSmallRunWorkedOutByHand() throws IOException
    {
        final Cli cli = simulate(scenario(
            "class 0 weight 4 reserved 8",
            "injector 0 class 0 marks 2 4",
            "injector 1 class 0 marks 2 4",
            "command 0 dma 3072",
            "command 1 idc 100 2",
            "drain 2"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(List.of(
            "step 1 inject injector=0 class=0 cmd=dma bytes=2048 cells=8 occ=8 prio=high",
            "step 1 priority injector=0 low reason=high-mark occ=8",
            "step 2 inject injector=1 class=0 cmd=idc bytes=100 cells=1 occ=1 prio=high",
            "step 3 inject injector=1 class=0 cmd=idc bytes=100 cells=1 occ=2 prio=high",
            "step 4 inject injector=0 class=0 cmd=dma bytes=1024 cells=4 occ=12 prio=low",
            "step 5 release injector=0 cells=8 occ=4",
            "step 6 release injector=1 cells=1 occ=1",
            "step 6 release injector=1 cells=1 occ=0",
            "step 8 release injector=0 cells=4 occ=0",
            "step 8 priority injector=0 high reason=low-mark occ=0",
            "share class=0 cells=14 fraction=1.0000",
            "injector 0 cells=12 stalls=0 max-wait=2 changes=2",
            "injector 1 cells=2 stalls=0 max-wait=1 changes=0",
            ""), lines(cli.out));
        assertEquals("", cli.err);
    }

    /** A class without the cells for its chosen injector's packet holds its turn (a stall) until the wire frees them. */
    @Test
    void aClassShortOfCellsStallsAndWaitsForTheWire() throws IOException
    {
        final Cli cli = simulate(scenario(
            "shared 0",
            "class 0 weight 16 reserved 4",
            "injector 0 class 0 marks 8 16",
            "command 0 dma 1024 2",
            "drain 2",
            "steps 5"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(List.of(
            "step 1 inject injector=0 class=0 cmd=dma bytes=1024 cells=4 occ=4 prio=high",
            "step 3 release injector=0 cells=4 occ=0",
            "step 3 inject injector=0 class=0 cmd=dma bytes=1024 cells=4 occ=4 prio=high",
            "step 5 release injector=0 cells=4 occ=0",
            "share class=0 cells=8 fraction=1.0000",
            "injector 0 cells=8 stalls=1 max-wait=1 changes=0",
            ""), lines(cli.out));
    }

    /**
     * Worked out by hand: at step 2 class 0 has credit 1 left but its 3-cell packet finds 1 free cell of the pool: it
     * holds its turn (a stall) and class 1 injects beside it, in its own reserved cells, which class 0 cannot use; at
     * step 3 the wire frees 4 cells and class 0's packet goes, overdrawing its credit to -2.
     */
    @Test
    void aClassHoldsItsTurnUntilItsPacketFitsAndAnotherInjectsBesideItInItsReservedCells() throws IOException
    {
        final Cli cli = simulate(scenario(
            "shared 4",
            "idc-marks 100 200",
            "class 0 weight 4 reserved 0",
            "class 1 weight 1 reserved 2",
            "injector 0 class 0 marks 100 200",
            "injector 1 class 1 marks 100 200",
            "command 0 dma 768 3",
            "command 1 dma 256 3",
            "drain 2"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(List.of(
            "step 1 inject injector=0 class=0 cmd=dma bytes=768 cells=3 occ=3 prio=high",
            "step 2 inject injector=1 class=1 cmd=dma bytes=256 cells=1 occ=1 prio=high",
            "step 3 release injector=0 cells=3 occ=0",
            "step 3 release injector=1 cells=1 occ=0",
            "step 3 inject injector=0 class=0 cmd=dma bytes=768 cells=3 occ=3 prio=high",
            "step 4 inject injector=1 class=1 cmd=dma bytes=256 cells=1 occ=1 prio=high",
            "step 5 release injector=0 cells=3 occ=0",
            "step 5 release injector=1 cells=1 occ=0",
            "step 5 inject injector=0 class=0 cmd=dma bytes=768 cells=3 occ=3 prio=high",
            "step 6 inject injector=1 class=1 cmd=dma bytes=256 cells=1 occ=1 prio=high",
            "step 7 release injector=0 cells=3 occ=0",
            "step 7 release injector=1 cells=1 occ=0",
            "share class=0 cells=9 fraction=0.7500",
            "share class=1 cells=3 fraction=0.2500",
            "injector 0 cells=9 stalls=1 max-wait=1 changes=0",
            "injector 1 cells=3 stalls=0 max-wait=1 changes=0",
            ""), lines(cli.out));
    }

    /**
     * A full buffer of 57 cells shared by four classes whose packets take 1 to 32 cells (the scenario that starved
     * classes 1 to 3 before a class held its turn for cells): each class's cells are within a few cells of its weight
     * share (26:25:17:13 of 81: within {@link InjectionBounds#shareSlack}, 92, 89, 65 and 57 cells, and far within 3
     * points), and each injector's longest wait is within its bound (docs/injection.md works them out: 180, 343, 201,
     * 301 and 343 steps for any wait; 167, 330, 188, 288 and 330 for a high injector's).
     */
    @Test
    void aFullBufferSharedByFourClassesGivesEachItsWeightShare()
    {
        final List<String> out = run("inject-full-buffer.inj");
        assertEquals(List.of(
            "share class=0 cells=42464 fraction=0.3210",
            "share class=1 cells=40845 fraction=0.3087",
            "share class=2 cells=27752 fraction=0.2098",
            "share class=3 cells=21240 fraction=0.1605",
            "injector 0 cells=42464 stalls=3284 max-wait=27 changes=2498",
            "injector 1 cells=1443 stalls=0 max-wait=30 changes=3136",
            "injector 2 cells=27752 stalls=3753 max-wait=31 changes=10646",
            "injector 3 cells=21240 stalls=1888 max-wait=41 changes=1842",
            "injector 4 cells=39402 stalls=3974 max-wait=30 changes=2541"), out.subList(out.size() - 9, out.size()));
        final long total = 42464 + 40845 + 27752 + 21240;
        final InjectionConfig config = new InjectionConfig().shape(5, 4).cellSize(64).sharedCells(57).idcMarks(5, 7);
        final int[] weights = {26, 25, 17, 13};
        final long[] cells = {42464, 40845, 27752, 21240};
        final long[] slack = {92, 89, 65, 57};
        for (int k = 0; k < 4; k++)
        {
            config.bufferClass(k, 0, Integer.MAX_VALUE, weights[k], k < 2 ? InjectionConfig.Policy.ROUND_ROBIN :
                InjectionConfig.Policy.FIRST_AVAILABLE);
        }
        for (int k = 0; k < 4; k++)
        {
            assertEquals(slack[k], InjectionBounds.shareSlack(config, k, 32));
            assertTrue(Math.abs(cells[k] - total * weights[k] / 81.0) <= slack[k], "class " + k);
            assertEquals(weights[k] / 81.0, (double)cells[k] / total, 0.001, "class " + k);
        }
        config.injectorClass(0, 0).injectorClass(1, 1).injectorClass(2, 2).injectorClass(3, 3).injectorClass(4, 1);
        final long[] high = {167, 330, 188, 288, 330};
        final long[] any = {180, 343, 201, 301, 343};
        final long[] maxWait = {27, 30, 31, 41, 30};
        for (int i = 0; i < 5; i++)
        {
            assertEquals(high[i], InjectionBounds.highWait(config, i, 32, 7), "injector " + i);
            assertEquals(any[i], InjectionBounds.anyWait(config, i, 32, 7), "injector " + i);
            assertTrue(maxWait[i] <= high[i]);
        }
    }

    @Test
    void stepsRunsExactlyThatManyStepsAndResetsAfterTheEndAreNotReached() throws IOException
    {
        final Cli limited = simulate(scenario(
            "class 0 weight 1 reserved 1",
            "injector 0 class 0 marks 0 1 timer 3",
            "steps 4"));
        assertEquals(0, limited.exitCode, limited::toString);
        // no command: the injector's timer still runs out (held high since step 0)
        assertEquals(List.of(
            "step 3 priority injector=0 low reason=timer occ=0",
            "share class=0 cells=0 fraction=0.0000",
            "injector 0 cells=0 stalls=0 max-wait=0 changes=1",
            ""), lines(limited.out));
        final Cli unlimited = simulate(scenario(
            "class 0 weight 1 reserved 1",
            "injector 0 class 0 marks 0 1 timer 3",
            "reset 5"));
        assertEquals(List.of(
            "share class=0 cells=0 fraction=0.0000",
            "injector 0 cells=0 stalls=0 max-wait=0 changes=0",
            ""), lines(unlimited.out));
    }

    @Test
    void anEmptyScenarioPrintsNothing() throws IOException
    {
        final Cli cli = simulate(scenario("# nothing", ""));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
    }

    private void refused(final String expected, final String... lines) throws IOException
    {
        final Path file = scenario(lines);
        final Cli cli = simulate(file);
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out, cli::toString);
        assertEquals(expected.replace("FILE", file.toString()), cli.err.replace("\r\n", "\n").trim());
    }

    @Test
    void everyMalformedLineIsReportedInOnePassWithItsColumn() throws IOException
    {
        refused(String.join("\n",
                "FILE:1:1: error: unknown directive 'cells'; expected cell, shared, mtu, idc-threshold, idc-marks, " +
                    "class, injector, command, drain, reset or steps",
                "FILE:2:7: error: mtu 1500 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096",
                "FILE:3:6: error: cell size 100 is not a power of two; give 64, 128, 256, ... 4096",
                "FILE:4:16: error: class weight (cells a round) 256 is out of range; give 1..255",
                "FILE:6:1: error: mtu is already given on line 5; give it once",
                "FILE:7:7: error: drain (cells a step) 'x' is not a number; give digits, 1..2147483647"),
            "cells 4",
            "  mtu 1500",
            "cell 100",
            "class 0 weight 256 reserved 1",
            "mtu 2048",
            "mtu 4096",
            "drain x");
    }

    @Test
    void wordsAndKeywordsOfEachDirective() throws IOException
    {
        refused(String.join("\n",
                "FILE:1:1: error: class takes 5 to 7 words after it, got 2; write 'class K weight W reserved R " +
                    "[policy rr|first]'",
                "FILE:2:9: error: expected 'weight', got 'wieght'; write 'class K weight W reserved R [policy rr|first]'",
                "FILE:3:36: error: policy 'fifo' is not rr or first; write 'policy rr' (round robin, the default) " +
                    "or 'policy first' (first available)",
                "FILE:4:30: error: 'timer' needs a value; write 'timer STEPS', or leave it out (never demoted by time)",
                "FILE:5:11: error: command kind 'put' is not idc or dma; write 'command I idc|dma BYTES [COUNT]'",
                "FILE:6:28: error: the high mark 4 is not above the low mark 4; give LOW < HIGH (hysteresis: high " +
                    "priority at or below LOW, low at or above HIGH)"),
            "class 0 weight",
            "class 0 wieght 1 reserved 1",
            "class 0 weight 1 reserved 1 policy fifo",
            "injector 0 class 0 marks 4 8 timer",
            "command 0 put 100",
            "injector 1 class 0 marks 4 4");
    }

    @Test
    void numbersAndOrderOfClassesInjectorsAndCommands() throws IOException
    {
        refused(String.join("\n",
                "FILE:2:7: error: class 2 comes before class 1; number the classes 0, 1, 2, ... in file order",
                "FILE:3:7: error: class 0 is already declared on line 1; declare it once",
                "FILE:4:10: error: injector 1 comes before injector 0; number the injectors 0, 1, 2, ... in file order",
                "FILE:5:18: error: class 3 is not declared; declare 'class 3 weight W reserved R' before its injectors",
                "FILE:6:9: error: injector 5 is not declared; declare 'injector 5 class K marks LOW HIGH' before its " +
                    "commands",
                "FILE:8:7: error: a reset at step 9 is already given on line 7; give each step once",
                "FILE:9:10: error: injector 0 is already declared on line 5; declare it once"),
            "class 0 weight 1 reserved 1",
            "class 2 weight 1 reserved 1",
            "class 0 weight 1 reserved 1",
            "injector 1 class 0 marks 1 2",
            "injector 0 class 3 marks 1 2",
            "command 5 idc 100",
            "reset 9",
            "reset 9",
            "injector 0 class 0 marks 1 2");
    }

    /** A number refused on its own is reported once, and the line declares nothing (found by fuzzing). */
    @Test
    void aClassOrInjectorNumberThatIsNotANumberIsReportedOnce() throws IOException
    {
        refused(String.join("\n",
                "FILE:1:7: error: class number 'x' is not a number; give digits, 0..63",
                "FILE:2:10: error: injector number 300 is out of range; give 0..255"),
            "class x weight 1 reserved 1",
            "injector 300 class 0 marks 1 2");
    }

    @Test
    void commandsMustMatchTheirKindAndFitTheirClass() throws IOException
    {
        refused(String.join("\n",
                "FILE:5:15: error: an IDC carries at most the IDC threshold of 224 bytes, not 300; write " +
                    "'command 0 dma 300' or raise 'idc-threshold'",
                "FILE:6:15: error: a DMA command carries more than the IDC threshold of 224 bytes, not 100; write " +
                    "'command 0 idc 100'",
                "FILE:7:15: error: its largest packet of 2048 bytes takes 8 cells of 256 bytes, more than class 0 " +
                    "can ever hold (3 reserved + 4 shared); raise the class's reserved cells or 'shared', or lower " +
                    "the mtu"),
            "shared 4",
            "class 0 weight 1 reserved 3",
            "injector 0 class 0 marks 1 2",
            "",
            "command 0 idc 300",
            "command 0 dma 100",
            "command 0 dma 5000");
    }

    @Test
    void theIdcThresholdIsAtMostTheMtuAndAllowsAnIdcUpToIt() throws IOException
    {
        refused("FILE:2:15: error: the IDC threshold 4096 is more than the MTU 2048; an IDC is one packet, so give " +
                "a threshold up to the MTU",
            "mtu 2048",
            "idc-threshold 4096");
        final Cli cli = simulate(scenario(
            "idc-threshold 512",
            "class 0 weight 1 reserved 2",
            "injector 0 class 0 marks 1 2",
            "command 0 idc 512",
            "command 0 dma 513"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.startsWith("step 1 inject injector=0 class=0 cmd=idc bytes=512 cells=2 occ=2 prio=high"),
            cli::toString);
    }

    @Test
    void theBufferIsBounded() throws IOException
    {
        refused("FILE:3:27: error: the buffer would be 65600 cells of 4096 bytes by this line, more than the " +
                "simulator's 16 MiB; lower the reserved cells, 'shared' or 'cell'",
            "cell 4096",
            "shared 64",
            "class 0 weight 1 reserved 65536");
        refused("FILE:1:8: error: the buffer has no cells; give 'shared' or a class's reserved cells more than 0",
            "shared 0",
            "class 0 weight 1 reserved 0");
    }

    @Test
    void aRunLongerThanAMillionStepsIsRefusedAtItsCommandUnlessStepsStopsIt() throws IOException
    {
        refused("FILE:4:18: error: the commands up to this line make 2147483647 packets of 2147483647 cells, up " +
                "to 4563402752 steps at drain 8, more than the simulator's 1000000: it prints a line an event, so " +
                "lower the counts, or stop the run with 'steps N' (N up to 1000000)",
            "class 0 weight 1 reserved 1",
            "injector 0 class 0 marks 1 2",
            "command 0 idc 10 1000",
            "command 0 idc 10 2147482647");
        final Cli cli = simulate(scenario(
            "class 0 weight 1 reserved 1",
            "injector 0 class 0 marks 1 2",
            "command 0 idc 10 2147483647",
            "steps 3"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.contains("injector 0 cells=3 stalls=0 max-wait=0 changes=0"), cli::toString);
    }

    @Test
    void aLineLongerThanTheLimitStopsTheReadingInOneLine() throws IOException
    {
        refused("FILE:1:4097: error: line longer than 4096 bytes, the most vlink reads (files up to 1048576 bytes): " +
                "check that this is the file you meant",
            "# " + "x".repeat(TextLines.MAX_LINE_BYTES),
            "steps 0");
    }

    @Test
    void aFileLargerThanTheLimitIsRefusedWhole() throws IOException
    {
        final Path file = dir.resolve("big.inj");
        try (RandomAccessFile big = new RandomAccessFile(file.toFile(), "rw"))
        {
            big.setLength(TextLines.MAX_FILE_BYTES + 1L);
        }
        final Cli cli = simulate(file);
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        assertEquals(file + ": error: file of 1048577 bytes, longer than the 1048576 vlink reads (lines up to 4096 " +
            "bytes): check that this is the file you meant\n", cli.err);
    }

    @Test
    void aMissingFileIsAFailureAndNoFileIsAUsageError()
    {
        final Cli missing = Cli.run("inject", "simulate", dir.resolve("absent.inj").toString());
        assertEquals(1, missing.exitCode, missing::toString);
        assertEquals(dir.resolve("absent.inj") + ": error: cannot read: no such file\n", missing.err);
        assertEquals(2, Cli.run("inject", "simulate").exitCode);
        assertEquals(2, Cli.run("inject").exitCode);
    }

    @Test
    void theCommandIsListedByVlinkHelp()
    {
        final Cli cli = Cli.run("--help");
        assertTrue(cli.out.contains("inject"), cli::toString);
    }
}
