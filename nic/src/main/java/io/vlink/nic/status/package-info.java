/**
 * Counters with owners: the counters file an engine or switch publishes and {@code vlink stat} reads
 * ({@link io.vlink.nic.status.CountersFile}, {@link io.vlink.nic.status.CountersFileReader}), each port's counters
 * allocated once ({@link io.vlink.nic.status.PortCounterSet}) and handed out in parts, each to its one writer
 * (links, the injection agent, the application's calls, a switch's forwarding), with a read-only view for users
 * ({@link io.vlink.nic.status.PortCounters}); the heartbeat, the error log, and "credits recovered", defined once
 * ({@link io.vlink.nic.status.CreditRecovery}) (docs/engine.md, "Counters").
 */
package io.vlink.nic.status;
