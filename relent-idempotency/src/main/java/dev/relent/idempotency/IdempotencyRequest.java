package dev.relent.idempotency;

import java.util.Objects;

/**
 * The parts of an HTTP request that idempotency looks at: who asks (scope), what (method, path,
 * body) and with which {@code Idempotency-Key}. Build one per incoming request with {@link
 * #builder()}.
 *
 * <p>Immutable and thread-safe. {@link #toString()} shows neither the scope, the key, the query
 * string nor the body.
 */
public final class IdempotencyRequest {

  private static final byte[] NO_BODY = new byte[0];

  private final String scope;
  private final String method;
  private final String path;
  private final String key;
  private final byte[] body;

  private IdempotencyRequest(Builder b) {
    this.scope = b.scope;
    this.method = b.method;
    this.path = b.path;
    this.key = b.key;
    this.body = b.body;
  }

  /**
   * Returns a builder; scope, method and path must be set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns who asks: a tenant id, an account id or the credential itself. The handler keeps only
   * its SHA-256 digest; requests with different scopes never see each other's records.
   *
   * @return the scope, as given
   */
  public String scope() {
    return scope;
  }

  /**
   * Returns the HTTP method, part of the request fingerprint.
   *
   * @return the method, as given (HTTP methods are case-sensitive)
   */
  public String method() {
    return method;
  }

  /**
   * Returns the request target that must match for a duplicate, part of the fingerprint.
   *
   * @return the path (with the query string if the caller included it)
   */
  public String path() {
    return path;
  }

  /**
   * Returns the raw {@code Idempotency-Key} header value.
   *
   * @return the header value as received, or {@code null} if the request had none
   */
  public String key() {
    return key;
  }

  /**
   * Returns the request body, part of the fingerprint.
   *
   * @return a copy of the body; empty if none was set
   */
  public byte[] body() {
    return body.clone();
  }

  // The fingerprint reads the body without copying it.
  byte[] bodyUnsafe() {
    return body;
  }

  @Override
  public String toString() {
    int query = path.indexOf('?');
    // The query string may carry an API key, and the scope may be a credential: leave both out.
    return "IdempotencyRequest{method="
        + method
        + ", path="
        + (query < 0 ? path : path.substring(0, query) + "?...")
        + ", key="
        + (key == null ? "absent" : "present")
        + ", body="
        + body.length
        + " bytes}";
  }

  /** Builds an {@link IdempotencyRequest}. Not thread-safe. */
  public static final class Builder {
    private String scope;
    private String method;
    private String path;
    private String key;
    private byte[] body = NO_BODY;

    private Builder() {}

    /**
     * Sets who asks. Required. Use the same scope for every request of one caller, and never one
     * scope for two callers: it is what keeps one caller from reading another's responses.
     *
     * @param scope a tenant id, account id or credential; only its digest is stored
     * @return this builder
     * @throws NullPointerException if {@code scope} is null
     */
    public Builder withScope(String scope) {
      this.scope = Objects.requireNonNull(scope, "scope cannot be null");
      return this;
    }

    /**
     * Sets the HTTP method. Required.
     *
     * @param method e.g. {@code POST}
     * @return this builder
     * @throws NullPointerException if {@code method} is null
     * @throws IllegalArgumentException if {@code method} is empty
     */
    public Builder withMethod(String method) {
      Objects.requireNonNull(method, "method cannot be null");
      if (method.isEmpty()) {
        throw new IllegalArgumentException("method cannot be empty");
      }
      this.method = method;
      return this;
    }

    /**
     * Sets the request target that a duplicate must repeat. Required. Include the query string if
     * it selects what the operation does.
     *
     * @param path e.g. {@code /v1/payments}
     * @return this builder
     * @throws NullPointerException if {@code path} is null
     */
    public Builder withPath(String path) {
      this.path = Objects.requireNonNull(path, "path cannot be null");
      return this;
    }

    /**
     * Sets the raw {@code Idempotency-Key} header value; default none.
     *
     * @param key the header value as received ({@code "abc"} quoted or {@code abc} bare), or {@code
     *     null} if the request had no such header
     * @return this builder
     */
    public Builder withKey(String key) {
      this.key = key;
      return this;
    }

    /**
     * Sets the request body; default empty.
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
     * Builds the request.
     *
     * @return an immutable request
     * @throws IllegalStateException if the scope, method or path is not set
     */
    public IdempotencyRequest build() {
      if (scope == null || method == null || path == null) {
        throw new IllegalStateException(
            "scope, method and path must be set: scope "
                + (scope == null ? "missing" : "set")
                + ", method "
                + (method == null ? "missing" : "set")
                + ", path "
                + (path == null ? "missing" : "set"));
      }
      return new IdempotencyRequest(this);
    }
  }
}
