/**
 * {@code vlink perf}: perftest-style bandwidth and latency over an engine or the bare rings
 * ({@link io.vlink.tools.perf.PerfPeer}, {@link io.vlink.tools.perf.PerfTransport} and its two transports), one row of
 * figures per size ({@link io.vlink.tools.perf.PerfRow}) (docs/cli.md).
 */
package io.vlink.tools.perf;
