/**
 * Off-heap memory: allocated aligned and freed exactly once ({@link io.vlink.nic.memory.OffHeap}), and the
 * exception every call gets that would reach an engine's memory after it closed
 * ({@link io.vlink.nic.memory.EngineClosedException}). Depends on Agrona only.
 */
package io.vlink.nic.memory;
