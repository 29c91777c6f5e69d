package io.vlink.core.config;

import java.util.Objects;

/**
 * One finding about a configuration or scenario file, printed the way compilers print them:
 * {@code FILE:LINE:COLUMN: error|warning: message}. Lines and columns count from 1; a column of 0
 * means the finding is about the whole line and is left out of the printed form.
 */
public final class Diagnostic
{
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
        this.file = Objects.requireNonNull(file, "file");
        this.line = line;
        this.column = column;
        this.severity = Objects.requireNonNull(severity, "severity");
        this.message = Objects.requireNonNull(message, "message");
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
