package io.vlink.tools;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs {@code vlink} in-process and captures what it prints, for CLI tests.
 */
public final class Cli
{
    public final int exitCode;
    public final String out;
    public final String err;

    private Cli(final int exitCode, final String out, final String err)
    {
        this.exitCode = exitCode;
        this.out = out;
        this.err = err;
    }

    public static Cli run(final String... args)
    {
        final CommandLine commandLine = Vlink.commandLine();
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int exitCode = commandLine.execute(args);
        return new Cli(exitCode, out.toString(), err.toString());
    }

    @Override
    public String toString()
    {
        return "exit=" + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
