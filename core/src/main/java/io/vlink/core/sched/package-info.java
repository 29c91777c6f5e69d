/**
 * SL arbitration with queue-pair tenure, the seed's rule once ({@link io.vlink.core.sched.SlScheduler},
 * single-threaded, allocation-free once built): which queue pair's message is sliced into the next packet
 * (docs/injection.md).
 */
package io.vlink.core.sched;
