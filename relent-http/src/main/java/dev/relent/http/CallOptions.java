package dev.relent.http;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Per-request settings for every Relent HTTP adapter: the {@code Idempotency-Key}, a decision table
 * of its own, and a listener for the call's attempts. Immutable and thread-safe; the builder is
 * not.
 *
 * <pre>{@code
 * CallOptions.builder().withIdempotencyKey().build();           // a new key for this operation
 * CallOptions.builder().withIdempotencyKey("order-4711").build(); // the caller's own key
 * CallOptions.builder().withDecisionTable(DecisionTable.ofDefaults().with(503, Rule.NEVER)).build();
 * CallOptions.builder().withAttemptListener(record -> journal.add(record)).build();
 * }</pre>
 *
 * <p>A request that already has an {@code Idempotency-Key} header keeps it; that key wins over
 * these options.
 */
public final class CallOptions {
  enum KeyMode {
    CLIENT_DEFAULT,
    GENERATE,
    GIVEN,
    NONE
  }

  private static final CallOptions DEFAULTS = new Builder().build();

  final KeyMode keyMode;
  final String key;
  final DecisionTable table;
  private final Consumer<AttemptRecord> attemptListener;

  private CallOptions(Builder b) {
    this.keyMode = b.keyMode;
    this.key = b.key;
    this.table = b.table;
    this.attemptListener = b.attemptListener;
  }

  /**
   * Returns the options that change nothing: the client's key setting and table.
   *
   * @return the shared default options
   */
  public static CallOptions ofDefaults() {
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
   * Returns the caller's own key, if one was given.
   *
   * @return the key, or empty
   */
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(key);
  }

  /**
   * Returns the request's own decision table, if one was given.
   *
   * @return the table, or empty for the client's
   */
  public Optional<DecisionTable> decisionTable() {
    return Optional.ofNullable(table);
  }

  /**
   * Returns the listener for this call's attempts, if one was given.
   *
   * @return the listener, or empty
   */
  public Optional<Consumer<AttemptRecord>> attemptListener() {
    return Optional.ofNullable(attemptListener);
  }

  /**
   * Returns the {@code Idempotency-Key} a request gets under these options, by the rules every
   * client adapter follows: a key the request already carries wins; then the caller's key given
   * here; then a new key when these options ask for one, none when they opt out; otherwise a new
   * key for a non-idempotent method when the client keys every write. Call it once per logical
   * operation, before the first send: each call that makes a key makes a new one.
   *
   * @param method the request method
   * @param existing the request's own {@code Idempotency-Key} header, or null
   * @param clientKeysWrites whether the client gives every POST and PATCH a key
   * @return the key, or null when the request goes without one
   * @throws NullPointerException if {@code method} is null
   */
  public String keyFor(String method, String existing, boolean clientKeysWrites) {
    Objects.requireNonNull(method, "method cannot be null");
    if (existing != null) {
      return existing;
    }
    switch (keyMode) {
      case GIVEN:
        return key;
      case GENERATE:
        return Idempotency.newKey();
      case NONE:
        return null;
      default:
        return clientKeysWrites && !Idempotency.isIdempotent(method) ? Idempotency.newKey() : null;
    }
  }

  @Override
  public String toString() {
    return "CallOptions[key="
        + keyMode
        + (table == null ? "" : ", own table")
        + (attemptListener == null ? "" : ", attempt listener")
        + "]";
  }

  /** Builds {@link CallOptions}. Mutable and not thread-safe. */
  public static final class Builder {
    private KeyMode keyMode = KeyMode.CLIENT_DEFAULT;
    private String key;
    private DecisionTable table;
    private Consumer<AttemptRecord> attemptListener;

    Builder() {}

    /**
     * Gives the operation a new key ({@link Idempotency#newKey()}), made once before the first send
     * and carried by every retry. Use it for writes the server deduplicates by key.
     *
     * @return this builder
     */
    public Builder withIdempotencyKey() {
      this.keyMode = KeyMode.GENERATE;
      this.key = null;
      return this;
    }

    /**
     * Gives the operation the caller's key, e.g. one stored with the order so that a restarted job
     * sends the same key again.
     *
     * @param key 1 to 255 visible ASCII characters
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if the key is empty, too long or has other characters
     */
    public Builder withIdempotencyKey(String key) {
      this.key = Idempotency.requireValidKey(key);
      this.keyMode = KeyMode.GIVEN;
      return this;
    }

    /**
     * Sends this request without a key even when the client adds keys to every write.
     *
     * @return this builder
     */
    public Builder withoutIdempotencyKey() {
      this.keyMode = KeyMode.NONE;
      this.key = null;
      return this;
    }

    /**
     * Judges this request's outcomes by its own table.
     *
     * @param table the table
     * @return this builder
     * @throws NullPointerException if {@code table} is null
     */
    public Builder withDecisionTable(DecisionTable table) {
      this.table = Objects.requireNonNull(table, "table cannot be null");
      return this;
    }

    /**
     * Tells a listener about each attempt of this call as soon as it is decided: one {@link
     * AttemptRecord} per request sent, in order, on the thread that decided it. A listener that
     * throws does not change the call's outcome. Default none.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder withAttemptListener(Consumer<AttemptRecord> listener) {
      this.attemptListener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    /**
     * Builds the options.
     *
     * @return new immutable options
     */
    public CallOptions build() {
      return new CallOptions(this);
    }
  }
}
