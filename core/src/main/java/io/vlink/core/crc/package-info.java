/**
 * The 16-bit CRC of the link layer: VCRC and the flow-control packet's LPCRC
 * ({@link io.vlink.core.crc.Crc16}, table-driven, allocation-free). Depends on nothing of vlink's; the ICRC, which
 * masks a packet's variant fields, is the wire's ({@code io.vlink.core.wire.Icrc}).
 */
package io.vlink.core.crc;
