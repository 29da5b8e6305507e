/**
 * Relent's retry engine: policies, guards and the executor that composes them. JDK only.
 *
 * <p>{@code dev.relent} is the API; {@code dev.relent.spi} holds the time, randomness and
 * guard-state interfaces that tests and other stores implement. Everything in {@code
 * dev.relent.internal} may change without notice.
 */
module dev.relent.core {
  exports dev.relent;
  exports dev.relent.spi;
}
