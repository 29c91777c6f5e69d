/**
 * The engine's datapath and its agents: each port's memory and hand-offs ({@link io.vlink.nic.agent.PortDatapath},
 * the send queues: {@link io.vlink.nic.agent.SendQueue}), the injection, arbiter, credit and receive agents that run
 * {@code io.vlink.core}'s rules over them ({@link io.vlink.nic.agent.InjectAgent}, {@link io.vlink.nic.agent.ArbiterAgent},
 * {@link io.vlink.nic.agent.CreditAgent}, {@link io.vlink.nic.agent.ReceiveAgent}), the words they hand a link error's
 * flush and the link commands through ({@link io.vlink.nic.agent.FlushControl}, {@link io.vlink.nic.agent.LinkControl}),
 * and how agents are mapped to threads ({@link io.vlink.nic.agent.DutyCycle}, {@link io.vlink.nic.agent.AgentGroup},
 * {@link io.vlink.nic.agent.ThreadingMode}, {@link io.vlink.nic.agent.IdleStrategies}) (docs/engine.md,
 * docs/concurrency.md).
 * <p>
 * Internal: its classes are public for the engine ({@code io.vlink.nic}) and for the stress tests, which reach the
 * hand-offs here directly (the documented test seam: {@code stress}); applications use {@code io.vlink.nic}. It
 * never depends on the API above it: what the agents tell the application goes through
 * {@link io.vlink.nic.agent.PortEvents}.
 */
package io.vlink.nic.agent;
