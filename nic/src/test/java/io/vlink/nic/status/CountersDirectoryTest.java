package io.vlink.nic.status;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The default directory of counters files: one per user, in shared memory where the machine has it (Aeron's
 * {@code /dev/shm/aeron-$USER}), else in the temporary directory; the {@code vlink.dir} property overrides both.
 */
class CountersDirectoryTest
{
    @TempDir
    File dir;

    @Test
    void perUserInSharedMemoryWhereThereIsSomeElseInTheTemporaryDirectory() throws IOException
    {
        final File shm = new File(dir, "shm");
        assertEquals(new File("/tmp", "vlink-alice"),
            CountersFileDescriptor.defaultDirectory(null, "/tmp", "alice"));
        assertEquals(new File("/tmp", "vlink-alice"),
            CountersFileDescriptor.defaultDirectory(shm, "/tmp", "alice"), "no such directory: the temporary one");
        assertEquals(true, shm.mkdir());
        assertEquals(new File(shm, "vlink-alice"), CountersFileDescriptor.defaultDirectory(shm, "/tmp", "alice"));
        assertEquals(new File(shm, "vlink-bob"), CountersFileDescriptor.defaultDirectory(shm, "/tmp", "bob"));
    }

    @Test
    void thePropertyOverridesTheDefault()
    {
        final String before = System.getProperty(CountersFileDescriptor.DIR_PROP_NAME);
        try
        {
            System.setProperty(CountersFileDescriptor.DIR_PROP_NAME, dir.getPath());
            assertEquals(dir, CountersFileDescriptor.defaultDirectory());
            System.clearProperty(CountersFileDescriptor.DIR_PROP_NAME);
            final String user = System.getProperty("user.name", "default");
            final File expected = new File("/dev/shm").isDirectory() && System.getProperty("os.name").startsWith("Linux") ?
                new File("/dev/shm", "vlink-" + user) : new File(System.getProperty("java.io.tmpdir"), "vlink-" + user);
            assertEquals(expected, CountersFileDescriptor.defaultDirectory());
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(CountersFileDescriptor.DIR_PROP_NAME);
            }
            else
            {
                System.setProperty(CountersFileDescriptor.DIR_PROP_NAME, before);
            }
        }
    }
}
