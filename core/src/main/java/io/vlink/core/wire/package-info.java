/**
 * The wire: flyweights over the LRH, GRH, BTH, DETH and SMP headers and the flow-control packet, read and
 * written in place ({@link io.vlink.core.wire.LrhFlyweight}, {@link io.vlink.core.wire.Fcp}, ...), the ICRC over a
 * packet with its variant fields masked ({@link io.vlink.core.wire.Icrc}), framing a packet with PktLen, ICRC and VCRC
 * ({@link io.vlink.core.wire.PacketFramer}), the checks a received packet passes
 * ({@link io.vlink.core.wire.PacketChecker}) and the sizes every layer above computes with
 * ({@link io.vlink.core.wire.Sizes}) (docs/wire.md). Depends on {@code io.vlink.core.crc} only.
 */
package io.vlink.core.wire;
