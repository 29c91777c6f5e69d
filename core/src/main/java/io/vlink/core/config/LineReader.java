package io.vlink.core.config;

/**
 * A reader of one kind of vlink file, fed a line at a time by {@link TextLines}: it keeps what it needs of each line
 * (never the lines themselves) and its {@link Findings}, and {@link #finish()} says what the file held. Every reader
 * of vlink is one (topologies, forwarding tables, peers, SL maps, QoS options, the simulators' scenarios), so every
 * file is read within the same limits, line endings and character decoding.
 *
 * @param <T> what the file holds.
 */
public interface LineReader<T>
{
    /**
     * @param number the line's number, from 1.
     * @param line   the line, without its terminator.
     */
    void line(int number, String line);

    /**
     * @return what the lines held, or why not; called once, after the last line.
     */
    Result<T> finish();
}
