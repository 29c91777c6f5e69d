/**
 * {@code vlink fabric soak} and {@code run}: traffic over a fabric of switches and engines with faults, checked
 * by the soak's invariants ({@link io.vlink.tools.fabric.FabricSoak}, {@link io.vlink.tools.fabric.FabricTraffic})
 * (docs/fabric.md, docs/soak.md). Built on {@code io.vlink.tools.soak}'s parts.
 */
package io.vlink.tools.fabric;
