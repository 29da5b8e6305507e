package dev.relent.mockserver;

import java.time.Duration;
import java.util.List;

/**
 * Cross-origin settings, so that browser code can be tested against the server and can read the
 * headers a retrying client needs. When enabled, a preflight ({@code OPTIONS} with {@code Origin}
 * and {@code Access-Control-Request-Method}) is answered 204 by the server itself, and every answer
 * to a request with an allowed {@code Origin} carries {@code Access-Control-Allow-Origin}, {@code
 * Access-Control-Expose-Headers} and {@code Vary: Origin}.
 *
 * <p>Defaults ({@link #allowAll()}, what a server gets unless told otherwise): any origin; methods
 * GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS; request headers: whatever the preflight asks for;
 * exposed headers {@link #DEFAULT_EXPOSED}; max age 10 minutes; no credentials. Immutable and
 * thread-safe.
 */
public final class Cors {

  /** The headers exposed by default: everything a client needs to pace and retry. */
  public static final List<String> DEFAULT_EXPOSED =
      List.of(
          "Retry-After",
          "RateLimit",
          "RateLimit-Policy",
          "X-RateLimit-Limit",
          "X-RateLimit-Remaining",
          "X-RateLimit-Reset",
          "Idempotent-Replayed",
          "Location",
          "Date");

  private static final List<String> DEFAULT_METHODS =
      List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

  private static final Cors DISABLED =
      new Cors(false, List.of(), List.of(), null, List.of(), Duration.ZERO, false);
  private static final Cors ALLOW_ALL =
      new Cors(
          true,
          List.of("*"),
          DEFAULT_METHODS,
          null,
          DEFAULT_EXPOSED,
          Duration.ofMinutes(10),
          false);

  private final boolean enabled;
  private final List<String> allowOrigins;
  private final List<String> allowMethods;
  private final List<String> allowHeaders;
  private final List<String> exposeHeaders;
  private final Duration maxAge;
  private final boolean allowCredentials;
  // The header values, joined once.
  private final String allowMethodsValue;
  private final String allowHeadersValue;
  private final String exposeHeadersValue;

  private Cors(
      boolean enabled,
      List<String> allowOrigins,
      List<String> allowMethods,
      List<String> allowHeaders,
      List<String> exposeHeaders,
      Duration maxAge,
      boolean allowCredentials) {
    this.enabled = enabled;
    this.allowOrigins = allowOrigins;
    this.allowMethods = allowMethods;
    this.allowHeaders = allowHeaders;
    this.exposeHeaders = exposeHeaders;
    this.maxAge = maxAge;
    this.allowCredentials = allowCredentials;
    this.allowMethodsValue = String.join(", ", allowMethods);
    this.allowHeadersValue = allowHeaders == null ? null : String.join(", ", allowHeaders);
    this.exposeHeadersValue = String.join(", ", exposeHeaders);
  }

  /**
   * Returns the default settings: any origin, rate-limit and retry headers exposed.
   *
   * @return the default, enabled settings
   */
  public static Cors allowAll() {
    return ALLOW_ALL;
  }

  /**
   * Returns settings that add no CORS header and answer no preflight.
   *
   * @return disabled settings
   */
  public static Cors disabled() {
    return DISABLED;
  }

  /**
   * Returns a copy that allows only these origins ({@code "*"} allows any).
   *
   * @param origins origins such as {@code https://app.example}
   * @return new settings
   * @throws NullPointerException if {@code origins} or an element is null
   * @throws IllegalArgumentException if {@code origins} is empty or holds an empty string
   */
  public Cors withAllowedOrigins(List<String> origins) {
    List<String> copy = List.copyOf(origins);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("allowOrigins must not be empty");
    }
    if (copy.contains("")) {
      throw new IllegalArgumentException(
          "allowOrigins must hold origins like https://app.example or *, not \"\"");
    }
    return new Cors(
        true, copy, allowMethods, allowHeaders, exposeHeaders, maxAge, allowCredentials);
  }

  /**
   * Returns a copy that allows these methods in a preflight.
   *
   * @param methods method tokens
   * @return new settings
   * @throws NullPointerException if {@code methods} or an element is null
   * @throws IllegalArgumentException if an element is not a token
   */
  public Cors withAllowedMethods(List<String> methods) {
    return new Cors(
        true,
        allowOrigins,
        tokens("allowMethods", methods),
        allowHeaders,
        exposeHeaders,
        maxAge,
        allowCredentials);
  }

  /**
   * Returns a copy that allows these request headers in a preflight (default: echo what the
   * preflight asks for).
   *
   * @param headers header names
   * @return new settings
   * @throws NullPointerException if {@code headers} or an element is null
   * @throws IllegalArgumentException if an element is not a token
   */
  public Cors withAllowedHeaders(List<String> headers) {
    return new Cors(
        true,
        allowOrigins,
        allowMethods,
        tokens("allowHeaders", headers),
        exposeHeaders,
        maxAge,
        allowCredentials);
  }

  /**
   * Returns a copy that exposes these response headers instead of {@link #DEFAULT_EXPOSED}.
   *
   * @param headers header names
   * @return new settings
   * @throws NullPointerException if {@code headers} or an element is null
   * @throws IllegalArgumentException if an element is not a token
   */
  public Cors withExposedHeaders(List<String> headers) {
    return new Cors(
        true,
        allowOrigins,
        allowMethods,
        allowHeaders,
        tokens("exposeHeaders", headers),
        maxAge,
        allowCredentials);
  }

  /**
   * Returns a copy whose preflight answers may be cached for {@code maxAge} (whole seconds).
   *
   * @param maxAge the {@code Access-Control-Max-Age}
   * @return new settings
   * @throws NullPointerException if {@code maxAge} is null
   * @throws IllegalArgumentException if {@code maxAge} is negative
   */
  public Cors withMaxAge(Duration maxAge) {
    Durations.nonNegative("maxAge", maxAge);
    return new Cors(
        true, allowOrigins, allowMethods, allowHeaders, exposeHeaders, maxAge, allowCredentials);
  }

  /**
   * Returns a copy that allows credentials; the allowed origin is then echoed, never {@code *}.
   *
   * @param allow whether to send {@code Access-Control-Allow-Credentials: true}
   * @return new settings
   */
  public Cors withAllowCredentials(boolean allow) {
    return new Cors(true, allowOrigins, allowMethods, allowHeaders, exposeHeaders, maxAge, allow);
  }

  private static List<String> tokens(String what, List<String> values) {
    List<String> copy = List.copyOf(values);
    for (String v : copy) {
      if (!Http.isToken(v)) {
        throw new IllegalArgumentException(what + " must hold HTTP tokens: " + JsonText.quote(v));
      }
    }
    return copy;
  }

  /**
   * Returns whether CORS handling is on.
   *
   * @return true unless {@link #disabled()}
   */
  public boolean enabled() {
    return enabled;
  }

  /**
   * Answers {@code ex} if it is a preflight; otherwise adds the CORS headers its answer needs, if
   * any.
   *
   * @return true if {@code ex} was a preflight and is answered
   */
  boolean handle(ServerExchange ex) {
    String allowOrigin = allowOriginFor(ex.origin);
    if (enabled
        && ex.origin != null
        && ex.method.equals("OPTIONS")
        && ex.request.headers().contains("Access-Control-Request-Method")) {
      preflight(ex, allowOrigin);
      return true;
    }
    if (allowOrigin != null) {
      ex.header("Access-Control-Allow-Origin", allowOrigin);
      ex.header("Access-Control-Expose-Headers", exposeHeadersValue);
      ex.header("Vary", "Origin");
      allowCredentials(ex);
    }
    return false;
  }

  private void preflight(ServerExchange ex, String allowOrigin) {
    ex.outcome = "preflight";
    if (allowOrigin == null) {
      ex.json(403, "{\"error\":\"origin_not_allowed\"}");
      return;
    }
    ex.status = 204;
    ex.responseBody = new byte[0];
    ex.header("Access-Control-Allow-Origin", allowOrigin);
    ex.header("Access-Control-Allow-Methods", allowMethodsValue);
    String requested = ex.request.headers().get("Access-Control-Request-Headers");
    String allowed = allowHeadersValue != null ? allowHeadersValue : requested;
    if (allowed != null && !allowed.isEmpty()) {
      ex.header("Access-Control-Allow-Headers", allowed);
    }
    ex.header("Access-Control-Max-Age", Long.toString(maxAge.getSeconds()));
    allowCredentials(ex);
    ex.header("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
  }

  private void allowCredentials(ServerExchange ex) {
    if (allowCredentials) {
      ex.header("Access-Control-Allow-Credentials", "true");
    }
  }

  /** The value for Access-Control-Allow-Origin, or null if {@code origin} is not allowed. */
  private String allowOriginFor(String origin) {
    if (!enabled || origin == null) {
      return null;
    }
    if (allowOrigins.contains("*")) {
      return allowCredentials ? origin : "*";
    }
    return allowOrigins.contains(origin) ? origin : null;
  }
}
