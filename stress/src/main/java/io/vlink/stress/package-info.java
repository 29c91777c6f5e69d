/**
 * jcstress tests of the cross-thread hand-offs (docs/concurrency.md) through public classes; those that need
 * {@code nic}'s package-private API are in {@code nic}'s packages of this module. Each test runs two actors (the
 * writing and the reading thread of one hand-off) against the real class, many times, and checks that no outcome
 * the ordering contract forbids ever appears.
 */
package io.vlink.stress;
