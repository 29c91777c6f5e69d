/**
 * Switches and fabrics built on the engine: a {@link io.vlink.nic.fabric.Switch} of N external ports running
 * the same port datapath as a channel adapter ({@code io.vlink.core.port.DirectPort}) on its own thread, and a
 * {@link io.vlink.nic.fabric.Fabric} of switches and engines wired as a topology, in one process or many, each built
 * from a frozen configuration ({@link io.vlink.nic.fabric.SwitchConfiguration},
 * {@link io.vlink.nic.fabric.FabricConfiguration}) checked by the engine's rules (docs/fabric.md).
 */
package io.vlink.nic.fabric;
