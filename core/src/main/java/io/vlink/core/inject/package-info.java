/**
 * Injection, the seed's rule once: the shared cell buffer ({@link io.vlink.core.inject.CellBuffer}), the
 * injectors' arbitration with water marks and the held turn ({@link io.vlink.core.inject.InjectorArbiter}), its
 * configuration and the bounds it guarantees ({@link io.vlink.core.inject.InjectionConfig},
 * {@link io.vlink.core.inject.InjectionBounds}) (docs/injection.md). Single-threaded; the cell buffer's hand-off
 * between threads is release/acquire (docs/concurrency.md).
 */
package io.vlink.core.inject;
