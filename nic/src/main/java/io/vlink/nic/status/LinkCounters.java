package io.vlink.nic.status;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters a link writes, and only it (handed to it when it is made: {@link PortCounterSet#link()}). Its
 * transmitting thread writes {@link #framesSent()}, {@link #backPressure()} and {@link #sendErrors()}; its receiving
 * thread the rest. Each with release stores.
 */
public final class LinkCounters
{
    private final AtomicCounter framesSent;
    private final AtomicCounter backPressure;
    private final AtomicCounter sendErrors;
    private final AtomicCounter framesReceived;
    private final AtomicCounter receiveErrors;
    private final AtomicCounter helloSendErrors;
    private final AtomicCounter foreignDrops;
    private final AtomicCounter lengthDrops;
    private final AtomicCounter sessionDrops;
    private final AtomicCounter macDrops;
    private final AtomicCounter replayDrops;

    LinkCounters(final PortCounterSet set)
    {
        framesSent = set.linkFramesSent;
        backPressure = set.linkBackPressure;
        sendErrors = set.linkSendErrors;
        framesReceived = set.linkFramesReceived;
        receiveErrors = set.linkReceiveErrors;
        helloSendErrors = set.linkHelloSendErrors;
        foreignDrops = set.linkForeignDrops;
        lengthDrops = set.linkLengthDrops;
        sessionDrops = set.linkSessionDrops;
        macDrops = set.linkMacDrops;
        replayDrops = set.linkReplayDrops;
    }

    /** @return transmitting thread: frames sent ({@code link_frames_sent}). */
    public AtomicCounter framesSent()
    {
        return framesSent;
    }

    /** @return transmitting thread: claims refused ({@code link_back_pressure}). */
    public AtomicCounter backPressure()
    {
        return backPressure;
    }

    /** @return transmitting thread: frames lost to an I/O error ({@code link_send_errors}). */
    public AtomicCounter sendErrors()
    {
        return sendErrors;
    }

    /** @return receiving thread: frames received, before any check ({@code link_frames_received}). */
    public AtomicCounter framesReceived()
    {
        return framesReceived;
    }

    /** @return receiving thread: I/O errors receiving ({@code link_receive_errors}). */
    public AtomicCounter receiveErrors()
    {
        return receiveErrors;
    }

    /** @return receiving thread: training HELLOs it failed to send ({@code link_hello_send_errors}). */
    public AtomicCounter helloSendErrors()
    {
        return helloSendErrors;
    }

    /** @return receiving thread: datagrams from a stranger ({@code link_foreign_drops}). */
    public AtomicCounter foreignDrops()
    {
        return foreignDrops;
    }

    /** @return receiving thread: frames too long or short ({@code link_length_drops}). */
    public AtomicCounter lengthDrops()
    {
        return lengthDrops;
    }

    /** @return receiving thread: frames of another session ({@code link_session_drops}). */
    public AtomicCounter sessionDrops()
    {
        return sessionDrops;
    }

    /** @return receiving thread: datagrams whose MAC did not match ({@code link_mac_drops}). */
    public AtomicCounter macDrops()
    {
        return macDrops;
    }

    /** @return receiving thread: datagrams seen before ({@code link_replay_drops}). */
    public AtomicCounter replayDrops()
    {
        return replayDrops;
    }
}
