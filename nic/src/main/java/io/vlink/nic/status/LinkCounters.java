package io.vlink.nic.status;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters a link writes, and only it (handed to it when it is made: {@link PortCounterSet#link()}). Its
 * transmitting thread writes {@link #framesSent()}, {@link #backPressure()} and {@link #sendErrors()}, and with
 * link-level retry {@link #retransmits()}, {@link #retryTimeouts()}, {@link #replayFull()} and {@link #acksSent()};
 * its receiving thread the rest. Each with release stores. A link with retry and the wire below it are one link: they
 * share the port's set, each counter still written by one thread.
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
    private final AtomicCounter retransmits;
    private final AtomicCounter replayRequests;
    private final AtomicCounter retryTimeouts;
    private final AtomicCounter duplicates;
    private final AtomicCounter outOfOrder;
    private final AtomicCounter replayFull;
    private final AtomicCounter acksSent;
    private final AtomicCounter retryFailures;

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
        retransmits = set.linkRetransmits;
        replayRequests = set.linkReplayRequests;
        retryTimeouts = set.linkRetryTimeouts;
        duplicates = set.linkDuplicates;
        outOfOrder = set.linkOutOfOrder;
        replayFull = set.linkReplayFull;
        acksSent = set.linkAcksSent;
        retryFailures = set.linkRetryFailures;
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

    /** @return transmitting thread: frames sent again ({@code link_retransmits}). */
    public AtomicCounter retransmits()
    {
        return retransmits;
    }

    /** @return receiving thread: replay requests this end sent ({@code link_replay_requests}). */
    public AtomicCounter replayRequests()
    {
        return replayRequests;
    }

    /** @return transmitting thread: retry timer expiries ({@code link_retry_timeouts}). */
    public AtomicCounter retryTimeouts()
    {
        return retryTimeouts;
    }

    /** @return receiving thread: frames received again after they were delivered ({@code link_duplicates}). */
    public AtomicCounter duplicates()
    {
        return duplicates;
    }

    /** @return receiving thread: frames received past a gap ({@code link_out_of_order}). */
    public AtomicCounter outOfOrder()
    {
        return outOfOrder;
    }

    /** @return transmitting thread: times the replay buffer was full ({@code link_replay_full}). */
    public AtomicCounter replayFull()
    {
        return replayFull;
    }

    /** @return transmitting thread: acknowledgements sent on their own ({@code link_acks_sent}). */
    public AtomicCounter acksSent()
    {
        return acksSent;
    }

    /** @return receiving thread: frames retry could not repair ({@code link_retry_failures}). */
    public AtomicCounter retryFailures()
    {
        return retryFailures;
    }
}
