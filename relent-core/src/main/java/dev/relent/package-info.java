/**
 * Relent's public API: retry policy, backoff and jitter, server hints, guards and the executor.
 *
 * <p>Policies and guards are immutable or thread-safe and meant to be shared; builders are not
 * thread-safe. Nothing here waits on its own: guards return decisions, and only the executor waits,
 * through the injected {@link dev.relent.time.Sleeper} or {@link dev.relent.time.Scheduler}.
 *
 * <p>Only the API lives here: the executor that runs calls, and the implementations of the policy,
 * backoff and rule classifier, are in {@code dev.relent.internal.exec}, which the module does not
 * export; the builders and factories here make them.
 */
package dev.relent;
