package io.vlink.nic.status;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.SystemUtil;

import java.io.File;
import java.nio.charset.StandardCharsets;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of an engine's counters file: one versioned, memory-mapped file per running engine (in the spirit of
 * Aeron's CnC file), read live by {@code vlink stat} from another process.
 * <p>
 * File layout:
 * <pre>
 *  +-----------------------------+  0
 *  |          Header             |
 *  +-----------------------------+  HEADER_LENGTH
 *  |   Counters metadata buffer  |  (Agrona CountersManager metadata: 512 bytes a counter)
 *  +-----------------------------+
 *  |    Counters values buffer   |  (128 bytes a counter: no false sharing)
 *  +-----------------------------+
 *  |    Distinct error log       |  (Agrona DistinctErrorLog)
 *  +-----------------------------+
 * </pre>
 * Header (little-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Version (0 while the file is being set up; written last)   |
 *  +---------------------------------------------------------------+
 *  |                    Counters metadata length                   |
 *  +---------------------------------------------------------------+
 *  |                     Counters values length                    |
 *  +---------------------------------------------------------------+
 *  |                        Error log length                       |
 *  +---------------------------------------------------------------+
 *  |                       Process id (PID)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Start timestamp (epoch ms)                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |     Heartbeat timestamp (epoch ms; written with release)      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                    Engine name length                         |
 *  +---------------------------------------------------------------+
 *  |               Engine name (US-ASCII, up to 64 bytes)         ...
 *  +---------------------------------------------------------------+
 * </pre>
 * A reader trusts nothing: it checks the version, that the lengths fit the file, and the PID and heartbeat to tell
 * a running engine from the stale file of a process that died without closing.
 */
public final class CountersFileDescriptor
{
    /** Bumped whenever the layout changes; a reader refuses other versions. */
    public static final int VERSION = 1;

    /** File name suffix: {@code <engine-name>-<pid>.counters}. */
    public static final String FILE_SUFFIX = ".counters";

    /** The longest engine name. */
    public static final int MAX_NAME_LENGTH = 64;

    public static final int VERSION_OFFSET = 0;
    public static final int METADATA_LENGTH_OFFSET = VERSION_OFFSET + SIZE_OF_INT;
    public static final int VALUES_LENGTH_OFFSET = METADATA_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int ERROR_LOG_LENGTH_OFFSET = VALUES_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int PID_OFFSET = ERROR_LOG_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int START_TIMESTAMP_OFFSET = PID_OFFSET + SIZE_OF_LONG;
    public static final int HEARTBEAT_OFFSET = START_TIMESTAMP_OFFSET + SIZE_OF_LONG;
    public static final int NAME_LENGTH_OFFSET = HEARTBEAT_OFFSET + SIZE_OF_LONG;
    public static final int NAME_OFFSET = NAME_LENGTH_OFFSET + SIZE_OF_INT;
    /** The header takes two cache lines; the sections start page-friendly after it. */
    public static final int HEADER_LENGTH = BitUtil.align(NAME_OFFSET + MAX_NAME_LENGTH, 4 * BitUtil.CACHE_LINE_LENGTH);

    /** System property naming the directory of counters files. */
    public static final String DIR_PROP_NAME = "vlink.dir";

    private CountersFileDescriptor()
    {
    }

    /**
     * Where engines write their counters files and {@code vlink stat} reads them, one directory per user, as Aeron
     * keeps {@code /dev/shm/aeron-$USER}: the {@value #DIR_PROP_NAME} property, else on Linux
     * {@code /dev/shm/vlink-${user.name}} (memory, never written back to a disk), else
     * {@code ${java.io.tmpdir}/vlink-${user.name}}.
     *
     * @return the directory of counters files.
     */
    public static File defaultDirectory()
    {
        final String dir = System.getProperty(DIR_PROP_NAME);
        if (null != dir && !dir.isEmpty())
        {
            return new File(dir);
        }
        return defaultDirectory(SystemUtil.isLinux() ? new File("/dev/shm") : null, IoUtil.tmpDirName(),
            System.getProperty("user.name", "default"));
    }

    /**
     * @param shm    the shared-memory file system's directory ({@code /dev/shm}), null where there is none.
     * @param tmpDir the temporary directory.
     * @param user   the user's name.
     * @return {@code SHM/vlink-USER} if SHM is a directory, else {@code TMPDIR/vlink-USER}.
     */
    static File defaultDirectory(final File shm, final String tmpDir, final String user)
    {
        return new File(null != shm && shm.isDirectory() ? shm.getPath() : tmpDir, "vlink-" + user);
    }

    /**
     * @param name an engine name.
     * @return the name if it is 1 to 64 characters of letters, digits, {@code .}, {@code _} or {@code -}.
     * @throws IllegalArgumentException otherwise (it becomes part of a file name).
     */
    public static String validateName(final String name)
    {
        if (null == name || name.isEmpty() || name.length() > MAX_NAME_LENGTH || !name.matches("[A-Za-z0-9._-]+"))
        {
            throw new IllegalArgumentException(
                "engine name '" + name + "': use 1 to " + MAX_NAME_LENGTH + " letters, digits, '.', '_' or '-'");
        }
        return name;
    }

    /**
     * @param directory the counters directory.
     * @param name      the engine name.
     * @param pid       the engine's process id.
     * @return the counters file of that engine.
     */
    public static File file(final File directory, final String name, final long pid)
    {
        return new File(directory, name + "-" + pid + FILE_SUFFIX);
    }

    /**
     * @param file a counters file, named as {@link #file} names one.
     * @return the process id in its name, or -1 if its name holds none: what is known of a file too incomplete to
     * read (its process killed while making it).
     */
    public static long pidInName(final File file)
    {
        final String name = file.getName();
        final int dash = name.lastIndexOf('-');
        if (!name.endsWith(FILE_SUFFIX) || dash < 0)
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(dash + 1, name.length() - FILE_SUFFIX.length()));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * @param metadataLength counters metadata length.
     * @param valuesLength   counters values length.
     * @param errorLogLength error log length.
     * @return the length of the whole file.
     */
    public static long fileLength(final int metadataLength, final int valuesLength, final int errorLogLength)
    {
        return (long)HEADER_LENGTH + metadataLength + valuesLength + errorLogLength;
    }

    /**
     * @param header the header.
     * @return the engine name stored in it, bounded to {@link #MAX_NAME_LENGTH} whatever the file says.
     */
    public static String name(final DirectBuffer header)
    {
        final int length = Math.max(0, Math.min(MAX_NAME_LENGTH, header.getInt(NAME_LENGTH_OFFSET)));
        final byte[] bytes = new byte[length];
        header.getBytes(NAME_OFFSET, bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
