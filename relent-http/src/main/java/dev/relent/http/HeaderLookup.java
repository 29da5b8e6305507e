package dev.relent.http;

import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Read access to a set of HTTP headers, independent of the client library: the decision table, the
 * server-hint reader and the log line only ever ask for the first value of a named header. Names
 * are matched ignoring ASCII case. Implementations must be thread-safe if shared, and must not
 * throw for any name.
 */
@FunctionalInterface
public interface HeaderLookup {

  /** Headers that hold nothing. */
  HeaderLookup NONE = name -> null;

  /**
   * Returns the first value of a header.
   *
   * @param name the header name, in any case
   * @return the value, or null when the header is absent
   */
  String first(String name);

  /**
   * Views the JDK client's headers.
   *
   * @param headers the headers
   * @return a view, case-insensitive as {@link HttpHeaders} is
   * @throws NullPointerException if {@code headers} is null
   */
  static HeaderLookup of(HttpHeaders headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    return name -> headers.firstValue(name).orElse(null);
  }

  /**
   * Views a map of header names to values, as most clients expose them. The map is searched
   * ignoring the case of its keys; null keys (the status line in {@code HttpURLConnection}) and
   * null or empty value lists are skipped.
   *
   * @param headers the headers; the view reads the map, it does not copy it
   * @return a view
   * @throws NullPointerException if {@code headers} is null
   */
  static HeaderLookup of(Map<String, ? extends List<String>> headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    return name -> {
      List<String> exact = headers.get(name);
      if (exact != null && !exact.isEmpty()) {
        return exact.get(0);
      }
      for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
        if (e.getKey() != null
            && e.getKey().equalsIgnoreCase(name)
            && e.getValue() != null
            && !e.getValue().isEmpty()) {
          return e.getValue().get(0);
        }
      }
      return null;
    };
  }
}
