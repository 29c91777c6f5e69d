package io.vlink.nic;

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The JVM flags an engine needs, checked before it starts: Agrona reaches {@code jdk.internal.misc.Unsafe}
 * ({@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}), and a capture's file goes through Chronicle
 * Bytes, which reaches further into the JDK. Without them the JVM fails deep inside with an
 * {@code IllegalAccessError} (or a capture stops at once); this names the flags that are missing and where they go.
 * <p>
 * The flags come from the build ({@code vlink.jvm.flags} in the parent pom, {@code vlink.chronicle.flags} in nic's),
 * filled into {@code jvm-flags.properties}: the poms stay their one owner. Each {@code --add-exports M/P=T} and
 * {@code --add-opens M/P=T} is checked with {@link Module#isExported(String, Module)} and
 * {@link Module#isOpen(String, Module)} against the module of the library that needs it (the unnamed module on the
 * class path, which {@code ALL-UNNAMED} names).
 */
public final class JvmFlags
{
    private static final String RESOURCE = "jvm-flags.properties";
    /** A class of Chronicle Bytes, looked up without loading it: the module the capture's flags open packages to. */
    private static final String CHRONICLE_CLASS = "net.openhft.chronicle.bytes.MappedBytes";
    private static final String WHERE = "add them to the JVM's command line before -jar or the main class (or to " +
        "JDK_JAVA_OPTIONS, or to the JVM options of your build's test and exec plugins); the README lists them " +
        "under \"Using vlink as a library\"";

    private JvmFlags()
    {
    }

    /**
     * @param capture whether the engine writes a capture (Chronicle's flags too).
     * @return what is missing and where to set it, or null when the JVM has every flag.
     */
    public static String missing(final boolean capture)
    {
        final Properties flags = flags();
        final List<String> missing = missing(flags.getProperty("engine", ""), DirectBuffer.class.getModule());
        if (!missing.isEmpty())
        {
            return "the JVM lacks " + String.join(" ", missing) + ", which Agrona needs to reach " +
                "jdk.internal.misc.Unsafe: " + WHERE.replace("add them", "add it");
        }
        if (capture)
        {
            final Module chronicle;
            try
            {
                chronicle = Class.forName(CHRONICLE_CLASS, false, JvmFlags.class.getClassLoader()).getModule();
            }
            catch (final ClassNotFoundException ex)
            {
                return "a capture needs Chronicle Bytes (net.openhft:chronicle-bytes), which is not on the class path";
            }
            final List<String> captureMissing = missing(flags.getProperty("capture", ""), chronicle);
            if (!captureMissing.isEmpty())
            {
                return "a capture needs JVM flags this JVM lacks, for Chronicle Bytes, which maps the capture file: " +
                    String.join(" ", captureMissing) + ": " + WHERE;
            }
        }
        return null;
    }

    /**
     * @param capture whether the engine writes a capture.
     * @throws IllegalStateException naming the flags that are missing and where they go.
     */
    public static void require(final boolean capture)
    {
        final String missing = missing(capture);
        if (null != missing)
        {
            throw new IllegalStateException(missing);
        }
    }

    /**
     * @param flags  {@code --add-exports M/P=T} and {@code --add-opens M/P=T}, separated by white space.
     * @param target the module that needs them.
     * @return each flag the running JVM lacks, written for {@code target} (its name, or {@code ALL-UNNAMED}).
     */
    static List<String> missing(final String flags, final Module target)
    {
        final List<String> missing = new ArrayList<>();
        final String[] words = flags.trim().split("\\s+");
        for (int i = 0; i + 1 < words.length; i += 2)
        {
            final String option = words[i];
            final String value = words[i + 1];
            final int slash = value.indexOf('/');
            final int equals = value.indexOf('=', slash);
            if (slash < 0 || equals < 0 || !option.startsWith("--add-"))
            {
                continue;
            }
            final String packageName = value.substring(slash + 1, equals);
            final Optional<Module> module = ModuleLayer.boot().findModule(value.substring(0, slash));
            if (module.isEmpty())
            {
                // a JDK without the module (jdk.unsupported left out of a jlink image): nothing to open
                continue;
            }
            final boolean granted = "--add-opens".equals(option) ? module.get().isOpen(packageName, target) :
                module.get().isExported(packageName, target);
            if (!granted)
            {
                missing.add(option + " " + value.substring(0, equals + 1) +
                    (target.isNamed() ? target.getName() : "ALL-UNNAMED"));
            }
        }
        return missing;
    }

    private static Properties flags()
    {
        final Properties flags = new Properties();
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE))
        {
            if (null == in)
            {
                throw new IllegalStateException(RESOURCE + " is missing from vlink-nic's jar: rebuild it with Maven");
            }
            flags.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return flags;
    }
}
