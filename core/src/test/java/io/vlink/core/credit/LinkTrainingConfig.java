package io.vlink.core.credit;

/**
 * What the model checker's two ports and their link are ({@link LinkTrainingModel}), and which events it may
 * interleave how often. Small on purpose: a 4-block receive buffer and 2-block packets fill with two packets; the
 * silence limit is the engine's least, 4 FCP periods; the clock moves one FCP period a tick.
 */
final class LinkTrainingConfig
{
    /** A property: no data packet reaches a full receive buffer. */
    static final int OVERFLOW = 1;
    /** A property: no port re-trains more often than its peer enters Initialize on its own (and one per wire fault). */
    static final int RETRAINING = 2;
    /** Properties: no credit beyond the peer's buffer, FCTBS/ABR agreement, and the exact agreement once quiet. */
    static final int CREDIT = 4;
    static final int ALL = OVERFLOW | RETRAINING | CREDIT;

    final int dataVls;
    final int bufferBlocks;
    final int packetBlocks;
    final int earlyThresholdBlocks;
    final long fcpPeriodNs;
    final long silenceLimitNs;
    final long tickNs;
    final int wireCapacity;
    final int queueCapacity;
    final int offers;
    final int bouncesA;
    final int bouncesB;
    final int faults;
    final boolean lose;
    final boolean duplicate;
    final boolean delay;
    /** Whether a step is one agent's turn (threads per agent) or a side's whole duty cycle (one thread a side). */
    final boolean agentSteps;
    /**
     * Whether each port's thread runs its agents in invoker mode's order (arbiter, credit, the arbiter's second turn,
     * receive: the default) or in the order of a thread the application does not poll on (arbiter, receive, credit,
     * the arbiter's second turn): nic's {@code DutyCycle}.
     */
    final boolean creditBeforeReceive;
    /** Whether the ports start Active (trained, the wire empty) or Down with an up command each. */
    final boolean startActive;
    /** Whether the ports run the rule before issue 27's ({@link PreviousTrainingRule}): the checker's test of itself. */
    final boolean previousRule;
    /** The safety properties checked ({@link #ALL} but in the checker's test of itself); progress always is. */
    final int properties;

    private LinkTrainingConfig(final Builder b)
    {
        dataVls = b.dataVls;
        bufferBlocks = b.bufferBlocks;
        packetBlocks = b.packetBlocks;
        earlyThresholdBlocks = b.earlyThresholdBlocks;
        fcpPeriodNs = b.fcpPeriodNs;
        silenceLimitNs = b.silenceLimitNs;
        tickNs = b.tickNs;
        wireCapacity = b.wireCapacity;
        queueCapacity = b.queueCapacity;
        offers = b.offers;
        bouncesA = b.bouncesA;
        bouncesB = b.bouncesB;
        faults = b.faults;
        lose = b.lose;
        duplicate = b.duplicate;
        delay = b.delay;
        startActive = b.startActive;
        agentSteps = b.agentSteps;
        creditBeforeReceive = b.creditBeforeReceive;
        previousRule = b.previousRule;
        properties = b.properties;
    }

    boolean checks(final int property)
    {
        return (properties & property) != 0;
    }

    static Builder builder()
    {
        return new Builder();
    }

    @Override
    public String toString()
    {
        return dataVls + " VL(s), buffer " + bufferBlocks + " blocks, packets of " + packetBlocks + ", offers " + offers +
            " a side, bounces a " + bouncesA + " b " + bouncesB + ", faults " + faults +
            (faults > 0 ? " (" + (lose ? "lose " : "") + (duplicate ? "duplicate " : "") + (delay ? "delay" : "") + ")" :
            "") + ", start " + (startActive ? "Active" : "Down") + (previousRule ? ", the previous rule" : "") +
            (creditBeforeReceive ? "" : ", receive before credit") +
            (properties != ALL ? ", properties " + properties : "");
    }

    static final class Builder
    {
        private int dataVls = 1;
        private int bufferBlocks = 4;
        private int packetBlocks = 2;
        private int earlyThresholdBlocks = 1;
        private long fcpPeriodNs = 1_000;
        private long silenceLimitNs = 4_000;
        private long tickNs = 1_000;
        private int wireCapacity = 4;
        private int queueCapacity = 3;
        private int offers = 2;
        private int bouncesA = 1;
        private int bouncesB;
        private int faults;
        private boolean lose = true;
        private boolean duplicate = true;
        private boolean delay = true;
        private boolean startActive = true;
        private boolean agentSteps;
        private boolean creditBeforeReceive = true;
        private boolean previousRule;
        private int properties = ALL;

        Builder dataVls(final int v)
        {
            dataVls = v;
            return this;
        }

        Builder bufferBlocks(final int v)
        {
            bufferBlocks = v;
            return this;
        }

        Builder packetBlocks(final int v)
        {
            packetBlocks = v;
            return this;
        }

        Builder offers(final int v)
        {
            offers = v;
            return this;
        }

        Builder bounces(final int a, final int b)
        {
            bouncesA = a;
            bouncesB = b;
            return this;
        }

        Builder faults(final int count, final boolean lose, final boolean duplicate, final boolean delay)
        {
            faults = count;
            this.lose = lose;
            this.duplicate = duplicate;
            this.delay = delay;
            return this;
        }

        Builder wireCapacity(final int v)
        {
            wireCapacity = v;
            return this;
        }

        Builder startActive(final boolean v)
        {
            startActive = v;
            return this;
        }

        Builder creditBeforeReceive(final boolean v)
        {
            creditBeforeReceive = v;
            return this;
        }

        Builder agentSteps(final boolean v)
        {
            agentSteps = v;
            return this;
        }

        Builder properties(final int v)
        {
            properties = v;
            return this;
        }

        Builder previousRule(final boolean v)
        {
            previousRule = v;
            return this;
        }

        Builder silenceLimitNs(final long v)
        {
            silenceLimitNs = v;
            return this;
        }

        LinkTrainingConfig build()
        {
            return new LinkTrainingConfig(this);
        }
    }
}
