package dev.relent.cli.common;

import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the parts of a request (URL, method, headers, body) into an {@link HttpRequest}: the one
 * parser behind {@code relent call}'s flags and {@code relent batch}'s JSON lines. It checks each
 * part as the JDK client would take it, and takes an {@code Idempotency-Key} out of the headers
 * (checked): the caller hands that key to the client, which sends it on every attempt.
 *
 * <p>A wrong part is an {@link Invalid} naming which part and what is wrong; the caller words it
 * for its source (a flag, a line's key). Nothing here ever quotes a header value: it may be a
 * credential. Not thread-safe: one per request.
 */
public final class RequestParser {
  static final String URL_FORMS = "http://host[:port]/path or https://host[:port]/path";

  /** A part of the request that is wrong; the message says what, without secrets. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    /** Which part is wrong. */
    public enum Part {
      /** The URL is not a URI. */
      URL,
      /** The URL is not http(s), or has no host. */
      SCHEME,
      /** The JDK client cannot send this method with this URL. */
      METHOD,
      /** A header's name is not a token. */
      HEADER_NAME,
      /** The {@code Idempotency-Key} header holds no valid key. */
      KEY,
      /** The client refuses the header (one it sets itself, or a value it cannot carry). */
      HEADER,
      /** The request cannot be built. */
      REQUEST
    }

    private final Part part;

    Invalid(Part part, String message) {
      super(message, null, false, false);
      this.part = part;
    }

    public Part part() {
      return part;
    }
  }

  private final Redactor redactor;
  private final HttpRequest.Builder builder;
  private final List<String> headerNames = new ArrayList<>();
  private String headerKey;

  /**
   * Starts a request.
   *
   * @param uri the URL, from {@link #uri}
   * @param method an HTTP token, sent as given
   * @param body the body, or null for none
   * @param redactor scrubs the client's messages
   * @throws Invalid ({@link Invalid.Part#METHOD}) if the client cannot send the method
   */
  public RequestParser(URI uri, String method, byte[] body, Redactor redactor) throws Invalid {
    this.redactor = redactor;
    try {
      builder =
          HttpRequest.newBuilder(uri)
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
    } catch (IllegalArgumentException e) {
      // The JDK client refuses some methods (CONNECT) and some URLs.
      throw new Invalid(Invalid.Part.METHOD, redactor.text(String.valueOf(e.getMessage())));
    }
  }

  /**
   * Reads a URL: an http or https URI with a host.
   *
   * @throws Invalid ({@link Invalid.Part#URL} or {@link Invalid.Part#SCHEME}) saying why, with the
   *     accepted forms; the URL is redacted
   */
  public static URI uri(String text, Redactor redactor) throws Invalid {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new Invalid(
          Invalid.Part.URL,
          "not valid ("
              + redactor.text(e.getReason())
              + " at index "
              + e.getIndex()
              + "); use "
              + URL_FORMS);
    }
    String scheme = uri.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || uri.getHost() == null) {
      throw new Invalid(
          Invalid.Part.SCHEME,
          "'" + redactor.uri(text) + "' is not an http(s) URL with a host; use " + URL_FORMS);
    }
    return uri;
  }

  /** The method when none is given: POST with a body, GET without. */
  public static String defaultMethod(boolean hasBody) {
    return hasBody ? "POST" : "GET";
  }

  /** Whether {@code s} is a non-empty RFC 9110 token (method and header names). */
  public static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * Adds a header; an {@code Idempotency-Key} is checked and kept as {@link #headerKey()} instead.
   *
   * @throws Invalid ({@link Invalid.Part#HEADER_NAME}, {@link Invalid.Part#KEY} or {@link
   *     Invalid.Part#HEADER}) saying what is wrong, never the value
   */
  public void header(String name, String value) throws Invalid {
    if (!isToken(name)) {
      throw new Invalid(Invalid.Part.HEADER_NAME, "not a header name");
    }
    if (name.equalsIgnoreCase(Idempotency.HEADER)) {
      try {
        headerKey = Idempotency.requireValidKey(value);
      } catch (IllegalArgumentException e) {
        throw new Invalid(Invalid.Part.KEY, e.getMessage());
      }
    } else {
      try {
        builder.header(name, value);
      } catch (IllegalArgumentException e) {
        throw new Invalid(
            Invalid.Part.HEADER,
            e.getMessage() != null && e.getMessage().contains("restricted")
                ? "the HTTP client sets this header itself; leave it out"
                : "the value has characters a header cannot carry");
      }
    }
    headerNames.add(name);
  }

  /** Adds a header known to be valid, unless one of that name (in any case) was added. */
  public void headerUnlessGiven(String name, String value) {
    if (headerNames.stream().noneMatch(name::equalsIgnoreCase)) {
      builder.header(name, value);
      headerNames.add(name);
    }
  }

  /** The names of the headers added, as given, the {@code Idempotency-Key} included. */
  public List<String> headerNames() {
    return List.copyOf(headerNames);
  }

  /** The key an {@code Idempotency-Key} header gave, or null. */
  public String headerKey() {
    return headerKey;
  }

  /**
   * Sets the time limit the request carries to the client: the attempt's own, so that the adapter
   * sends the request as it is instead of a copy with that limit.
   *
   * @param limit more than zero
   */
  public void timeout(Duration limit) {
    builder.timeout(limit);
  }

  /**
   * Builds the request, without its {@code Idempotency-Key}.
   *
   * @throws Invalid ({@link Invalid.Part#REQUEST}) with the client's reason, redacted
   */
  public HttpRequest build() throws Invalid {
    try {
      return builder.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new Invalid(
          Invalid.Part.REQUEST,
          "cannot build the request: " + redactor.text(String.valueOf(e.getMessage())));
    }
  }
}
