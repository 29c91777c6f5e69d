/**
 * jcstress tests of every cross-thread hand-off in vlink (docs/concurrency.md): each test runs two actors (the
 * writing and the reading thread of one hand-off) against the real class, millions of times, and checks that no
 * outcome the ordering contract forbids ever appears.
 */
package io.vlink.stress;
