package io.vlink.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import io.vlink.nic.JvmFlags;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.List;

/**
 * The {@code vlink} command (docs/cli.md). Results go to stdout, errors to stderr with a
 * non-zero exit code. Subcommands print through {@code spec.commandLine().getOut()/getErr()} so tests
 * can capture them.
 * <p>
 * Exit codes: 0 success; 1 the command ran and found a failure (bad CRCs, a broken invariant, a refused
 * configuration); 2 a usage error (picocli's default).
 */
@Command(
    name = "vlink",
    mixinStandardHelpOptions = true,
    versionProvider = Vlink.Version.class,
    description = "The link layer of an InfiniBand-style software NIC: soak tests, live counters, capture decoding, " +
        "QoS checks and deterministic simulators.",
    subcommands = {
        CommandLine.HelpCommand.class,
        StatCommand.class,
        SchedCommand.class,
        InjectCommand.class,
        ArbCommand.class,
        QosCommand.class,
        DecodeCommand.class,
        SoakCommand.class,
        PerfCommand.class,
        FabricCommand.class,
    })
public final class Vlink implements Runnable
{
    /** The command found a failure (as opposed to a usage error). */
    public static final int EXIT_FAILURE = 1;

    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "missing command");
    }

    /**
     * @return a fresh command line with every subcommand registered.
     */
    public static CommandLine commandLine()
    {
        return new CommandLine(new Vlink())
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setParameterExceptionHandler(Vlink::usageError)
            .setExecutionStrategy(Vlink::execute);
    }

    /**
     * Run the command, once the JVM is known to have the flag every command that touches the engine's buffers needs
     * ({@link JvmFlags}): without it Agrona fails deep inside with an {@code IllegalAccessError}. Help needs no flag.
     */
    static int execute(final ParseResult parseResult)
    {
        ParseResult last = parseResult;
        while (last.hasSubcommand())
        {
            last = last.subcommand();
        }
        final boolean help = last.isUsageHelpRequested() || last.isVersionHelpRequested() ||
            last.commandSpec().userObject() instanceof CommandLine.HelpCommand;
        final String missing = help ? null : JvmFlags.missing(false);
        if (null != missing)
        {
            final PrintWriter err = parseResult.commandSpec().commandLine().getErr();
            err.println("vlink: " + missing + "; the ./vlink launcher adds them");
            err.flush();
            return EXIT_FAILURE;
        }
        return new CommandLine.RunLast().execute(parseResult);
    }

    /**
     * A usage error, for every command: one line that says what is wrong, then where to look, on stderr; exit 2. The
     * whole usage is {@code --help}'s job: printed after every mistake, it pushes the reason off the screen.
     * <pre>
     * vlink soak: --seconds 0: give a positive number of seconds
     * see 'vlink soak --help'
     * </pre>
     */
    static int usageError(final ParameterException ex, final String[] args)
    {
        final CommandLine command = ex.getCommandLine();
        final String name = command.getCommandSpec().qualifiedName();
        final PrintWriter err = command.getErr();
        // picocli names the Java type a value did not convert to
        final String message = ex.getMessage()
            .replaceAll("' is not a (double|float)$", "' is not a number")
            .replaceAll("' is not an? (int|long|short)$", "' is not a whole number");
        final StringBuilder line = new StringBuilder(name).append(": ");
        if (ex instanceof UnmatchedArgumentException)
        {
            final UnmatchedArgumentException unmatched = (UnmatchedArgumentException)ex;
            final String first = unmatched.getUnmatched().isEmpty() ? "" : unmatched.getUnmatched().get(0);
            final boolean word = !first.startsWith("-");
            final List<String> suggestions = unmatched.getSuggestions();
            if (word && !command.getSubcommands().isEmpty())
            {
                line.append("unknown command '").append(first).append('\'');
                if (suggestions.isEmpty())
                {
                    line.append("; the commands are ").append(String.join(", ", command.getSubcommands().keySet()));
                }
            }
            else if (word)
            {
                line.append("unexpected argument '").append(first).append('\'');
            }
            else
            {
                line.append(message);
            }
            if (!suggestions.isEmpty())
            {
                line.append("; did you mean ").append(String.join(" or ", suggestions)).append('?');
            }
        }
        else
        {
            line.append(message);
        }
        err.println(line);
        err.println("see '" + name + " --help'");
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String version = Vlink.class.getPackage().getImplementationVersion();
            return new String[] {"vlink " + (version == null ? "development build" : version)};
        }
    }
}
