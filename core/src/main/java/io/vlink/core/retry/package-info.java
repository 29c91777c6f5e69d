/**
 * Link-level retry's rules, each once, single-threaded and allocation-free (docs/engine.md, "Link-level retry"): the
 * sending half that numbers every frame and holds it until acknowledged, replaying from the oldest on a request or a
 * timeout ({@link io.vlink.core.retry.RetrySender}), the receiving half that delivers each frame once and in order and
 * asks for a replay from the first gap ({@link io.vlink.core.retry.RetryReceiver}), and when acknowledgements go
 * ({@link io.vlink.core.retry.AckSchedule}). The link that runs them is {@code io.vlink.nic.link.RetryLink}.
 */
package io.vlink.core.retry;
