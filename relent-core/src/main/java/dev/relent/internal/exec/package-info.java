/**
 * The executor's internals: the retry loop ({@link dev.relent.internal.exec.Execution}, {@link
 * dev.relent.internal.exec.AsyncExecution}), its wiring and counters ({@link
 * dev.relent.internal.exec.RelentExecutorImpl}, {@link
 * dev.relent.internal.exec.ExecutionSettings}), a call's scopes, the give-up messages ({@link
 * dev.relent.internal.exec.GiveUp}), and the implementations behind the API's interfaces: the rule
 * classifier, the retry policy and the exponential backoff. Internal, not exported: may change
 * without notice.
 *
 * <p>It and {@code dev.relent} depend on each other, and on nothing else of the kind: this package
 * runs on the API's types (policy, verdicts, events, exceptions), and the API's factories ({@code
 * RelentExecutor.Builder.build()}, {@code RetryPolicy.Builder.build()}, {@code Backoff}'s) make
 * what is here; the exceptions are made from a {@link dev.relent.internal.exec.GiveUp}. What the
 * API keeps package-private, the constructors of its exceptions and events and a hint's numbers,
 * reaches the executor through {@link dev.relent.internal.exec.ApiAccess}, which only the
 * executor's builder implements. relent-architecture-tests holds both sides to that.
 */
package dev.relent.internal.exec;
