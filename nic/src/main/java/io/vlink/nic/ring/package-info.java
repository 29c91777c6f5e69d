/**
 * The datapath's rings: the per-VL rings of packet descriptors between the injection agent and the arbiter
 * ({@link io.vlink.nic.ring.VlRings}, JCTools) and each VL's receive ring between the receive agent and the
 * application's poll ({@link io.vlink.nic.ring.ReceiveRing}) (docs/concurrency.md).
 */
package io.vlink.nic.ring;
