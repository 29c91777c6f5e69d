/**
 * The engine's public API: an {@link io.vlink.nic.Engine} built from its configuration
 * ({@link io.vlink.nic.EngineConfiguration}), its {@link io.vlink.nic.Port}s and their {@link io.vlink.nic.QueuePair}s,
 * registered memory ({@link io.vlink.nic.MemoryRegion}), what the application is told
 * ({@link io.vlink.nic.ReceiveHandler}, {@link io.vlink.nic.LinkStateListener}, {@link io.vlink.nic.FlushListener},
 * {@link io.vlink.nic.CloseReport}) (docs/engine.md). The rules every configuration is checked by, an engine's, a
 * switch's and a fabric's ({@link io.vlink.nic.ConfigurationRules}, {@link io.vlink.nic.PortSettings}), live here too.
 * <p>
 * The rooms below it, each depending only on rooms below it: the datapath and its agents
 * ({@code io.vlink.nic.agent}), the links ({@code io.vlink.nic.link}), the counters ({@code io.vlink.nic.status}),
 * the capture ({@code io.vlink.nic.capture}), the rings and off-heap memory ({@code io.vlink.nic.ring},
 * {@code io.vlink.nic.memory}). The switch and the fabric ({@code io.vlink.nic.fabric}) are built on this API.
 */
package io.vlink.nic;
