package dev.relent.idempotency;

import dev.relent.idempotency.internal.ResponseParts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTTP response as the handler stores and replays it: status, headers and body. The operation
 * returns one; the handler returns the operation's, a replay of a stored one (marked with {@link
 * IdempotencyHandler#REPLAYED_HEADER}) or a problem ({@link IdempotencyProblem}).
 *
 * <p>Immutable and thread-safe; equal when status, headers (names compared as given, in order) and
 * body are equal. {@link #toString()} shows neither header values nor the body.
 */
public final class IdempotencyResponse {

  private static final byte[] NO_BODY = new byte[0];

  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private IdempotencyResponse(int status, Map<String, List<String>> headers, byte[] body) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /**
   * Returns a response.
   *
   * @param status the HTTP status
   * @param headers header name to values, kept in the given order; copied
   * @param body the body; copied
   * @return the response
   * @throws IllegalArgumentException if the status is outside 100..599
   * @throws NullPointerException if the headers, a header name or value, or the body is null
   */
  public static IdempotencyResponse of(int status, Map<String, List<String>> headers, byte[] body) {
    return new IdempotencyResponse(
        ResponseParts.checkStatus(status),
        ResponseParts.copyHeaders(headers),
        Objects.requireNonNull(body, "body cannot be null").clone());
  }

  /**
   * Returns a builder for a response with this status, no headers and an empty body.
   *
   * @param status the HTTP status
   * @return a new builder
   * @throws IllegalArgumentException if the status is outside 100..599
   */
  public static Builder builder(int status) {
    return new Builder(ResponseParts.checkStatus(status));
  }

  /**
   * Returns the HTTP status.
   *
   * @return the status, 100..599
   */
  public int status() {
    return status;
  }

  /**
   * Returns the headers.
   *
   * @return header name to values, in order; unmodifiable
   */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /**
   * Returns the first value of a header.
   *
   * @param name the header name, compared ignoring case
   * @return the first value, or empty if the header is absent
   * @throws NullPointerException if {@code name} is null
   */
  public Optional<String> header(String name) {
    Objects.requireNonNull(name, "name cannot be null");
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return Optional.of(e.getValue().get(0));
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the body.
   *
   * @return a copy of the body
   */
  public byte[] body() {
    return body.clone();
  }

  /**
   * Returns the body decoded as UTF-8.
   *
   * @return the body text
   */
  public String bodyUtf8() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /**
   * Returns whether this response is a replay of a stored one.
   *
   * @return {@code true} if {@link IdempotencyHandler#REPLAYED_HEADER} is {@code true}
   */
  public boolean isReplayed() {
    return header(IdempotencyHandler.REPLAYED_HEADER).map("true"::equals).orElse(false);
  }

  // The handler stores the body without copying it once more.
  byte[] bodyUnsafe() {
    return body;
  }

  // A replay shares the stored record's body array: both are immutable.
  static IdempotencyResponse ofTrusted(int status, Map<String, List<String>> headers, byte[] body) {
    return new IdempotencyResponse(status, headers, body);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof IdempotencyResponse)) {
      return false;
    }
    IdempotencyResponse that = (IdempotencyResponse) o;
    return status == that.status && headers.equals(that.headers) && Arrays.equals(body, that.body);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    // Header values (Set-Cookie) and bodies may carry secrets or personal data.
    return "IdempotencyResponse{status="
        + status
        + ", headers="
        + headers.keySet()
        + ", body="
        + body.length
        + " bytes}";
  }

  /** Builds an {@link IdempotencyResponse}. Not thread-safe. */
  public static final class Builder {
    private final int status;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private byte[] body = NO_BODY;

    private Builder(int status) {
      this.status = status;
    }

    /**
     * Adds a header value, after any values the header already has.
     *
     * @param name the header name
     * @param value the value
     * @return this builder
     * @throws NullPointerException if {@code name} or {@code value} is null
     */
    public Builder withHeader(String name, String value) {
      Objects.requireNonNull(name, "name cannot be null");
      Objects.requireNonNull(value, "value cannot be null");
      headers.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
      return this;
    }

    /**
     * Sets the body; default empty.
     *
     * @param body the body bytes; copied
     * @return this builder
     * @throws NullPointerException if {@code body} is null
     */
    public Builder withBody(byte[] body) {
      this.body = Objects.requireNonNull(body, "body cannot be null").clone();
      return this;
    }

    /**
     * Sets the body to the UTF-8 bytes of a text; default empty.
     *
     * @param body the body text
     * @return this builder
     * @throws NullPointerException if {@code body} is null
     */
    public Builder withBody(String body) {
      this.body =
          Objects.requireNonNull(body, "body cannot be null").getBytes(StandardCharsets.UTF_8);
      return this;
    }

    /**
     * Builds the response.
     *
     * @return an immutable response
     */
    public IdempotencyResponse build() {
      return new IdempotencyResponse(status, ResponseParts.copyHeaders(headers), body.clone());
    }
  }
}
