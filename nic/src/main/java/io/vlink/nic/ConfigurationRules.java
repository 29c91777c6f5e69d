package io.vlink.nic;

import io.vlink.nic.status.CountersFileDescriptor;

import java.io.File;
import java.util.Locale;

/**
 * The rules every setting of an engine, a switch and a fabric is checked by, in one place: a value in its range, a
 * power of two, a default from a system property where the operator may tune it. A value out of range is refused
 * with {@link IllegalArgumentException} naming the setting, the value (and the property it came from) and the range,
 * e.g. {@code burst 0 (system property vlink.burst) is out of range: use 1..4096 (packets the arbiter sends per port
 * per duty cycle)}.
 * <p>
 * Public for the switch's and the fabric's configurations ({@code io.vlink.nic.fabric}), not for applications.
 */
public final class ConfigurationRules
{
    /** The lowest unicast LID (0 is reserved). */
    public static final int MIN_LID = 1;
    /** The highest unicast LID: 0xC000 and above are multicast and the permissive LID. */
    public static final int MAX_LID = 0xBFFF;

    private ConfigurationRules()
    {
    }

    public static int range(final String setting, final int value, final int min, final int max, final String what)
    {
        return (int)range(setting, (long)value, min, max, what, "");
    }

    public static long range(final String setting, final long value, final long min, final long max, final String what)
    {
        return range(setting, value, min, max, what, "");
    }

    public static long range(
        final String setting, final long value, final long min, final long max, final String what, final String origin)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(setting + " " + value + origin + " is out of range: use " + min + ".." +
                (Long.MAX_VALUE == max || Integer.MAX_VALUE == max ? "" : max) + " (" + what + ")");
        }
        return value;
    }

    public static int intSetting(
        final String setting,
        final Integer explicit,
        final String property,
        final int defaultValue,
        final int min,
        final int max,
        final String what)
    {
        return (int)longSetting(setting, null == explicit ? null : explicit.longValue(), property, defaultValue, min,
            max, what);
    }

    public static long longSetting(
        final String setting,
        final Long explicit,
        final String property,
        final long defaultValue,
        final long min,
        final long max,
        final String what)
    {
        if (null != explicit)
        {
            return range(setting, explicit, min, max, what, "");
        }
        final String text = System.getProperty(property);
        if (null == text)
        {
            return defaultValue;
        }
        final long value;
        try
        {
            value = Long.parseLong(text.trim().replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("system property " + property + " '" + text +
                "' is not a whole number: use " + min + ".." + max + " (" + what + ")", ex);
        }
        return range(setting, value, min, max, what, " (system property " + property + ")");
    }

    /**
     * @param explicit the directory a builder was given, or null.
     * @return it, else the {@value CountersFileDescriptor#DIR_PROP_NAME} property's, else the default
     *         ({@link CountersFileDescriptor#defaultDirectory()}: the one place the property is read).
     * @throws IllegalArgumentException when it is a file.
     */
    public static File directory(final File explicit)
    {
        final File directory = null != explicit ? explicit : CountersFileDescriptor.defaultDirectory();
        if (directory.exists() && !directory.isDirectory())
        {
            throw new IllegalArgumentException("directory " + directory +
                (null != explicit ? "" : " (system property " + CountersFileDescriptor.DIR_PROP_NAME + ")") +
                " is a file: give a directory (it is created when missing)");
        }
        return directory;
    }

    public static void powerOfTwo(final String setting, final int value)
    {
        if (Integer.bitCount(value) != 1)
        {
            throw new IllegalArgumentException(setting + " " + value + " is not a power of two: use e.g. " +
                Integer.highestOneBit(value) + " or " + (Integer.highestOneBit(value) << 1));
        }
    }

    public static int lid(final String setting, final int lid)
    {
        if (lid < MIN_LID || lid > MAX_LID)
        {
            throw new IllegalArgumentException(setting + " " + lidText(lid) + " is not a unicast LID: use " +
                lidText(MIN_LID) + ".." + lidText(MAX_LID));
        }
        return lid;
    }

    public static String lidText(final int lid)
    {
        return lid + " (0x" + Integer.toHexString(lid).toUpperCase(Locale.ROOT) + ")";
    }
}
