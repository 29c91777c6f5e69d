package io.vlink.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON parser for tests: objects become {@code LinkedHashMap}, arrays {@code List},
 * numbers {@code Double} or {@code Long}, and anything that is not JSON throws. Tests parse what the
 * command prints instead of matching substrings.
 */
public final class Json
{
    private final String s;
    private int i;

    private Json(final String s)
    {
        this.s = s;
    }

    public static Object parse(final String text)
    {
        final Json p = new Json(text);
        final Object v = p.value();
        p.ws();
        if (p.i != text.length())
        {
            throw p.error("trailing text");
        }
        return v;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(final String text)
    {
        return (Map<String, Object>)parse(text);
    }

    private Object value()
    {
        ws();
        if (i >= s.length())
        {
            throw error("unexpected end");
        }
        final char c = s.charAt(i);
        switch (c)
        {
            case '{': return obj();
            case '[': return arr();
            case '"': return str();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default: return num();
        }
    }

    private Map<String, Object> obj()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        i++;
        ws();
        if (peek() == '}')
        {
            i++;
            return map;
        }
        while (true)
        {
            ws();
            final String key = str();
            ws();
            expect(':');
            if (map.put(key, value()) != null)
            {
                throw error("duplicate key " + key);
            }
            ws();
            if (peek() == ',')
            {
                i++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> arr()
    {
        final List<Object> list = new ArrayList<>();
        i++;
        ws();
        if (peek() == ']')
        {
            i++;
            return list;
        }
        while (true)
        {
            list.add(value());
            ws();
            if (peek() == ',')
            {
                i++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private String str()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            if (i >= s.length())
            {
                throw error("unterminated string");
            }
            final char c = s.charAt(i++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c < 0x20)
            {
                throw error("control character in string");
            }
            if (c == '\\')
            {
                final char e = s.charAt(i++);
                switch (e)
                {
                    case '"': sb.append('"'); break;
                    case '\\': sb.append('\\'); break;
                    case '/': sb.append('/'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u': sb.append((char)Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: throw error("bad escape");
                }
            }
            else
            {
                sb.append(c);
            }
        }
    }

    private Object num()
    {
        final int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0)
        {
            i++;
        }
        final String t = s.substring(start, i);
        if (t.isEmpty())
        {
            throw error("unexpected character");
        }
        if (t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0)
        {
            return Long.parseLong(t);
        }
        return Double.parseDouble(t);
    }

    private Object literal(final String word, final Object value)
    {
        if (!s.startsWith(word, i))
        {
            throw error("unexpected literal");
        }
        i += word.length();
        return value;
    }

    private void ws()
    {
        while (i < s.length() && Character.isWhitespace(s.charAt(i)))
        {
            i++;
        }
    }

    private char peek()
    {
        return i < s.length() ? s.charAt(i) : '\0';
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException(what + " at " + i + " in: " + s);
    }
}
