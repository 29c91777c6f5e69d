/**
 * One port's datapath, written once and run by every port, a channel adapter's (the engine, its halves on the receive,
 * credit and arbiter agents' threads) and a switch's (all on the switch's thread): the code that acts on the credit
 * and link rules' verdicts ({@code io.vlink.core.credit}), composed of them and of the arbiter, the wire codecs and
 * the checkers (docs/flow-control.md, "One port datapath").
 * <ul>
 *     <li>{@link io.vlink.core.port.PortReceive}: frames off the wire checked, admitted by the link state, stored or
 *     discarded and counted; what the credit half needs handed on in wire order ({@link io.vlink.core.port.CreditEvents},
 *     {@link io.vlink.core.port.CreditEventRing}).</li>
 *     <li>{@link io.vlink.core.port.PortCredit}: {@code CreditControl} fed with those events, its decisions handed on
 *     (credit limits and the credit epoch, FCP requests: {@link io.vlink.core.port.FcpRequestRing}), the link-state
 *     entries and the one rule of who resets what.</li>
 *     <li>{@link io.vlink.core.port.PortTransmit}: the transmit burst, the credit check with its stall counter, FCPs
 *     completed with the FCTBS of now.</li>
 *     <li>{@link io.vlink.core.port.DirectPort}: the three on one thread, driven by explicit events: a switch port, the
 *     credit tests, a model checker's port.</li>
 * </ul>
 * What the owner supplies is small and plain: the link's transmitting side ({@link io.vlink.core.port.FrameSink}), the
 * receive buffers ({@link io.vlink.core.port.ReceiveBuffers}), the packets to send
 * ({@link io.vlink.core.port.PacketSource}), a frame tap, and the counters each half writes
 * ({@link io.vlink.core.port.ReceiveCounters}, {@link io.vlink.core.port.CreditCounters},
 * {@link io.vlink.core.port.TransmitCounters}), each handed to its one writer. Every class here is single-threaded and
 * allocation-free once built, and depends on {@code core} and Agrona only; the hand-offs between threads are the
 * rings and {@code CreditLimits}, release/acquire (docs/concurrency.md).
 */
package io.vlink.core.port;
