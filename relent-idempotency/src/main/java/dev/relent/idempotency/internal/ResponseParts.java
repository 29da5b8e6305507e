package dev.relent.idempotency.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The checks and copies the parts of an HTTP response get wherever one is made: a response the
 * operation returns, and a record a store keeps. In a package the module does not export, so that
 * it is not part of the API.
 */
public final class ResponseParts {

  private ResponseParts() {}

  /**
   * Checks an HTTP status.
   *
   * @param status the status
   * @return {@code status}
   * @throws IllegalArgumentException if {@code status} is outside 100..599
   */
  public static int checkStatus(int status) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be in 100..599: " + status);
    }
    return status;
  }

  /**
   * Copies headers, keeping their order.
   *
   * @param headers header name to values
   * @return an unmodifiable copy with unmodifiable value lists
   * @throws NullPointerException if {@code headers}, a name, a value list or a value is null
   */
  public static Map<String, List<String>> copyHeaders(Map<String, List<String>> headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    Map<String, List<String>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "header name cannot be null");
      List<String> values = Objects.requireNonNull(e.getValue(), "header values cannot be null");
      for (String v : values) {
        Objects.requireNonNull(v, "header value cannot be null: " + name);
      }
      copy.put(name, Collections.unmodifiableList(new ArrayList<>(values)));
    }
    return Collections.unmodifiableMap(copy);
  }
}
