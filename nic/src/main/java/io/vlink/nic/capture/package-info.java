/**
 * The engine's capture tap: every frame a port sends or receives recorded into a memory-mapped capture file that
 * Wireshark reads, by a capture agent off the datapath's threads ({@link io.vlink.nic.capture.CaptureTap},
 * {@link io.vlink.nic.capture.MappedCaptureFile}); a failed output stops the capture, never the engine
 * ({@link io.vlink.nic.capture.CaptureStoppedException}). The capture file goes through Chronicle Bytes, which stays
 * out of {@code core} and the datapath.
 */
package io.vlink.nic.capture;
