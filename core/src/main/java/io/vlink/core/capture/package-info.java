/**
 * Capture files as Wireshark reads them: classic pcap with ERF records (link type 197, docs/wire.md,
 * "Captures"), written and read back
 * ({@link io.vlink.core.capture.PcapWriter}, {@link io.vlink.core.capture.PcapReader}); malformed input is refused
 * with {@link io.vlink.core.capture.CaptureException}. Plain Java, no Chronicle: the engine's mapped capture file is
 * {@code io.vlink.nic.capture}'s.
 */
package io.vlink.core.capture;
