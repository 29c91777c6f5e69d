package io.vlink.tools.soak;

import io.vlink.nic.agent.ThreadingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A two-process soak whose peer process never runs (here: its main class does not exist) ends at once with one
 * line naming the peer, its exit and the last line it wrote on stderr, and leaves no file.
 */
class SoakPeerStartTest
{
    @TempDir
    File dir;

    @Test
    void aPeerThatNeverStartsIsOneLineAndNoFileIsLeft()
    {
        final SoakSettings options = new SoakSettings();
        options.shm = true;
        options.peerCommand = List.of("io.vlink.tools.NoSuchMain", "soak");
        options.directory = dir;
        options.threading = ThreadingMode.INVOKER;
        options.packets = 100;
        options.sizeMin = 512;
        options.sizeMax = 512;

        final IllegalStateException ex =
            assertThrows(IllegalStateException.class, () -> SoakRunner.run(options, null));
        assertTrue(ex.getMessage().matches("the peer process \\d+ \\(port B\\) exited with 1 before the soak ended; " +
            "its last words: .*io\\.vlink\\.tools\\.NoSuchMain.*"), ex.getMessage());
        assertFalse(ex.getMessage().contains("\n"), "one line");
        assertEquals(0, Objects.requireNonNull(dir.list()).length, String.join(", ", dir.list()));
    }
}
