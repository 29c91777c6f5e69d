/**
 * Links: what a port's frames travel on ({@link io.vlink.nic.link.Link}): back to back in one process
 * ({@link io.vlink.nic.link.LoopbackLink}), between processes through a mapped file ({@link io.vlink.nic.link.ShmLink}),
 * across hosts over UDP with a session and an optional MAC ({@link io.vlink.nic.link.UdpLink},
 * {@link io.vlink.nic.link.LinkKey}); the frame rings they share ({@link io.vlink.nic.link.RingProducer},
 * {@link io.vlink.nic.link.RingConsumer}). Each writes only its own counters ({@code LinkCounters}). The stress tests
 * reach their hand-offs through the public seams documented on each ({@code over}, {@code ring}).
 */
package io.vlink.nic.link;
