package io.vlink.core.fuzz;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosPort;
import io.vlink.core.qos.QosReader;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Fuzzes the strict {@code opensm.conf} reader with mutated real OpenSM files and arbitrary bytes: the outcome is
 * a {@link Result<QosConfig>} (or a {@link ConfigException} from {@code orThrow()}), never another exception, and
 * every diagnostic points inside the file: a line from 1 to the last (0 for findings about OpenSM's defaults) and
 * a column inside that line, or 0 for the whole line.
 */
@AddLifecycleHook(FuzzTries.class)
class QosFuzzTest
{

    /** jqwik properties take no JUnit Jupiter {@code @TempDir}: one directory for the class, one file rewritten. */
    private static final Path DIR = Fuzz.tempDir("qos-fuzz");

    @Property(tries = 600, seed = "7301")
    void mutatedRealFiles(@ForAll final long seed) throws IOException
    {
        final Mutator mutator = new Mutator(seed);
        final List<String> original = FuzzInputs.OPENSM_FILES.get(mutator.random().nextInt(FuzzInputs.OPENSM_FILES.size()));
        final String text = mutator.mutateText(original, 1 + mutator.random().nextInt(6));
        check(text.getBytes(StandardCharsets.ISO_8859_1), mutator, "seed " + seed);
    }

    @Property(tries = 600, seed = "7302")
    void arbitraryBytes(@ForAll @Size(max = 600) final byte[] bytes, @ForAll final long seed) throws IOException
    {
        check(bytes, new Mutator(seed), Base64.getEncoder().encodeToString(bytes));
    }

    @Property(tries = 600, seed = "7303")
    void qosLinesOfRandomTokens(@ForAll final long seed) throws IOException
    {
        // lines built from the keys and the value syntax: reach the value parsers far more often than random bytes
        final Mutator mutator = new Mutator(seed);
        final List<String> lines = new ArrayList<>();
        final String[] keys = {"qos_max_vls", "qos_high_limit", "qos_vlarb_high", "qos_vlarb_low", "qos_sl2vl",
            "qos_ca_max_vls", "qos_ca_high_limit", "qos_ca_vlarb_high", "qos_ca_vlarb_low", "qos_ca_sl2vl",
            "qos_swe_vlarb_low", "qos_sw0_sl2vl", "qos_rtr_high_limit", "max_op_vls", "qos", "qos_policy_file"};
        final String[] values = {"0:4,1:0,2:0", "0:64,1:128,2:192,3:255,4:1", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
            "15", "8", "4", "0", "-1", "255", "256", "(null)", "\"0:4\"", "TRUE", "0x0f", "0:4,", "0:4,,1:4", "0:",
            ":4", "16:4", "0:256", "1,2,3"};
        final int count = 1 + mutator.random().nextInt(12);
        for (int i = 0; i < count; i++)
        {
            lines.add(keys[mutator.random().nextInt(keys.length)] + " " + values[mutator.random().nextInt(values.length)]);
        }
        final String text = mutator.mutateText(lines, mutator.random().nextInt(4));
        check(text.getBytes(StandardCharsets.ISO_8859_1), mutator, "seed " + seed);
    }

    private void check(final byte[] bytes, final Mutator mutator, final String input) throws IOException
    {
        final Path file = Files.write(DIR.resolve("opensm.conf"), bytes);
        final List<String> lines = Fuzz.lines(bytes);
        final PortType portType = PortType.values()[mutator.random().nextInt(PortType.values().length)];
        final boolean strict = mutator.random().nextBoolean();

        final Result<QosConfig> result;
        try
        {
            result = QosReader.read(file, portType, strict);
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError(input + ": the reader threw", ex);
        }
        checkResult(result, file.toString(), lines, input);

        // as check reads it, on a port of random VL capabilities and table capacities
        final int[] vls = {1, 2, 4, 8, 15};
        final QosPort port = QosPort.vlink().vlCap(vls[mutator.random().nextInt(vls.length)])
            .peerVlCap(vls[mutator.random().nextInt(vls.length)])
            .caps(1 + mutator.random().nextInt(QosPort.MAX_CAP), 1 + mutator.random().nextInt(QosPort.MAX_CAP));
        final QosReader.Mode mode = mutator.random().nextBoolean() ? QosReader.Mode.CHECK : QosReader.Mode.APPLY;
        final Result<QosConfig> checked;
        try
        {
            checked = QosReader.read(file, portType, port, mode, strict);
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError(input + ": the reader threw on " + port + " in " + mode, ex);
        }
        checkResult(checked, file.toString(), lines, input);

        // the line-by-line entry the arbitration simulator uses, with a data-VL override and the other burst policy
        final QosReader reader = new QosReader("scenario");
        for (int i = 0; i < lines.size(); i++)
        {
            reader.line(i + 1, lines.get(i));
        }
        final int[] overrides = {0, 1, 2, 4, 8, 15};
        final Result<QosConfig> fed = reader.finish(portType, overrides[mutator.random().nextInt(overrides.length)],
            mutator.random().nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET, strict);
        checkResult(fed, "scenario", lines, input);
    }

    static void checkResult(final Result<QosConfig> result, final String file, final List<String> lines, final String input)
    {
        assertNotNull(result, input);
        final boolean errors = result.diagnostics().stream().anyMatch(Diagnostic::isError);
        assertEquals(!errors, result.ok(), input);
        if (result.ok())
        {
            assertNotNull(result.value(), input);
            assertEquals(result.value(), result.orThrow(), input);
        }
        else
        {
            assertNull(result.value(), input);
            final ConfigException ex = assertThrows(ConfigException.class, result::orThrow, input);
            assertEquals(result.diagnostics(), ex.diagnostics(), input);
        }
        for (final Diagnostic d : result.diagnostics())
        {
            Fuzz.checkLocation(d, file, lines, input);
        }
    }
}
