package dev.relent.http;

import java.util.List;
import java.util.Locale;

/**
 * What response headers tell a person on call: the request id to quote to the provider, the wait
 * headers the server sent, and which layers the response passed (CDN, proxy, cache).
 *
 * <p>Only headers are read, never bodies: an error page's look proves nothing (a CDN's branded 503
 * page may wrap the origin's answer, and an origin can serve any page). Even headers show only that
 * a layer was on the path, not that it produced the status, so the log says "via".
 *
 * <p>Every value returned is cut to {@value #MAX_VALUE_LENGTH} characters and stripped of control
 * characters, so a hostile header cannot forge log lines. This class has no state and is
 * thread-safe; no method throws.
 */
public final class ResponseFacts {
  /** The longest header value written down, in characters: {@value}. */
  public static final int MAX_VALUE_LENGTH = 200;

  /** Request id headers, most specific first. */
  static final List<String> REQUEST_ID_HEADERS =
      List.of(
          "X-Request-Id",
          "X-Amzn-RequestId",
          "X-Amz-Request-Id",
          "X-Correlation-Id",
          "Request-Id",
          "X-Trace-Id",
          "X-Cloud-Trace-Context",
          "CF-Ray",
          "X-Amz-Cf-Id");

  /** Headers that say when to come back. */
  static final List<String> WAIT_HEADERS =
      List.of(
          "Retry-After",
          "RateLimit",
          "RateLimit-Policy",
          "RateLimit-Limit",
          "RateLimit-Remaining",
          "RateLimit-Reset",
          "X-RateLimit-Limit",
          "X-RateLimit-Remaining",
          "X-RateLimit-Reset",
          "X-Rate-Limit-Remaining",
          "X-Rate-Limit-Reset",
          "X-RateLimit-Scope");

  private ResponseFacts() {}

  /**
   * Returns the request id, as {@code "Name: value"}, from the first of {@code X-Request-Id},
   * {@code X-Amzn-RequestId}, {@code X-Amz-Request-Id}, {@code X-Correlation-Id}, {@code
   * Request-Id}, {@code X-Trace-Id}, {@code X-Cloud-Trace-Context}, {@code CF-Ray}, {@code
   * X-Amz-Cf-Id} that is present.
   *
   * @param headers the response headers; may be null
   * @return e.g. {@code "X-Request-Id: 7f3a"}, or null when none is present
   */
  public static String requestId(HeaderLookup headers) {
    for (String name : REQUEST_ID_HEADERS) {
      String value = first(headers, name);
      if (value != null) {
        return name + ": " + value;
      }
    }
    return null;
  }

  /**
   * Returns the wait headers present, as {@code "Retry-After: 5, X-RateLimit-Remaining: 0"}: {@code
   * Retry-After}, {@code RateLimit}, {@code RateLimit-Policy}, {@code RateLimit-Limit/-Remaining/
   * -Reset}, {@code X-RateLimit-Limit/-Remaining/-Reset}, {@code X-Rate-Limit-Remaining/-Reset},
   * {@code X-RateLimit-Scope}.
   *
   * @param headers the response headers; may be null
   * @return the list, or null when none is present
   */
  public static String waitHeaders(HeaderLookup headers) {
    StringBuilder out = null;
    for (String name : WAIT_HEADERS) {
      String value = first(headers, name);
      if (value != null) {
        out = out == null ? new StringBuilder() : out.append(", ");
        out.append(name).append(": ").append(value);
      }
    }
    return out == null ? null : out.toString();
  }

  /**
   * Names the layers the response passed, from headers only:
   *
   * <ul>
   *   <li>Cloudflare: {@code CF-Ray}, {@code cf-cache-status}, or {@code Server: cloudflare};
   *   <li>CloudFront: {@code X-Amz-Cf-Id} or a {@code Via} naming CloudFront;
   *   <li>Fastly: {@code X-Served-By} naming a {@code cache-} node, or {@code Fastly-*} headers;
   *   <li>Akamai: {@code Server: AkamaiGHost} or {@code X-Akamai-*} request ids;
   *   <li>Google front end: {@code Server: Google Frontend} or {@code gfe};
   *   <li>Azure Front Door: {@code X-Azure-Ref};
   *   <li>a proxy: any other {@code Via}; a cache: {@code X-Cache}; the server: {@code Server}.
   * </ul>
   *
   * @param headers the response headers; may be null
   * @return e.g. {@code "Cloudflare (CF-Ray)"} or {@code "proxy (Via: 1.1 varnish)"}, several
   *     separated by {@code ", "}; null when the headers show none
   */
  public static String layers(HeaderLookup headers) {
    String server = lower(first(headers, "Server"));
    String via = first(headers, "Via");
    String viaLower = lower(via);
    StringBuilder out = new StringBuilder();
    if (first(headers, "CF-Ray") != null) {
      add(out, "Cloudflare (CF-Ray)");
    } else if (first(headers, "cf-cache-status") != null || server.equals("cloudflare")) {
      add(out, "Cloudflare (" + (server.equals("cloudflare") ? "Server" : "cf-cache-status") + ")");
    }
    if (first(headers, "X-Amz-Cf-Id") != null) {
      add(out, "CloudFront (X-Amz-Cf-Id)");
    } else if (viaLower.contains("cloudfront")) {
      add(out, "CloudFront (Via)");
    }
    String servedBy = lower(first(headers, "X-Served-By"));
    if (servedBy.contains("cache-")) {
      add(out, "Fastly (X-Served-By)");
    } else if (first(headers, "Fastly-Debug-Digest") != null
        || first(headers, "X-Fastly-Request-ID") != null) {
      add(out, "Fastly (Fastly headers)");
    }
    if (server.startsWith("akamaighost") || first(headers, "X-Akamai-Request-ID") != null) {
      add(out, "Akamai");
    }
    if (server.equals("google frontend") || server.equals("gfe") || server.startsWith("gfe/")) {
      add(out, "Google front end (Server)");
    }
    if (first(headers, "X-Azure-Ref") != null) {
      add(out, "Azure Front Door (X-Azure-Ref)");
    }
    if (via != null && !viaLower.contains("cloudfront")) {
      add(out, "proxy (Via: " + via + ")");
    }
    String cache = first(headers, "X-Cache");
    if (cache != null && out.length() == 0) {
      add(out, "cache (X-Cache: " + cache + ")");
    }
    if (out.length() == 0 && !server.isEmpty()) {
      add(out, "server (Server: " + first(headers, "Server") + ")");
    }
    return out.length() == 0 ? null : out.toString();
  }

  private static void add(StringBuilder out, String layer) {
    if (out.length() > 0) {
      out.append(", ");
    }
    out.append(layer);
  }

  private static String lower(String value) {
    return value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
  }

  /** The first value, sanitised; null when absent or when the lookup fails. */
  static String first(HeaderLookup headers, String name) {
    if (headers == null) {
      return null;
    }
    String value;
    try {
      value = headers.first(name);
    } catch (RuntimeException e) {
      return null; // a broken header view counts as no header
    }
    return value == null ? null : sanitize(value);
  }

  /**
   * Cuts a value to {@link #MAX_VALUE_LENGTH} characters and replaces control characters with
   * {@code '?'}, so that it cannot forge a log line.
   *
   * @param value the value
   * @return the sanitised value
   * @throws NullPointerException if {@code value} is null
   */
  public static String sanitize(String value) {
    int length = Math.min(value.length(), MAX_VALUE_LENGTH);
    StringBuilder out = null;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      boolean control =
          c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029;
      if (control && out == null) {
        out = new StringBuilder(length).append(value, 0, i);
      }
      if (out != null) {
        out.append(control ? '?' : c);
      }
    }
    if (out != null) {
      return value.length() > length ? out.append("...").toString() : out.toString();
    }
    return value.length() > length ? value.substring(0, length) + "..." : value;
  }
}
