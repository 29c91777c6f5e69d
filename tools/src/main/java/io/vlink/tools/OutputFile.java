package io.vlink.tools;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file a command writes its results to ({@code --json}, {@code --report}): opened before the command does any
 * work, and written whole or not at all (docs/cli.md, "Output files").
 * <p>
 * A regular file, or a name that does not exist yet, is written through a temporary file that {@link #open} creates
 * at once in the same directory ({@code .NAME.PID-N.tmp}): a directory that does not exist, cannot be written or is
 * on a read-only file system is found before the run, with the system's reason. {@link #write} fills the temporary
 * file, forces it to the disk and renames it over NAME, so a reader finds the old file or the whole new one; a write
 * that fails (a full file system) removes the temporary file and leaves NAME as it was. Anything else that can be
 * written (a device such as {@code /dev/stdout}, a named pipe) is written directly, as a shell's redirection would.
 * Temporary files that a killed run of any command left beside NAME are removed by the next {@link #open} of NAME.
 */
final class OutputFile implements AutoCloseable
{
    private static final String TEMPORARY_SUFFIX = ".tmp";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final String option;
    private final Path path;
    private final Path target;
    private final Path temporary;

    /**
     * An output that cannot be opened or written: {@link #getMessage()} is {@code OPTION FILE: reason}, the reason
     * as the system says it ({@code No such file or directory}, {@code Permission denied}, {@code No space left on
     * device}).
     */
    static final class Failed extends Exception
    {
        private static final long serialVersionUID = 1L;

        Failed(final String option, final Object file, final String reason)
        {
            super(option + " " + file + ": " + reason);
        }
    }

    private OutputFile(final String option, final Path path, final Path target, final Path temporary)
    {
        this.option = option;
        this.path = path;
        this.target = target;
        this.temporary = temporary;
    }

    /**
     * Open an output before any work: for a regular file (or a new name), its temporary file is created now.
     *
     * @param option the option that names it ({@code --json}), for the message.
     * @param path   the file as the user gave it.
     * @return the output, to {@link #write} once and {@link #close}.
     * @throws Failed when it cannot be written.
     */
    static OutputFile open(final String option, final Path path) throws Failed
    {
        try
        {
            if (Files.isDirectory(path))
            {
                throw new Failed(option, path, "Is a directory");
            }
            if (Files.exists(path) && !Files.isRegularFile(path))
            {
                // a device or a pipe: opening a pipe waits for its reader, so only the permission is checked now
                if (!Files.isWritable(path))
                {
                    throw new Failed(option, path, "Permission denied");
                }
                return new OutputFile(option, path, path, null);
            }
            // the rename replaces what a symbolic link points to, as writing through the link would
            final Path target = Files.exists(path) ? path.toRealPath() : path.toAbsolutePath();
            final Path directory = target.getParent();
            final String name = target.getFileName().toString();
            removeStaleTemporaries(directory, name);
            final Path temporary = directory.resolve("." + name + "." + ProcessHandle.current().pid() + "-" +
                SEQUENCE.incrementAndGet() + TEMPORARY_SUFFIX);
            Files.createFile(temporary);
            return new OutputFile(option, path, target, temporary);
        }
        catch (final IOException ex)
        {
            throw new Failed(option, path, reason(ex));
        }
    }

    /**
     * Check, before any work, that a file another part of the program creates and replaces (a capture) can be
     * created there: a temporary file is created in its directory and removed again.
     *
     * @param option the option that names it.
     * @param path   the file as the user gave it.
     * @throws Failed when it cannot be created, or is not a regular file (a device or a pipe cannot be mapped).
     */
    static void checkCreatable(final String option, final Path path) throws Failed
    {
        if (Files.isDirectory(path))
        {
            throw new Failed(option, path, "Is a directory");
        }
        if (Files.exists(path) && !Files.isRegularFile(path))
        {
            throw new Failed(option, path, "not a regular file; this output is a file that is mapped and replaced: " +
                "give a file name");
        }
        // a temporary file created and removed: the directory takes new files
        open(option, path).close();
    }

    /**
     * Check, before any work, that a directory exists and takes new files.
     *
     * @param option    the option that names it ({@code --dir}).
     * @param directory the directory.
     * @throws Failed when it does not exist, is not a directory or cannot be written.
     */
    static void checkDirectory(final String option, final File directory) throws Failed
    {
        if (!directory.exists())
        {
            throw new Failed(option, directory, "No such file or directory");
        }
        if (!directory.isDirectory())
        {
            throw new Failed(option, directory, "Not a directory");
        }
        try
        {
            Files.delete(Files.createTempFile(directory.toPath(), ".vlink-probe-", TEMPORARY_SUFFIX));
        }
        catch (final IOException ex)
        {
            throw new Failed(option, directory, reason(ex));
        }
    }

    /**
     * Write the whole content: through the temporary file and a rename, or directly to a device or pipe. Once only.
     *
     * @param content the file's text (UTF-8).
     * @throws Failed when it cannot be written; the file is then as it was before.
     */
    void write(final String content) throws Failed
    {
        final ByteBuffer bytes = StandardCharsets.UTF_8.encode(content);
        try
        {
            if (null == temporary)
            {
                try (FileChannel channel = FileChannel.open(target, StandardOpenOption.WRITE))
                {
                    writeFully(channel, bytes);
                }
                return;
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING))
            {
                writeFully(channel, bytes);
                channel.force(true);
            }
            keepPermissions();
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException ex)
        {
            close();
            throw new Failed(option, path, reason(ex));
        }
    }

    /**
     * Remove the temporary file if nothing was written (the command stopped before its results).
     */
    @Override
    public void close()
    {
        if (null != temporary)
        {
            try
            {
                Files.deleteIfExists(temporary);
            }
            catch (final IOException ex)
            {
                // nothing more to do: the next run beside it removes it
            }
        }
    }

    /**
     * Says why a file could not be written the way the system says it, without Java's class names or a repeat of
     * the file name.
     *
     * @param ex what the file system threw.
     * @return the reason, as the C library's {@code strerror} words it where Java's exception carries no text.
     */
    static String reason(final IOException ex)
    {
        if (ex instanceof NoSuchFileException)
        {
            return "No such file or directory";
        }
        if (ex instanceof AccessDeniedException)
        {
            return "Permission denied";
        }
        if (ex instanceof FileAlreadyExistsException)
        {
            return "File exists";
        }
        if (ex instanceof NotDirectoryException)
        {
            return "Not a directory";
        }
        final String reason = ex instanceof FileSystemException ? ((FileSystemException)ex).getReason() :
            ex.getMessage();
        return null == reason || reason.isEmpty() ? "Input/output error" : reason;
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer bytes) throws IOException
    {
        while (bytes.hasRemaining())
        {
            channel.write(bytes);
        }
    }

    /** A file replaced keeps its permissions (the temporary file was made with the process's defaults). */
    private void keepPermissions()
    {
        try
        {
            if (Files.exists(target))
            {
                Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(target));
            }
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            // not a POSIX file system, or not ours to read: the defaults stay
        }
    }

    /** Temporary files of NAME that a run which no longer exists left (killed before it could remove them). */
    private static void removeStaleTemporaries(final Path directory, final String name)
    {
        final String prefix = "." + name + ".";
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, ".*" + TEMPORARY_SUFFIX))
        {
            for (final Path file : stream)
            {
                final String fileName = file.getFileName().toString();
                if (fileName.startsWith(prefix) && isGone(fileName.substring(prefix.length(),
                    fileName.length() - TEMPORARY_SUFFIX.length())))
                {
                    Files.deleteIfExists(file);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // an unreadable directory: creating the temporary file says what is wrong
        }
    }

    /**
     * @param pidAndSequence {@code PID-N} from a temporary file's name.
     * @return whether it names a process that no longer runs (false for anything else).
     */
    private static boolean isGone(final String pidAndSequence)
    {
        final int dash = pidAndSequence.indexOf('-');
        if (dash <= 0)
        {
            return false;
        }
        try
        {
            final long pid = Long.parseLong(pidAndSequence.substring(0, dash));
            Integer.parseInt(pidAndSequence.substring(dash + 1));
            return ProcessHandle.of(pid).map(process -> !process.isAlive()).orElse(true);
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }
}
