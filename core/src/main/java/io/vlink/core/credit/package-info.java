/**
 * The seed's credit and link rules, each once, as single-threaded state machines: the link states and their
 * transitions ({@link io.vlink.core.credit.LinkStateMachine}, {@link io.vlink.core.credit.LinkState}), the
 * transmitter's and receiver's credit accounting with the 12-bit arithmetic ({@link io.vlink.core.credit.CreditTransmitter},
 * {@link io.vlink.core.credit.CreditReceiver}, {@link io.vlink.core.credit.Credits}), the FCP schedule and checks, the
 * credit limits handed to the arbiter ({@link io.vlink.core.credit.CreditLimits}), composed by
 * {@link io.vlink.core.credit.CreditControl} (docs/flow-control.md). Every discard has a reason
 * ({@link io.vlink.core.credit.DiscardReason}). The code that acts on their verdicts is {@code io.vlink.core.port}'s.
 */
package io.vlink.core.credit;
