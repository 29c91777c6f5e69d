package io.vlink.tools;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The files a command writes its results to, for every command the same way (docs/cli.md, "Output files"): each one
 * opened before the command does any work ({@link #open}: one that cannot be is one line on stderr and exit 1, and
 * nothing runs); each written whole or not at all after the work ({@link #write}); each failure afterwards one line of
 * its own, {@code vlink CMD: --json FILE: reason}, that leaves the command's verdict on its work alone and makes the
 * exit status {@link #EXIT_OUTPUT_FAILED} when that verdict was a pass ({@link #exitCode}).
 */
final class Outputs implements AutoCloseable
{
    /** The command's work held (its data verdict is a pass) but an output could not be written. */
    static final int EXIT_OUTPUT_FAILED = 4;

    private final String command;
    private final PrintWriter err;
    private final List<OutputFile> files = new ArrayList<>(2);
    private OutputFile json;
    private OutputFile report;
    private boolean failed;

    /**
     * @param command the command's name for its lines ({@code vlink soak}).
     * @param err     where the lines go.
     */
    Outputs(final String command, final PrintWriter err)
    {
        this.command = command;
        this.err = err;
    }

    /**
     * Open an output before any work.
     *
     * @param option the option that names it.
     * @param path   its value; null (not given) or {@code -} (standard output) open nothing.
     * @return the file, or null for nothing to open.
     * @throws OutputFile.Failed when it cannot be written.
     */
    private OutputFile open(final String option, final String path) throws OutputFile.Failed
    {
        if (null == path || "-".equals(path))
        {
            return null;
        }
        final OutputFile file = OutputFile.open(option, Path.of(path));
        files.add(file);
        return file;
    }

    /**
     * The summary's outputs every command that runs traffic has, before any work: {@code --json} and
     * {@code --report} opened, {@code --dir} checked.
     *
     * @param jsonPath   {@code --json}'s value, or null.
     * @param reportPath {@code --report}'s value, or null.
     * @param directory  {@code --dir}'s value, or null.
     * @throws OutputFile.Failed when one cannot be written.
     */
    void openSummaries(final String jsonPath, final Path reportPath, final File directory) throws OutputFile.Failed
    {
        json = open("--json", jsonPath);
        report = open("--report", null == reportPath ? null : reportPath.toString());
        if (null != directory)
        {
            OutputFile.checkDirectory("--dir", directory);
        }
    }

    /**
     * @param content the JSON summary, made only when {@code --json} names a file.
     */
    void writeJson(final Supplier<String> content)
    {
        write(json, content);
    }

    /**
     * @param content the report, made only when {@code --report} names a file.
     */
    void writeReport(final Supplier<String> content)
    {
        write(report, content);
    }

    /**
     * Say that an output could not be opened before the run: one line.
     *
     * @param refused what {@link #open} or a check threw.
     * @return the exit status of a command that could not run: 1.
     */
    int refused(final OutputFile.Failed refused)
    {
        close();
        line(refused.getMessage());
        return Vlink.EXIT_FAILURE;
    }

    /**
     * Write an output after the work; a failure is one line and marks the run.
     *
     * @param file    the output, or null for none.
     * @param content its content, made only when there is a file.
     */
    private void write(final OutputFile file, final Supplier<String> content)
    {
        if (null != file)
        {
            try
            {
                file.write(content.get());
            }
            catch (final OutputFile.Failed ex)
            {
                failed(ex.getMessage());
            }
        }
    }

    /**
     * An output that failed on its own (a capture that stopped): one line.
     *
     * @param line {@code OPTION FILE: reason}.
     */
    void failed(final String line)
    {
        failed = true;
        line(line);
    }

    /**
     * @return whether an output could not be written.
     */
    boolean anyFailed()
    {
        return failed;
    }

    /**
     * @param workExit the exit status the command's work earned (0 when it held).
     * @return it, or {@link #EXIT_OUTPUT_FAILED} when the work held and an output failed.
     */
    int exitCode(final int workExit)
    {
        return 0 == workExit && failed ? EXIT_OUTPUT_FAILED : workExit;
    }

    /** Remove the temporary files of outputs not written (the command stopped before its results). */
    @Override
    public void close()
    {
        for (final OutputFile file : files)
        {
            file.close();
        }
    }

    private void line(final String text)
    {
        err.println(command + ": " + text);
        err.flush();
    }
}
