package io.vlink.nic.agent;

/**
 * The injection agent's settings, from the engine's configuration: the burst, SL arbitration's table and tenure, and
 * the queue pairs' bounds (docs/injection.md).
 *
 * @param burst          packets per port per duty cycle (the agent injects four bursts' worth at most).
 * @param slTableSls     SL arbitration's table: the SL of each entry, or null for the default table.
 * @param slTableWeights the entries' weights, or null with the SLs.
 * @param tenureBytes    a queue pair's tenure in bytes.
 * @param tenurePackets  a queue pair's tenure in packets.
 * @param maxQueuePairs  the most queue pairs of a port.
 * @param queueDepth     messages each queue pair holds.
 */
public record InjectSettings(
    int burst,
    int[] slTableSls,
    int[] slTableWeights,
    long tenureBytes,
    int tenurePackets,
    int maxQueuePairs,
    int queueDepth)
{
}
