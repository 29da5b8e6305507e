package dev.relent.http;

import dev.relent.RelentException;
import dev.relent.Verdict;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One request a Relent HTTP adapter sent for a call, and what was decided about it: the same facts
 * the per-attempt log line writes, as fields. Every adapter records them the same way; a caller
 * gets them from {@link CallOptions.Builder#withAttemptListener}, from {@link
 * RelentHttpResponse#attemptRecords()} or {@link CallResult#attemptRecords()}, and from {@link
 * NotRetriedWriteException#attemptRecords()}.
 *
 * <p>Nothing here holds a secret: the endpoint went through the call's {@link Redactor}, header
 * values are sanitised and redacted, and the {@code Idempotency-Key} appears only in its short form
 * ({@link #shortKey(String)}). Immutable and thread-safe.
 *
 * @param number the attempt's number, 1 for the first
 * @param start when the attempt began, as time since the call began
 * @param duration how long the attempt took, when the adapter saw it end
 * @param method the request method
 * @param endpoint the URI, redacted
 * @param status the status code, or -1 when no response came
 * @param fault the network fault, when no response came and the failure was one
 * @param outcome the outcome as the log writes it, e.g. {@code "HTTP 503"} or {@code "read timeout
 *     (SocketTimeoutException)"}
 * @param verdict the decision, e.g. {@code retry: http-503}
 * @param rule the rule that decided, e.g. {@code http-503-unkeyed-write}
 * @param heldBack whether this was a write that may have reached the server and was therefore not
 *     sent again
 * @param ambiguous whether the attempt may have reached the server without its outcome saying
 *     whether the request took effect: a reset, a connection closed before an answer, a read
 *     timeout, a truncated answer, or an answer that a proxy may have given after passing the
 *     request on (408, 429, 500, 502, 503, 504: the rows the decision table retries only for
 *     idempotent or keyed requests). A write with a key that the executor gives up on after such an
 *     attempt is unresolved ({@link UnresolvedWriteException}); one without a key is held back
 * @param waitTime the wait chosen before the next attempt, when one follows
 * @param serverHint where the server's wait hint came from, e.g. {@code "Retry-After: 2"}
 * @param requestId the server's request id as {@code "Name: value"}
 * @param waitHeaders the wait headers the server sent, e.g. {@code "Retry-After: 2"}
 * @param via the layers the response passed, e.g. {@code "Cloudflare (CF-Ray)"}
 * @param replayed whether the server answered from its idempotency store ({@code
 *     Idempotent-Replayed: true})
 * @param key the short form of the call's {@code Idempotency-Key}
 * @param gaveUp why the executor gave up right after this attempt (its last), if it did: {@code
 *     RETRIES_EXHAUSTED}, {@code NOT_RETRYABLE}, {@code INTERRUPTED}…; empty after a success, an
 *     answer the table stops at, a retry, or an unchecked failure passed on as it is
 */
public record AttemptRecord(
    int number,
    Duration start,
    Optional<Duration> duration,
    String method,
    String endpoint,
    int status,
    Optional<Fault> fault,
    String outcome,
    Verdict verdict,
    String rule,
    boolean heldBack,
    boolean ambiguous,
    Optional<Duration> waitTime,
    Optional<String> serverHint,
    Optional<String> requestId,
    Optional<String> waitHeaders,
    Optional<String> via,
    boolean replayed,
    Optional<String> key,
    Optional<RelentException.Reason> gaveUp) {

  /** The header a deduplicating server sets on an answer it replays: {@value}. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** How many characters of a key its short form keeps: {@value}. */
  public static final int SHORT_KEY_LENGTH = 8;

  /**
   * Checks that every component is present.
   *
   * @throws NullPointerException if a component is null
   */
  public AttemptRecord {
    Objects.requireNonNull(start, "start cannot be null");
    Objects.requireNonNull(duration, "duration cannot be null");
    Objects.requireNonNull(method, "method cannot be null");
    Objects.requireNonNull(endpoint, "endpoint cannot be null");
    Objects.requireNonNull(fault, "fault cannot be null");
    Objects.requireNonNull(outcome, "outcome cannot be null");
    Objects.requireNonNull(verdict, "verdict cannot be null");
    Objects.requireNonNull(rule, "rule cannot be null");
    Objects.requireNonNull(waitTime, "waitTime cannot be null");
    Objects.requireNonNull(serverHint, "serverHint cannot be null");
    Objects.requireNonNull(requestId, "requestId cannot be null");
    Objects.requireNonNull(waitHeaders, "waitHeaders cannot be null");
    Objects.requireNonNull(via, "via cannot be null");
    Objects.requireNonNull(key, "key cannot be null");
    Objects.requireNonNull(gaveUp, "gaveUp cannot be null");
  }

  /**
   * Returns the short form of an {@code Idempotency-Key} that logs, records and messages show: its
   * first {@value #SHORT_KEY_LENGTH} characters and {@code "…"}, or the whole key if it is that
   * short. Enough to find the key in the caller's own records, too little to replay it.
   *
   * @param key the key, or null
   * @return the short form, or null for a null key
   */
  public static String shortKey(String key) {
    if (key == null) {
      return null;
    }
    String clean = ResponseFacts.sanitize(key);
    return clean.length() <= SHORT_KEY_LENGTH ? clean : clean.substring(0, SHORT_KEY_LENGTH) + "…";
  }
}
