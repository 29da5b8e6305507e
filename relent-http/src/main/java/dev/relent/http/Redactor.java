package dev.relent.http;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from what Relent writes down: header values, URIs, free text. Used by the
 * attempt log, exception messages and reports (the CLI's {@code --report}), so that a secret never
 * reaches a log, an exception or a report. Bodies are never logged at all.
 *
 * <p>A header is sensitive when its lower-cased name is in the <em>names</em> list or contains one
 * of the <em>parts</em>, and is not in the <em>allowed</em> list; query parameters likewise.
 * Defaults ({@link #ofDefaults()}):
 *
 * <ul>
 *   <li>header names: {@code authorization, proxy-authorization, cookie, set-cookie, x-api-key,
 *       api-key, apikey, x-auth-token, private-token, x-amz-security-token, x-goog-api-key,
 *       x-csrf-token, x-xsrf-token}; parts: {@code token, secret, key, password, passwd, auth,
 *       session, signature, credential, cookie}; allowed: {@code idempotency-key,
 *       x-idempotency-key} (a key is no secret, and reconciliation needs it);
 *   <li>query parameters: {@code token, access_token, refresh_token, id_token, key, api_key,
 *       apikey, api-key, signature, sig, password, passwd, pwd, secret, client_secret, code, auth,
 *       session, sessionid, jwt, x-amz-signature, x-amz-credential, x-amz-security-token,
 *       x-goog-signature, x-goog-credential}; parts: {@code token, secret, password, signature,
 *       apikey, api_key}.
 * </ul>
 *
 * <p>A URI also loses its user-info ({@code user:pass@}) and its fragment. Path segments are kept:
 * a secret inside a path (a webhook URL) cannot be recognised; keep such URIs out of logs. The
 * replacement text is {@code REDACTED}.
 *
 * <p>Immutable and thread-safe. No method throws on any input except a null argument where noted.
 */
public final class Redactor {
  private static final List<String> DEFAULT_HEADERS =
      List.of(
          "authorization",
          "proxy-authorization",
          "cookie",
          "set-cookie",
          "x-api-key",
          "api-key",
          "apikey",
          "x-auth-token",
          "private-token",
          "x-amz-security-token",
          "x-goog-api-key",
          "x-csrf-token",
          "x-xsrf-token");
  private static final List<String> DEFAULT_HEADER_PARTS =
      List.of(
          "token",
          "secret",
          "key",
          "password",
          "passwd",
          "auth",
          "session",
          "signature",
          "credential",
          "cookie");
  private static final List<String> DEFAULT_ALLOWED_HEADERS =
      List.of("idempotency-key", "x-idempotency-key");
  private static final List<String> DEFAULT_PARAMETERS =
      List.of(
          "token",
          "access_token",
          "refresh_token",
          "id_token",
          "key",
          "api_key",
          "apikey",
          "api-key",
          "signature",
          "sig",
          "password",
          "passwd",
          "pwd",
          "secret",
          "client_secret",
          "code",
          "auth",
          "session",
          "sessionid",
          "jwt",
          "x-amz-signature",
          "x-amz-credential",
          "x-amz-security-token",
          "x-goog-signature",
          "x-goog-credential");
  private static final List<String> DEFAULT_PARAMETER_PARTS =
      List.of("token", "secret", "password", "signature", "apikey", "api_key");

  private static final Redactor DEFAULTS = builder().build();

  // The credential runs on the same line (a line ending in "Bearer" must not take the next line's
  // header name for it) up to what also ends a name=value pair's value, so that it can never stop
  // inside a labelled secret ("Bearer api%5Fkey=abc"); it is not itself a scheme word: in "Bearer
  // Token abc" it is abc.
  private static final Pattern AUTH_SCHEME =
      Pattern.compile(
          "(?i)\\b(bearer|basic|digest|token)([ \\t]++)"
              + "(?!(?:bearer|basic|digest|token)(?![^\\s&;,\"'<>]))[^\\s&;,\"'<>]++");
  // A name and what introduces its value; the value itself is measured only after a sensitive name
  // (valueEnd), so that text of many names ("a=a=a=...") costs time in proportion to its length.
  private static final Pattern NAME_VALUE =
      Pattern.compile("(?<![A-Za-z0-9_.\\-\\[\\]%])([A-Za-z0-9_.\\-\\[\\]%]{1,100}+)=");
  private static final Pattern HEADER_LINE =
      Pattern.compile("(?<![A-Za-z0-9\\-])([A-Za-z0-9\\-]{1,100}+):[ \\t]*+");
  private static final Pattern USER_INFO = Pattern.compile("://[^/@\\s?#]++@");

  private final Set<String> headers;
  private final List<String> headerParts;
  private final Set<String> allowedHeaders;
  private final Set<String> parameters;
  private final List<String> parameterParts;
  private final Set<String> allowedParameters;
  private final String replacement;

  private Redactor(Builder b) {
    headers = Set.copyOf(b.headers);
    headerParts = List.copyOf(b.headerParts);
    allowedHeaders = Set.copyOf(b.allowedHeaders);
    parameters = Set.copyOf(b.parameters);
    parameterParts = List.copyOf(b.parameterParts);
    allowedParameters = Set.copyOf(b.allowedParameters);
    replacement = b.replacement;
  }

  /**
   * Returns the redactor with the default lists.
   *
   * @return the shared default redactor
   */
  public static Redactor ofDefaults() {
    return DEFAULTS;
  }

  /**
   * Returns a builder that starts from the default lists; {@link Builder#withoutDefaults()} empties
   * them.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the text that replaces a secret.
   *
   * @return the replacement, {@code REDACTED} by default
   */
  public String replacement() {
    return replacement;
  }

  /**
   * Returns whether a header's value must not be written down.
   *
   * @param name the header name, any case; null is not sensitive
   * @return true if sensitive
   */
  public boolean isSensitiveHeader(String name) {
    return matches(name, headers, headerParts, allowedHeaders);
  }

  /**
   * Returns whether a query parameter's value must not be written down.
   *
   * @param name the parameter name, any case, raw or percent-encoded; null is not sensitive
   * @return true if sensitive
   */
  public boolean isSensitiveParameter(String name) {
    if (name == null) {
      return false;
    }
    if (matches(name, parameters, parameterParts, allowedParameters)) {
      return true;
    }
    String decoded = decode(name);
    return !decoded.equals(name) && matches(decoded, parameters, parameterParts, allowedParameters);
  }

  private static boolean matches(
      String name, Set<String> exact, List<String> parts, Set<String> allowed) {
    if (name == null) {
      return false;
    }
    String lower = name.trim().toLowerCase(Locale.ROOT);
    if (allowed.contains(lower)) {
      return false;
    }
    if (exact.contains(lower)) {
      return true;
    }
    for (int i = 0; i < parts.size(); i++) {
      if (lower.contains(parts.get(i))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns a header value fit to write down: the value, or the replacement when the header is
   * sensitive.
   *
   * @param name the header name
   * @param value the value; may be null
   * @return the value or the replacement; null if {@code value} is null
   */
  public String header(String name, String value) {
    if (value == null) {
      return null;
    }
    return isSensitiveHeader(name) ? replacement : value;
  }

  /**
   * Returns a copy of a header map with every sensitive value replaced. Order and case of names are
   * kept; null keys are dropped.
   *
   * @param headers the headers
   * @return a new unmodifiable map
   * @throws NullPointerException if {@code headers} is null
   */
  public Map<String, List<String>> headers(Map<String, ? extends List<String>> headers) {
    Objects.requireNonNull(headers, "headers cannot be null");
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
      if (e.getKey() == null) {
        continue;
      }
      List<String> values = e.getValue() == null ? List.of() : e.getValue();
      List<String> copy = new ArrayList<>(values.size());
      boolean sensitive = isSensitiveHeader(e.getKey());
      for (String v : values) {
        copy.add(sensitive ? replacement : v);
      }
      out.put(e.getKey(), Collections.unmodifiableList(copy));
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * Returns a URI fit to write down: user-info replaced, sensitive query parameter values replaced,
   * fragment dropped. The rest is kept in its raw (encoded) form.
   *
   * @param uri the URI; may be null
   * @return the redacted URI, or {@code "-"} if {@code uri} is null
   */
  public String uri(URI uri) {
    return uri == null ? "-" : uri(uri.toString());
  }

  /**
   * Returns a URI string fit to write down, as {@link #uri(URI)}; the string need not be a valid
   * URI.
   *
   * @param uri the URI; may be null
   * @return the redacted URI, or {@code "-"} if {@code uri} is null
   */
  public String uri(String uri) {
    if (uri == null) {
      return "-";
    }
    String s = uri;
    int hash = s.indexOf('#');
    if (hash >= 0) {
      s = s.substring(0, hash);
    }
    int question = s.indexOf('?');
    String base = question >= 0 ? s.substring(0, question) : s;
    String query = question >= 0 ? s.substring(question + 1) : null;
    int scheme = base.indexOf("://");
    if (scheme >= 0) {
      int authorityEnd = base.indexOf('/', scheme + 3);
      int at = base.lastIndexOf('@', authorityEnd < 0 ? base.length() - 1 : authorityEnd);
      if (at > scheme) {
        base = base.substring(0, scheme + 3) + replacement + base.substring(at);
      }
    }
    if (query == null) {
      return base;
    }
    StringBuilder out = new StringBuilder(base.length() + query.length() + 8).append(base);
    out.append('?');
    int start = 0;
    while (start <= query.length()) {
      int amp = query.indexOf('&', start);
      int end = amp < 0 ? query.length() : amp;
      String pair = query.substring(start, end);
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      if (eq >= 0 && isSensitiveParameter(name)) {
        out.append(name).append('=').append(replacement);
      } else {
        out.append(pair);
      }
      if (amp < 0) {
        break;
      }
      out.append('&');
      start = amp + 1;
    }
    return out.toString();
  }

  /**
   * Scrubs free text, such as an exception message: credentials after {@code Bearer}, {@code
   * Basic}, {@code Digest} or {@code Token}; values of sensitive {@code name=value} pairs; values
   * of sensitive {@code Name: value} header lines; user-info in URLs. Best effort: it cannot
   * recognise a secret that is not labelled.
   *
   * @param text the text; may be null
   * @return the scrubbed text, or null if {@code text} is null
   */
  public String text(String text) {
    if (text == null) {
      return null;
    }
    String s =
        USER_INFO.matcher(text).replaceAll("://" + Matcher.quoteReplacement(replacement) + "@");
    s = AUTH_SCHEME.matcher(s).replaceAll("$1$2" + Matcher.quoteReplacement(replacement));
    s = replaceValues(s, NAME_VALUE, true);
    return replaceValues(s, HEADER_LINE, false);
  }

  private String replaceValues(String s, Pattern pattern, boolean parameter) {
    Matcher m = pattern.matcher(s);
    StringBuilder out = null;
    int last = 0;
    int from = 0;
    while (from < s.length() && m.find(from)) {
      String name = m.group(1);
      boolean sensitive = parameter ? isSensitiveParameter(name) : isSensitiveHeader(name);
      int start = m.end();
      int end = sensitive ? valueEnd(s, start, parameter) : start;
      if (end == start
          || (end - start == replacement.length() && s.startsWith(replacement, start))) {
        // Not sensitive, or nothing to hide: the value may itself hold a labelled secret
        // ("url: https://h/?token=x"), so the search goes on right after the name.
        from = m.end(1) + 1;
        continue;
      }
      if (out == null) {
        out = new StringBuilder(s.length());
      }
      out.append(s, last, start).append(replacement);
      last = end;
      from = end;
    }
    return out == null ? s : out.append(s, last, s.length()).toString();
  }

  /**
   * Where a value starting at {@code start} ends: a pair's value at {@code &}, white space, {@code
   * ;}, {@code ,}, a quote or an angle bracket; a header line's value at the end of the line.
   */
  private static int valueEnd(String s, int start, boolean parameter) {
    int i = start;
    while (i < s.length() && !endsValue(s.charAt(i), parameter)) {
      i++;
    }
    return i;
  }

  private static boolean endsValue(char c, boolean parameter) {
    if (!parameter) {
      return c == '\r' || c == '\n';
    }
    switch (c) {
      case '&':
      case ';':
      case ',':
      case '"':
      case '\'':
      case '<':
      case '>':
        return true;
      default:
        return isPatternSpace(c);
    }
  }

  /**
   * What {@code \\s} matches in a Java pattern: space, tab, line feed, vertical tab, form feed, CR.
   */
  private static boolean isPatternSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\u000b' || c == '\f' || c == '\r';
  }

  private static String decode(String name) {
    try {
      return URLDecoder.decode(name, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return name; // a malformed escape: compare the raw name only
    }
  }

  @Override
  public String toString() {
    return "Redactor[headers="
        + new java.util.TreeSet<>(headers)
        + ", headerParts="
        + headerParts
        + ", allowedHeaders="
        + new java.util.TreeSet<>(allowedHeaders)
        + ", parameters="
        + new java.util.TreeSet<>(parameters)
        + ", parameterParts="
        + parameterParts
        + "]";
  }

  /**
   * Builds a {@link Redactor}, starting from the default lists. Names are compared lower-cased.
   * Mutable and not thread-safe.
   */
  public static final class Builder {
    private final Set<String> headers = new LinkedHashSet<>(DEFAULT_HEADERS);
    private final Set<String> headerParts = new LinkedHashSet<>(DEFAULT_HEADER_PARTS);
    private final Set<String> allowedHeaders = new LinkedHashSet<>(DEFAULT_ALLOWED_HEADERS);
    private final Set<String> parameters = new LinkedHashSet<>(DEFAULT_PARAMETERS);
    private final Set<String> parameterParts = new LinkedHashSet<>(DEFAULT_PARAMETER_PARTS);
    private final Set<String> allowedParameters = new LinkedHashSet<>();
    private String replacement = "REDACTED";

    Builder() {}

    /**
     * Empties every list, so that only what is added afterwards is redacted.
     *
     * @return this builder
     */
    public Builder withoutDefaults() {
      headers.clear();
      headerParts.clear();
      allowedHeaders.clear();
      parameters.clear();
      parameterParts.clear();
      allowedParameters.clear();
      return this;
    }

    /**
     * Adds header names whose values are redacted.
     *
     * @param names exact names, any case
     * @return this builder
     * @throws NullPointerException if {@code names} or an element is null
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder redactHeaders(String... names) {
      addAll(headers, names, "header name");
      return this;
    }

    /**
     * Adds parts of header names: a header whose name contains one is redacted.
     *
     * @param parts name parts, any case
     * @return this builder
     * @throws NullPointerException if {@code parts} or an element is null
     * @throws IllegalArgumentException if a part is blank
     */
    public Builder redactHeadersContaining(String... parts) {
      addAll(headerParts, parts, "header name part");
      return this;
    }

    /**
     * Adds header names that are never redacted, even when they contain a part.
     *
     * @param names exact names, any case
     * @return this builder
     * @throws NullPointerException if {@code names} or an element is null
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder allowHeaders(String... names) {
      addAll(allowedHeaders, names, "header name");
      return this;
    }

    /**
     * Adds query parameter names whose values are redacted.
     *
     * @param names exact names, any case
     * @return this builder
     * @throws NullPointerException if {@code names} or an element is null
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder redactParameters(String... names) {
      addAll(parameters, names, "parameter name");
      return this;
    }

    /**
     * Adds parts of query parameter names: a parameter whose name contains one is redacted.
     *
     * @param parts name parts, any case
     * @return this builder
     * @throws NullPointerException if {@code parts} or an element is null
     * @throws IllegalArgumentException if a part is blank
     */
    public Builder redactParametersContaining(String... parts) {
      addAll(parameterParts, parts, "parameter name part");
      return this;
    }

    /**
     * Adds query parameter names that are never redacted, even when they contain a part.
     *
     * @param names exact names, any case
     * @return this builder
     * @throws NullPointerException if {@code names} or an element is null
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder allowParameters(String... names) {
      addAll(allowedParameters, names, "parameter name");
      return this;
    }

    /**
     * Sets the text that replaces a secret. Default {@code REDACTED}.
     *
     * @param replacement non-blank text
     * @return this builder
     * @throws NullPointerException if {@code replacement} is null
     * @throws IllegalArgumentException if {@code replacement} is blank
     */
    public Builder withReplacement(String replacement) {
      Objects.requireNonNull(replacement, "replacement cannot be null");
      if (replacement.isBlank()) {
        throw new IllegalArgumentException(
            "replacement must not be blank: \"" + replacement + "\"");
      }
      this.replacement = replacement;
      return this;
    }

    private static void addAll(Set<String> target, String[] names, String what) {
      Objects.requireNonNull(names, what + "s cannot be null");
      for (String name : names) {
        Objects.requireNonNull(name, what + " cannot be null");
        if (name.isBlank()) {
          throw new IllegalArgumentException(what + " must not be blank: \"" + name + "\"");
        }
        target.add(name.trim().toLowerCase(Locale.ROOT));
      }
    }

    /**
     * Builds the redactor.
     *
     * @return a new immutable redactor
     */
    public Redactor build() {
      return new Redactor(this);
    }
  }
}
