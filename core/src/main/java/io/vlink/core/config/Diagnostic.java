package io.vlink.core.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * One finding about a configuration or scenario file, printed the way compilers print them:
 * {@code FILE:LINE:COLUMN: error|warning: message}. Lines and columns count from 1; a column of 0
 * means the finding is about the whole line and is left out of the printed form.
 * <p>
 * A finding quotes what the user wrote, and the user may have given a binary file: this is the one place that
 * makes such text safe to print. Every control character of the file name and the message (C0, DEL and C1: ESC,
 * BEL, a carriage return, a tab) is printed escaped ({@code \x1b}, {@code \t}), so nothing reaches the terminal
 * raw, and readers quote the input through {@link #excerpt(CharSequence)}, at most {@value #MAX_EXCERPT}
 * characters of it.
 */
public final class Diagnostic
{
    /** The most characters of the input a finding quotes. */
    public static final int MAX_EXCERPT = 80;
    /** The reason a directory cannot be read as a file. */
    public static final String IS_A_DIRECTORY = "is a directory";

    public enum Severity
    {
        ERROR("error"), WARNING("warning");

        private final String label;

        Severity(final String label)
        {
            this.label = label;
        }

        public String label()
        {
            return label;
        }
    }

    private final String file;
    private final int line;
    private final int column;
    private final Severity severity;
    private final String message;

    public Diagnostic(final String file, final int line, final int column, final Severity severity, final String message)
    {
        this.file = escape(Objects.requireNonNull(file, "file"));
        this.line = line;
        this.column = column;
        this.severity = Objects.requireNonNull(severity, "severity");
        this.message = escape(Objects.requireNonNull(message, "message"));
    }

    /**
     * A file that cannot be read: {@code FILE: error: cannot read: reason}, the one form every command uses.
     *
     * @param file   the file as the user named it.
     * @param reason why, in words (see {@link #reason(IOException)}).
     * @return the finding.
     */
    public static Diagnostic cannotRead(final String file, final String reason)
    {
        return new Diagnostic(file, 0, 0, Severity.ERROR, "cannot read: " + reason);
    }

    /**
     * @param file the file as the user named it.
     * @param ex   what reading it threw.
     * @return {@code FILE: error: cannot read: reason}.
     */
    public static Diagnostic cannotRead(final String file, final IOException ex)
    {
        return cannotRead(file, reason(ex));
    }

    /**
     * Says why a file could not be read the way the system says it ({@code no such file}, {@code permission denied},
     * {@code is a directory}), without Java's class names or a repeat of the file name.
     *
     * @param ex what reading threw.
     * @return the reason, in lower case.
     */
    public static String reason(final IOException ex)
    {
        if (ex instanceof NoSuchFileException)
        {
            // a path through a regular file: some JDKs say "no such file", the system says "not a directory"
            final String file = ((NoSuchFileException)ex).getFile();
            return null != file && throughAFile(Path.of(file)) ? "not a directory" : "no such file";
        }
        if (ex instanceof AccessDeniedException)
        {
            return "permission denied";
        }
        String reason = ex instanceof FileSystemException ? ((FileSystemException)ex).getReason() : ex.getMessage();
        if (reason == null || reason.isEmpty())
        {
            reason = "input/output error";
        }
        return reason.substring(0, 1).toLowerCase(Locale.ROOT) + reason.substring(1);
    }

    private static boolean throughAFile(final Path path)
    {
        try
        {
            for (Path parent = path.getParent(); null != parent; parent = parent.getParent())
            {
                if (Files.exists(parent))
                {
                    return !Files.isDirectory(parent);
                }
            }
        }
        catch (final RuntimeException ignore)
        {
            // not a path the file system can check: keep the exception's own word
        }
        return false;
    }

    /**
     * The part of the input a finding quotes: at most {@value #MAX_EXCERPT} characters, then {@code ...}; the
     * constructor escapes what it holds.
     *
     * @param input what the user wrote.
     * @return the text to quote.
     */
    public static String excerpt(final CharSequence input)
    {
        return input.length() <= MAX_EXCERPT ? input.toString() : input.subSequence(0, MAX_EXCERPT) + "...";
    }

    /**
     * @param text any text.
     * @return the text with every control character (C0, DEL, C1) as {@code \xHH}, a tab as {@code \t}.
     */
    public static String escape(final String text)
    {
        int i = 0;
        while (i < text.length() && !isControl(text.charAt(i)))
        {
            i++;
        }
        if (i == text.length())
        {
            return text;
        }
        final StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '\t')
            {
                sb.append("\\t");
            }
            else if (isControl(c))
            {
                sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isControl(final char c)
    {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F);
    }

    public String file()
    {
        return file;
    }

    public int line()
    {
        return line;
    }

    public int column()
    {
        return column;
    }

    public Severity severity()
    {
        return severity;
    }

    public String message()
    {
        return message;
    }

    public boolean isError()
    {
        return severity == Severity.ERROR;
    }

    /**
     * @return the same finding as an error (strict mode turns every warning into an error).
     */
    public Diagnostic asError()
    {
        return severity == Severity.ERROR ? this : new Diagnostic(file, line, column, Severity.ERROR, message);
    }

    /**
     * @return {@code FILE:LINE:COLUMN: } (or {@code FILE:LINE: } without a column), the location prefix.
     */
    public String location()
    {
        final StringBuilder sb = new StringBuilder(file);
        if (line > 0)
        {
            sb.append(':').append(line);
            if (column > 0)
            {
                sb.append(':').append(column);
            }
        }
        return sb.append(": ").toString();
    }

    /**
     * @return {@code FILE:LINE:COLUMN: error|warning: message}.
     */
    @Override
    public String toString()
    {
        return location() + severity.label() + ": " + message;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof Diagnostic))
        {
            return false;
        }
        final Diagnostic that = (Diagnostic)o;
        return line == that.line && column == that.column && file.equals(that.file) &&
            severity == that.severity && message.equals(that.message);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(file, line, column, severity, message);
    }
}
