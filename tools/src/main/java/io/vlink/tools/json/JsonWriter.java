package io.vlink.tools.json;

/**
 * A small streaming JSON writer for the command's machine-readable output (no library needed for a few
 * flat documents). Commas and nesting are tracked; strings are escaped per RFC 8259; doubles that are not
 * finite are written as {@code null}, since JSON has no NaN.
 */
public final class JsonWriter
{
    private final StringBuilder out;
    private final boolean[] needsComma = new boolean[32];
    private int depth;
    private boolean afterName;

    public JsonWriter()
    {
        this(new StringBuilder(256));
    }

    public JsonWriter(final StringBuilder out)
    {
        this.out = out;
    }

    public JsonWriter beginObject()
    {
        separate();
        out.append('{');
        push();
        return this;
    }

    public JsonWriter endObject()
    {
        pop();
        out.append('}');
        return this;
    }

    public JsonWriter beginArray()
    {
        separate();
        out.append('[');
        push();
        return this;
    }

    public JsonWriter endArray()
    {
        pop();
        out.append(']');
        return this;
    }

    public JsonWriter name(final String name)
    {
        separate();
        string(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    public JsonWriter value(final String value)
    {
        separate();
        if (value == null)
        {
            out.append("null");
        }
        else
        {
            string(value);
        }
        return this;
    }

    public JsonWriter value(final long value)
    {
        separate();
        out.append(value);
        return this;
    }

    public JsonWriter value(final boolean value)
    {
        separate();
        out.append(value);
        return this;
    }

    public JsonWriter value(final double value)
    {
        separate();
        if (Double.isFinite(value))
        {
            out.append(value);
        }
        else
        {
            out.append("null");
        }
        return this;
    }

    /**
     * A fixed-point number with the given decimals (e.g. a share to 4 places), never in exponent form.
     */
    public JsonWriter value(final double value, final int decimals)
    {
        separate();
        if (Double.isFinite(value))
        {
            out.append(String.format(java.util.Locale.ROOT, "%." + decimals + "f", value));
        }
        else
        {
            out.append("null");
        }
        return this;
    }

    public JsonWriter field(final String name, final long value)
    {
        return name(name).value(value);
    }

    public JsonWriter field(final String name, final double value)
    {
        return name(name).value(value);
    }

    public JsonWriter field(final String name, final boolean value)
    {
        return name(name).value(value);
    }

    public JsonWriter field(final String name, final String value)
    {
        return name(name).value(value);
    }

    @Override
    public String toString()
    {
        return out.toString();
    }

    private void separate()
    {
        if (afterName)
        {
            afterName = false;
            return;
        }
        if (depth > 0)
        {
            if (needsComma[depth])
            {
                out.append(", ");
            }
            needsComma[depth] = true;
        }
    }

    private void push()
    {
        if (++depth >= needsComma.length)
        {
            throw new IllegalStateException("JSON nested too deeply");
        }
        needsComma[depth] = false;
    }

    private void pop()
    {
        if (depth == 0)
        {
            throw new IllegalStateException("unbalanced JSON end");
        }
        depth--;
    }

    private void string(final String s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20)
                    {
                        out.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
