/**
 * Fabrics as OpenSM sees them: topologies read from ibnetdiscover and ibsim files
 * ({@link io.vlink.core.fabric.TopologyReader}, {@link io.vlink.core.fabric.Topology}), LIDs assigned and forwarding
 * tables routed as OpenSM does (minhop, updn: {@link io.vlink.core.fabric.MinHopRouting},
 * {@link io.vlink.core.fabric.UpDownRouting}, {@link io.vlink.core.fabric.Routes}), LFT dumps read and written, path
 * SLs, and the switch's crossbar and credit loop as rules ({@link io.vlink.core.fabric.Crossbar},
 * {@link io.vlink.core.fabric.CreditLoop}) (docs/fabric.md). The running switch and fabric are
 * {@code io.vlink.nic.fabric}'s.
 */
package io.vlink.core.fabric;
