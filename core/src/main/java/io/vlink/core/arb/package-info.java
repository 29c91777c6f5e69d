/**
 * VL arbitration, the seed's rule as one single-threaded state machine: {@link io.vlink.core.arb.VlArbiter} picks, at
 * each packet boundary, VL15, a flow-control packet or a data VL from the high and low tables with the high limit
 * (docs/arbitration.md). Beside it: what the tables promise ({@link io.vlink.core.arb.SharePrediction}) and the
 * deterministic simulator of {@code vlink arb simulate} ({@link io.vlink.core.arb.Scenario},
 * {@link io.vlink.core.arb.SimulatedPort}). Depends on the QoS tables ({@code io.vlink.core.qos}) and the wire's
 * sizes.
 */
package io.vlink.core.arb;
