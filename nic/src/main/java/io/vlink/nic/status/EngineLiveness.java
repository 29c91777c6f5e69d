package io.vlink.nic.status;

/**
 * What a reader can tell about the engine behind a counters file.
 */
public enum EngineLiveness
{
    /** The process is running and the heartbeat is recent. */
    LIVE("live"),
    /**
     * The process is running but the heartbeat is older than the timeout: an engine in invoker mode that nobody
     * drives, or one that is stuck.
     */
    SILENT("silent"),
    /** The process that wrote the file is gone: a stale file left by a process that did not close its engine. */
    DEAD("dead");

    private final String label;

    EngineLiveness(final String label)
    {
        this.label = label;
    }

    /**
     * @return the stable lower-case word {@code vlink stat} prints.
     */
    public String label()
    {
        return label;
    }
}
