package io.vlink.bench;

import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * JMH's main with the JVM flags of the parent pom ({@code vlink.jvm.flags}) prepended to every fork,
 * so a benchmark of Agrona code runs with no flag to remember. Takes JMH's own command line:
 * {@code bench/run CrcBenchmark -prof gc}.
 */
public final class BenchMain
{
    private BenchMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final CommandLineOptions cli = new CommandLineOptions(args);
        final Runner lister = new Runner(cli);
        if (cli.shouldHelp())
        {
            cli.showHelp();
            return;
        }
        if (cli.shouldList())
        {
            lister.list();
            return;
        }
        if (cli.shouldListWithParams())
        {
            lister.listWithParams(cli);
            return;
        }
        if (cli.shouldListProfilers())
        {
            cli.listProfilers();
            return;
        }

        // Prepended, not appended: an append option set here would replace the jvmArgsAppend of a benchmark's
        // own @Fork annotation (JMH takes the command line's over the annotation's), silently dropping flags
        // such as PipelineBenchmark's -Dagrona.disable.bounds.checks=true.
        final List<String> jvmArgs = new ArrayList<>(Arrays.asList(jvmFlags()));
        if (cli.getJvmArgsPrepend().hasValue())
        {
            jvmArgs.addAll(cli.getJvmArgsPrepend().get());
        }
        final ChainedOptionsBuilder options = new OptionsBuilder().parent(cli)
            .jvmArgsPrepend(jvmArgs.toArray(new String[0]));
        new Runner(options.build()).run();
    }

    static String[] jvmFlags() throws IOException
    {
        try (InputStream in = BenchMain.class.getResourceAsStream("/jvm.flags"))
        {
            if (in == null)
            {
                throw new IllegalStateException("jvm.flags missing from the benchmarks jar: rebuild with Maven");
            }
            final String flags = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return flags.isEmpty() ? new String[0] : flags.split("\\s+");
        }
    }
}
