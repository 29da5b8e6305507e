package dev.relent.http;

import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/**
 * Which requests may be sent twice (RFC 9110 §9.2.2) and the {@code Idempotency-Key} that makes a
 * write safe to send again (IETF httpapi draft "The Idempotency-Key HTTP Header Field").
 *
 * <p>GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent; POST, PATCH, CONNECT and every
 * method this class does not know are not. A non-idempotent request is retried only when it carries
 * an {@code Idempotency-Key}: the key is made once per logical operation, before the first send,
 * and every retry carries the same key, so that a server that honours it performs the operation at
 * most once.
 *
 * <p>This class has no state and is thread-safe.
 */
public final class Idempotency {
  /** The request header that carries the key: {@value}. */
  public static final String HEADER = "Idempotency-Key";

  /** The longest key accepted from a caller, in characters: {@value}. */
  public static final int MAX_KEY_LENGTH = 255;

  private Idempotency() {}

  /**
   * Returns whether a method is idempotent by definition.
   *
   * @param method the method, in any case; may be null (then false)
   * @return true for GET, HEAD, OPTIONS, TRACE, PUT and DELETE
   */
  public static boolean isIdempotent(String method) {
    if (method == null) {
      return false;
    }
    switch (method.toUpperCase(Locale.ROOT)) {
      case "GET":
      case "HEAD":
      case "OPTIONS":
      case "TRACE":
      case "PUT":
      case "DELETE":
        return true;
      default:
        return false;
    }
  }

  /**
   * Returns whether a request may be re-sent after it may have reached the server: it is
   * idempotent, or it carries a key.
   *
   * @param method the method; may be null
   * @param keyed whether the request carries an {@code Idempotency-Key}
   * @return true if a retry cannot repeat the operation's effect
   */
  public static boolean isSafeToResend(String method, boolean keyed) {
    return keyed || isIdempotent(method);
  }

  /**
   * Makes a new key: a random (version 4) UUID from the JDK's {@link java.security.SecureRandom},
   * 36 characters, e.g. {@code 8e7c1c0a-3f7e-4c53-9d0a-7f1f4b1f2a11}.
   *
   * @return a new key
   */
  public static String newKey() {
    return UUID.randomUUID().toString();
  }

  /**
   * Checks a caller's key: 1 to {@value #MAX_KEY_LENGTH} visible ASCII characters (no spaces, no
   * control characters), so that it fits in a header and in a log line unchanged.
   *
   * @param key the key
   * @return the key
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if the key is empty, too long or has other characters
   */
  public static String requireValidKey(String key) {
    Objects.requireNonNull(key, "idempotency key cannot be null");
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "idempotency key must be 1 to " + MAX_KEY_LENGTH + " characters: " + key.length());
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new IllegalArgumentException(
            "idempotency key must be visible ASCII: character "
                + i
                + " is U+"
                + String.format(Locale.ROOT, "%04X", (int) c));
      }
    }
    return key;
  }
}
