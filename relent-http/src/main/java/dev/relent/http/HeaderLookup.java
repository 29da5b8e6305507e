package dev.relent.http;

import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Read access to a set of HTTP headers, independent of the client library: the decision table and
 * the log line ask for the first value of a named header; the server-hint reader also asks for
 * every line of the structured {@code RateLimit} fields ({@link #all}), which a server may split
 * over several lines. Names are matched ignoring ASCII case. Implementations must be thread-safe if
 * shared, and must not throw for any name.
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
   * Returns every value of a header, one per field line, in the order received. The default gives
   * the {@link #first} value alone; a view that can see every line should override it, or a field
   * split over several lines is read from its first line only.
   *
   * @param name the header name, in any case
   * @return the values; empty when the header is absent
   */
  default List<String> all(String name) {
    String value = first(name);
    return value == null ? List.of() : List.of(value);
  }

  /**
   * Views the JDK client's headers.
   *
   * @param headers the headers
   * @return a view, case-insensitive as {@link HttpHeaders} is
   * @throws NullPointerException if {@code headers} is null
   */
  static HeaderLookup of(HttpHeaders headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    return ofValues(headers::allValues);
  }

  /**
   * Views headers through what gives every value of a name, as most clients answer it (OkHttp's
   * {@code Response.headers(name)}, Spring's {@code HttpHeaders.getOrEmpty}, the JDK's {@code
   * allValues}): {@link #first} is the first of those values, read without a stream or an {@code
   * Optional}, since a response's headers are looked up a few dozen times a call.
   *
   * @param values gives every value of a header, in the order received, never null (empty when the
   *     header is absent); it must not throw for any name, and be thread-safe if the view is shared
   * @return a view, case-insensitive if {@code values} is
   * @throws NullPointerException if {@code values} is null
   */
  static HeaderLookup ofValues(Function<String, List<String>> values) {
    Objects.requireNonNull(values, "values cannot be null");
    return new HeaderLookup() {
      @Override
      public String first(String name) {
        List<String> all = values.apply(name);
        return all.isEmpty() ? null : all.get(0);
      }

      @Override
      public List<String> all(String name) {
        return values.apply(name);
      }
    };
  }

  /**
   * Views a map of header names to values, as most clients expose them. The map is searched
   * ignoring the case of its keys; null keys (the status line in {@code HttpURLConnection}) and
   * null or empty value lists are skipped. {@link #all} gives the values of every key that matches,
   * in the map's order.
   *
   * @param headers the headers; the view reads the map, it does not copy it
   * @return a view
   * @throws NullPointerException if {@code headers} is null
   */
  static HeaderLookup of(Map<String, ? extends List<String>> headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    return new HeaderLookup() {
      @Override
      public String first(String name) {
        List<String> exact = headers.get(name);
        if (exact != null && !exact.isEmpty()) {
          return exact.get(0);
        }
        for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
          if (matches(e, name) && !e.getValue().isEmpty()) {
            return e.getValue().get(0);
          }
        }
        return null;
      }

      @Override
      public List<String> all(String name) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
          if (matches(e, name)) {
            for (String value : e.getValue()) {
              if (value != null) {
                out.add(value);
              }
            }
          }
        }
        return out;
      }

      private boolean matches(Map.Entry<String, ? extends List<String>> e, String name) {
        return e.getKey() != null && e.getKey().equalsIgnoreCase(name) && e.getValue() != null;
      }
    };
  }
}
