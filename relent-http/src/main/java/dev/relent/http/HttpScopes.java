package dev.relent.http;

import dev.relent.guard.Scope;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which scopes an HTTP request belongs to, and which of them an answer's limit belongs to: the
 * scopes a {@link dev.relent.guard.GuardRegistry} keeps guards and pauses for.
 *
 * <p>A request's scopes, broadest first:
 *
 * <ol>
 *   <li>the <b>account</b>: the host (with its port when not the scheme's default), or what {@link
 *       Builder#withAccount} derives;
 *   <li>the <b>key</b>, when {@link Builder#withKeyHeader} names a header the request has: named by
 *       the header's name and a short hash of its value ({@code X-Api-Key#3fa1c2d4}), never by the
 *       value;
 *   <li>the <b>endpoint</b>: the method, the account and the route template: the first of {@link
 *       Builder#withRoutes} that matches the path ({@code /v1/payments/{id}}; a {@code {name}}
 *       segment matches any one segment), else the path with every segment that looks like an id
 *       (digits, a UUID, a long hex or token, a word with three digits or more) replaced by {@code
 *       {id}}; never the query;
 *   <li>a <b>custom</b> scope, when {@link Builder#withCustom} derives a key for the request.
 * </ol>
 *
 * <p>Which scope an answer pauses ({@link #pauses}): the one {@link Builder#withPauseDefault} names
 * (default the endpoint's); the account's when the server says the limit is partitioned by
 * something broader than the endpoint (a {@code RateLimit-Policy} with a partition key {@code pk})
 * or when a rule of {@link Builder#withAccountWideWhen} matches the response; the registry also
 * pauses the account when several of its endpoints are paused within a window. Immutable and
 * thread-safe.
 */
public final class HttpScopes {
  private static final HttpScopes DEFAULTS = builder().build();
  private static final int LONGEST_WORD = 24;

  private final List<String[]> routes;
  private final List<String> routeTexts;
  private final String keyHeader;
  private final Function<Request, String> account;
  private final Function<Request, String> custom;
  private final Scope.Kind pauseDefault;
  private final List<Predicate<HeaderLookup>> accountWide;

  private HttpScopes(Builder b) {
    this.routeTexts = List.copyOf(b.routes);
    List<String[]> split = new ArrayList<>();
    for (String r : b.routes) {
      split.add(segments(r));
    }
    this.routes = List.copyOf(split);
    this.keyHeader = b.keyHeader;
    this.account = b.account;
    this.custom = b.custom;
    this.pauseDefault = b.pauseDefault;
    this.accountWide = List.copyOf(b.accountWide);
  }

  /**
   * Returns the default scopes: account by host, endpoint by the default normaliser, no key, a
   * pause belongs to the endpoint.
   *
   * @return the shared default
   */
  public static HttpScopes ofDefaults() {
    return DEFAULTS;
  }

  /**
   * Returns a builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * What a derivation sees of a request: its method, URI and headers.
   *
   * @param method the method, upper case
   * @param uri the URI, unredacted (derive no secret from it into a name)
   * @param headers the request headers
   */
  public record Request(String method, URI uri, HeaderLookup headers) {
    /**
     * Creates the view.
     *
     * @throws NullPointerException if an argument is null
     */
    public Request {
      Objects.requireNonNull(method, "method cannot be null");
      Objects.requireNonNull(uri, "uri cannot be null");
      Objects.requireNonNull(headers, "headers cannot be null");
    }
  }

  /**
   * Returns a request's scopes, broadest first: account, key (if any), endpoint, custom (if any).
   *
   * @param method the method
   * @param uri the URI
   * @param headers the request headers; null counts as none
   * @return the scopes
   * @throws NullPointerException if {@code method} or {@code uri} is null
   */
  public List<Scope> scopesOf(String method, URI uri, HeaderLookup headers) {
    Request request =
        new Request(
            method.toUpperCase(Locale.ROOT), uri, headers == null ? HeaderLookup.NONE : headers);
    String accountName = name(account.apply(request), authority(uri));
    List<Scope> scopes = new ArrayList<>(4);
    scopes.add(Scope.account(accountName));
    if (keyHeader != null) {
      String value = request.headers().first(keyHeader);
      if (value != null && !value.isEmpty()) {
        scopes.add(Scope.key(keyHeader + "#" + shortHash(value)));
      }
    }
    scopes.add(Scope.endpoint(name(request.method() + " " + accountName + route(uri), "?")));
    if (custom != null) {
      String derived = custom.apply(request);
      if (derived != null && !derived.isBlank()) {
        scopes.add(Scope.custom(name(derived, "?")));
      }
    }
    return scopes;
  }

  /**
   * Returns the route of a URI's path: the first configured template that matches, else the path
   * with its ids replaced by {@code {id}}.
   *
   * @param uri the URI
   * @return the route, starting with {@code /}
   * @throws NullPointerException if {@code uri} is null
   */
  public String route(URI uri) {
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    if (!routes.isEmpty()) {
      String[] segments = segments(path);
      for (int i = 0; i < routes.size(); i++) {
        if (matches(routes.get(i), segments)) {
          return routeTexts.get(i);
        }
      }
    }
    // The path's non-empty segments, each an id or itself; a request's cost, so without a split.
    StringBuilder b = new StringBuilder(path.length() + 8);
    int n = path.length();
    for (int start = 0; start < n; ) {
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = n;
      }
      if (end > start) {
        b.append('/');
        if (looksLikeId(path, start, end)) {
          b.append("{id}");
        } else {
          b.append(path, start, end);
        }
      }
      start = end + 1;
    }
    if (b.length() == 0 || path.endsWith("/")) {
      b.append('/');
    }
    return b.toString();
  }

  /**
   * Returns the kind of scope a rate-limit answer belongs to.
   *
   * @param status the status
   * @param headers the response headers; null counts as none
   * @return {@link Scope.Kind#ACCOUNT} (or {@link Scope.Kind#KEY} when a key header is configured)
   *     when the server's policy has a partition key or an account-wide rule matches; else the
   *     pause default
   */
  public Scope.Kind pauses(int status, HeaderLookup headers) {
    HeaderLookup h = headers == null ? HeaderLookup.NONE : headers;
    if (partitioned(h)) {
      return keyHeader != null ? Scope.Kind.KEY : Scope.Kind.ACCOUNT;
    }
    for (Predicate<HeaderLookup> rule : accountWide) {
      if (rule.test(h)) {
        return Scope.Kind.ACCOUNT;
      }
    }
    return pauseDefault;
  }

  /**
   * Whether the server states a limit with a partition key ({@code pk}, on a {@code RateLimit} item
   * or its {@code RateLimit-Policy}), read by the same strict parser as every hint: a malformed
   * field says nothing.
   */
  private static boolean partitioned(HeaderLookup headers) {
    // The partition key does not depend on the time; any instant reads it.
    for (RateLimitStatus limit : ServerHints.ofDefaults().rateLimits(headers, Instant.EPOCH)) {
      if (limit.partitionKey().isPresent()) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(String[] template, String[] segments) {
    if (template.length != segments.length) {
      return false;
    }
    for (int i = 0; i < template.length; i++) {
      String t = template[i];
      boolean variable = t.length() > 2 && t.startsWith("{") && t.endsWith("}");
      if (!variable && !t.equals(segments[i])) {
        return false;
      }
    }
    return true;
  }

  private static String[] segments(String path) {
    List<String> out = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return out.toArray(new String[0]);
  }

  /** Whether a path segment is an id rather than a part of the route. */
  static boolean looksLikeId(String segment) {
    return looksLikeId(segment, 0, segment.length());
  }

  /**
   * Whether {@code s[from, to)} is an id: longer than a word, a UUID, all digits, three digits or
   * more, or a long hex string with a digit.
   */
  private static boolean looksLikeId(String s, int from, int to) {
    int length = to - from;
    if (length > LONGEST_WORD || (length == 36 && isUuid(s, from))) {
      return true;
    }
    int digits = 0;
    boolean hex = true;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (Character.isDigit(c)) {
        digits++;
      }
      hex &= isHex(c);
    }
    return digits == length || digits >= 3 || (digits > 0 && hex && length >= 12);
  }

  /** 8-4-4-4-12 hex digits from {@code from}. */
  private static boolean isUuid(String s, int from) {
    for (int i = 0; i < 36; i++) {
      char c = s.charAt(from + i);
      boolean ok = i == 8 || i == 13 || i == 18 || i == 23 ? c == '-' : isHex(c);
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static String authority(URI uri) {
    String host = uri.getHost() == null ? "unknown-host" : uri.getHost().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    boolean defaultPort =
        port < 0
            || ("http".equalsIgnoreCase(uri.getScheme()) && port == 80)
            || ("https".equalsIgnoreCase(uri.getScheme()) && port == 443);
    return defaultPort ? host : host + ":" + port;
  }

  /** A scope name: sanitised, at most the longest a scope takes, never blank. */
  private static String name(String value, String fallback) {
    String s = value == null || value.isBlank() ? fallback : ResponseFacts.sanitize(value);
    if (s.length() > Scope.MAX_NAME_LENGTH) {
      s = s.substring(0, Scope.MAX_NAME_LENGTH - 1) + "…";
    }
    return s.isBlank() ? fallback : s;
  }

  /** The first 8 hex digits of the value's SHA-256: tells keys apart, reveals nothing. */
  static String shortHash(String value) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      StringBuilder b = new StringBuilder(8);
      for (int i = 0; i < 4; i++) {
        b.append(String.format(Locale.ROOT, "%02x", digest[i]));
      }
      return b.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "HttpScopes[routes="
        + routeTexts
        + ", keyHeader="
        + keyHeader
        + ", pauseDefault="
        + pauseDefault.slug()
        + "]";
  }

  /** Builds {@link HttpScopes}. Mutable and not thread-safe. */
  public static final class Builder {
    private final List<String> routes = new ArrayList<>();
    private String keyHeader;
    private Function<Request, String> account = r -> null;
    private Function<Request, String> custom;
    private Scope.Kind pauseDefault = Scope.Kind.ENDPOINT;
    private final List<Predicate<HeaderLookup>> accountWide = new ArrayList<>();

    Builder() {}

    /**
     * Adds route templates, tried in order before the default normaliser: {@code
     * /v1/payments/{id}}; a segment in braces matches any one segment.
     *
     * @param templates paths starting with {@code /}
     * @return this builder
     * @throws NullPointerException if {@code templates} or an element is null
     * @throws IllegalArgumentException if a template does not start with {@code /}, has a query, or
     *     has an empty variable {@code {}}
     */
    public Builder withRoutes(String... templates) {
      Objects.requireNonNull(templates, "templates cannot be null");
      for (String t : templates) {
        Objects.requireNonNull(t, "template cannot be null");
        if (!t.startsWith("/") || t.contains("?") || t.contains("{}")) {
          throw new IllegalArgumentException(
              "route template must be a path starting with / and without a query, variables"
                  + " named in braces: \""
                  + t
                  + "\"; e.g. /v1/payments/{id}");
        }
        routes.add(t);
      }
      return this;
    }

    /**
     * Gives each API key or tenant a scope of its own, from the request header that carries it
     * ({@code X-Api-Key}, {@code Authorization}); the scope is named by a short hash of the value.
     * Default: none.
     *
     * @param header the header's name
     * @return this builder
     * @throws NullPointerException if {@code header} is null
     * @throws IllegalArgumentException if {@code header} is blank or not a header name
     */
    public Builder withKeyHeader(String header) {
      Objects.requireNonNull(header, "header cannot be null");
      if (!header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        throw new IllegalArgumentException(
            "key header must be a header name (letters, digits, - and the like): \""
                + header
                + "\"");
      }
      this.keyHeader = header;
      return this;
    }

    /**
     * Derives the account's name from the request, for accounts that are not one per host; a null
     * or blank result falls back to the host. Default: the host.
     *
     * @param account a thread-safe function; its result is shown in logs, so no secret
     * @return this builder
     * @throws NullPointerException if {@code account} is null
     */
    public Builder withAccount(Function<Request, String> account) {
      this.account = Objects.requireNonNull(account, "account cannot be null");
      return this;
    }

    /**
     * Adds a scope the caller derives from the request (a tenant from the path, a region); a null
     * or blank result adds none. Default: none.
     *
     * @param custom a thread-safe function; its result is shown in logs, so no secret
     * @return this builder
     * @throws NullPointerException if {@code custom} is null
     */
    public Builder withCustom(Function<Request, String> custom) {
      this.custom = Objects.requireNonNull(custom, "custom cannot be null");
      return this;
    }

    /**
     * Sets the scope a rate-limit answer pauses unless the server says otherwise. Default {@link
     * Scope.Kind#ENDPOINT}.
     *
     * @param kind the kind; a request without a scope of it pauses its narrowest
     * @return this builder
     * @throws NullPointerException if {@code kind} is null
     */
    public Builder withPauseDefault(Scope.Kind kind) {
      this.pauseDefault = Objects.requireNonNull(kind, "kind cannot be null");
      return this;
    }

    /**
     * Adds a rule that says a rate-limit answer is the whole account's, from its headers (for
     * example {@code h -> "global".equals(h.first("X-RateLimit-Scope"))}).
     *
     * @param rule a thread-safe test of the response headers
     * @return this builder
     * @throws NullPointerException if {@code rule} is null
     */
    public Builder withAccountWideWhen(Predicate<HeaderLookup> rule) {
      accountWide.add(Objects.requireNonNull(rule, "rule cannot be null"));
      return this;
    }

    /**
     * Builds the scopes.
     *
     * @return a new immutable instance
     */
    public HttpScopes build() {
      return new HttpScopes(this);
    }
  }
}
