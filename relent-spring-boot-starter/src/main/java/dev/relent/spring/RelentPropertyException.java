package dev.relent.spring;

import java.util.Objects;

/**
 * A {@code relent.*} property whose value Relent refuses, thrown at start-up: the message names the
 * property, the value and what is allowed, e.g. {@code relent.clients.payments.max-retries: -1 is
 * refused (maxRetries must be >= 0: -1); fix the property, or remove it for the default}. The value
 * of a property is never a secret here (the starter reads no credentials).
 */
public final class RelentPropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The full name of the property. */
  private final String property;

  /**
   * Creates the exception.
   *
   * @param property the full property name, e.g. {@code relent.clients.payments.max-retries}
   * @param value the value as bound, or null when the property is missing
   * @param reason what is wrong and what is allowed
   * @param cause the builder's exception, or null
   * @throws NullPointerException if {@code property} or {@code reason} is null
   */
  public RelentPropertyException(String property, Object value, String reason, Throwable cause) {
    this(property, value, reason, "fix the property, or remove it for the default", cause);
  }

  /** The same with what to do instead of "fix the property", for a value refused for another's. */
  RelentPropertyException(
      String property, Object value, String reason, String fix, Throwable cause) {
    super(message(property, value, reason, fix), cause);
    this.property = property;
  }

  private static String message(String property, Object value, String reason, String fix) {
    Objects.requireNonNull(property, "property cannot be null");
    Objects.requireNonNull(reason, "reason cannot be null");
    return value == null
        ? property + " is required: " + reason
        : property + ": " + value + " is refused (" + reason + "); " + fix;
  }

  /**
   * Returns the full name of the property.
   *
   * @return e.g. {@code relent.clients.payments.max-retries}
   */
  public String property() {
    return property;
  }
}
