/**
 * Relent's retry engine: policies, guards and the executor that composes them. JDK only.
 *
 * <p>{@code dev.relent} holds the API of the executor, the retry policy, backoff, events and
 * errors; {@code dev.relent.guard} the circuit breaker, retry budget, pacer and concurrency limit;
 * {@code dev.relent.time} the injected time sources; {@code dev.relent.spi} the interfaces a store
 * implements to keep a guard's state elsewhere. Everything in {@code dev.relent.internal} and its
 * sub-packages (such as {@code dev.relent.internal.exec}, the executor's retry loop and the
 * implementations behind the API's interfaces, and {@code dev.relent.internal.chain}, its guard
 * chain) may change without notice.
 */
module dev.relent.core {
  exports dev.relent;
  exports dev.relent.guard;
  exports dev.relent.time;
  exports dev.relent.spi;
}
