package dev.relent.http;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One rate limit as a response states it, read by {@link ServerHints#rateLimits(HeaderLookup,
 * java.time.Instant)}: how many quota units the policy allows per window, how many are left, and
 * when the current window ends. Every part the server did not send is empty.
 *
 * <p>Where the parts come from:
 *
 * <table>
 *   <caption>Sources of each part</caption>
 *   <tr><th>part</th><th>{@code RateLimit} + {@code RateLimit-Policy} (current draft)</th>
 *       <th>older forms</th></tr>
 *   <tr><td>{@link #policy}</td><td>the item's string, e.g. {@code "default"}</td><td>empty</td></tr>
 *   <tr><td>{@link #limit}</td><td>the named policy's {@code q}</td>
 *       <td>{@code limit=}, {@code RateLimit-Limit}, {@code X-RateLimit-Limit}, or the older
 *       policy's integer</td></tr>
 *   <tr><td>{@link #remaining}</td><td>{@code r}</td>
 *       <td>{@code remaining=}, {@code RateLimit-Remaining}, {@code X-RateLimit-Remaining}</td></tr>
 *   <tr><td>{@link #reset}</td><td>{@code t}</td>
 *       <td>{@code reset=}, {@code RateLimit-Reset}, {@code X-RateLimit-Reset} (delta seconds, or
 *       an epoch measured against the response's {@code Date})</td></tr>
 *   <tr><td>{@link #window}</td><td>the named policy's {@code w}</td>
 *       <td>the older policy's {@code w}</td></tr>
 *   <tr><td>{@link #partitionKey}</td><td>{@code pk} of the item, else of its policy</td>
 *       <td>empty</td></tr>
 *   <tr><td>{@link #unit}</td><td>the policy's {@code qu}; default {@code "requests"}</td>
 *       <td>{@code "requests"}</td></tr>
 * </table>
 *
 * <p>Values are what the server sent, not corrected: a server may say more remain than its limit
 * allows, or a window of a year. A reader that paces by them should bound the rate they imply by
 * its own ceiling (the draft's §8.5: clients set thresholds they consider reasonable). Immutable
 * and thread-safe.
 *
 * @param policy the policy's name; empty for the older forms, which name none
 * @param limit the quota per window, in {@link #unit}s
 * @param remaining the quota units left in the current window
 * @param reset the time until the current window ends (the draft's effective window {@code t});
 *     zero when the server's reset time has already passed
 * @param window the policy's window
 * @param partitionKey the partition key, in padded base64 (the draft's {@code pk}, a byte
 *     sequence): limits with different keys are counted apart by the server
 * @param unit what the quota counts: {@code requests} (the default), {@code content-bytes}, {@code
 *     concurrent-requests} or another registered unit
 * @param source the headers it was read from, as in a {@link dev.relent.ServerHint#source()}:
 *     control characters replaced and each value cut to {@value ResponseFacts#MAX_VALUE_LENGTH}
 *     characters, safe to log
 */
public record RateLimitStatus(
    Optional<String> policy,
    OptionalLong limit,
    OptionalLong remaining,
    Optional<Duration> reset,
    Optional<Duration> window,
    Optional<String> partitionKey,
    String unit,
    String source) {

  /** The quota unit when the server names none: {@value}. */
  public static final String REQUESTS = "requests";

  /**
   * Checks the parts.
   *
   * @throws NullPointerException if a part is null
   * @throws IllegalArgumentException if a count or a duration is negative
   */
  public RateLimitStatus {
    Objects.requireNonNull(policy, "policy cannot be null");
    Objects.requireNonNull(limit, "limit cannot be null");
    Objects.requireNonNull(remaining, "remaining cannot be null");
    Objects.requireNonNull(reset, "reset cannot be null");
    Objects.requireNonNull(window, "window cannot be null");
    Objects.requireNonNull(partitionKey, "partitionKey cannot be null");
    Objects.requireNonNull(unit, "unit cannot be null");
    Objects.requireNonNull(source, "source cannot be null");
    if (limit.isPresent() && limit.getAsLong() < 0) {
      throw new IllegalArgumentException("limit must be >= 0: " + limit.getAsLong());
    }
    if (remaining.isPresent() && remaining.getAsLong() < 0) {
      throw new IllegalArgumentException("remaining must be >= 0: " + remaining.getAsLong());
    }
    if (reset.isPresent() && reset.get().isNegative()) {
      throw new IllegalArgumentException("reset must be >= 0: " + reset.get().toMillis() + " ms");
    }
    if (window.isPresent() && window.get().isNegative()) {
      throw new IllegalArgumentException("window must be >= 0: " + window.get().toMillis() + " ms");
    }
  }

  /**
   * Returns whether nothing is left in the current window.
   *
   * @return true when {@link #remaining} is present and zero
   */
  public boolean exhausted() {
    return remaining.isPresent() && remaining.getAsLong() == 0;
  }
}
