package dev.relent.cli.common;

import java.util.HashMap;
import java.util.Map;

/**
 * How a request ended, as {@code relent call}'s report ({@code reason}) and {@code relent batch}'s
 * results and journal ({@code outcome}) spell it, with the exit code each stands for. The slugs are
 * a contract scripts read; new ones may be added. A slug Relent does not know ({@link #of}) counts
 * as {@link #ERROR}.
 */
public enum Outcome {
  /** An answer the decision table accepts (2xx, 3xx). */
  SUCCESS("success", ExitCodes.OK),
  /** A status that is not retried (4xx, 501, ...). */
  HTTP_ERROR("http-error", ExitCodes.NOT_RETRIED),
  /** A write without key that may have reached the server and was not sent again. */
  NOT_RESENT("not-resent", ExitCodes.NOT_RETRIED),
  /** A network fault the decision table never retries (TLS handshake, unknown host). */
  FAULT_NOT_RETRIED("fault-not-retried", ExitCodes.NOT_RETRIED),
  /** A failure the policy does not retry. */
  NOT_RETRYABLE("not-retryable", ExitCodes.NOT_RETRIED),
  /** A final response whose body was cut off after part of it was written out. */
  BODY_TRUNCATED("body-truncated", ExitCodes.NOT_RETRIED),
  /** Every retry was used. */
  RETRIES_EXHAUSTED("retries-exhausted", ExitCodes.RETRIES_EXHAUSTED),
  /** The retry budget refused a retry. */
  RETRY_BUDGET("retry-budget", ExitCodes.RETRIES_EXHAUSTED),
  /** The circuit breaker was open. */
  CIRCUIT_OPEN("circuit-open", ExitCodes.RETRIES_EXHAUSTED),
  /** The deadline left no time for another attempt. */
  DEADLINE("deadline", ExitCodes.DEADLINE),
  /** The server asked for a longer wait than allowed. */
  SERVER_WAIT_TOO_LONG("server-wait-too-long", ExitCodes.DEADLINE),
  /** The quota is used up until its reset. */
  QUOTA_EXHAUSTED("quota-exhausted", ExitCodes.DEADLINE),
  /** The pacer's wait would pass the deadline. */
  RATE_LIMIT_WAIT("rate-limit-wait", ExitCodes.DEADLINE),
  /** No concurrency slot came free in time. */
  CONCURRENCY_LIMIT("concurrency-limit", ExitCodes.DEADLINE),
  /** Never sent: the run or its scope stopped first. */
  NOT_SENT("not-sent", ExitCodes.DEADLINE),
  /** Sent, then stopped by the run's stop before it ended. */
  STOPPED("stopped", ExitCodes.DEADLINE),
  /** A keyed write that may have taken effect: send it again with the same key. */
  UNRESOLVED("unresolved", ExitCodes.UNRESOLVED),
  /** Interrupted (Ctrl-C). */
  INTERRUPTED("interrupted", ExitCodes.INTERRUPTED),
  /** An unexpected error, and any slug not listed here. */
  ERROR("error", ExitCodes.ERROR);

  private static final Map<String, Outcome> BY_SLUG = new HashMap<>();

  static {
    for (Outcome o : values()) {
      BY_SLUG.put(o.slug, o);
    }
  }

  private final String slug;
  private final int exitCode;

  Outcome(String slug, int exitCode) {
    this.slug = slug;
    this.exitCode = exitCode;
  }

  /**
   * Returns the outcome a slug names.
   *
   * @param slug a report's {@code reason} or a results line's {@code outcome}; may be null
   * @return the outcome; {@link #ERROR} for a slug not listed or null
   */
  public static Outcome of(String slug) {
    Outcome o = slug == null ? null : BY_SLUG.get(slug);
    return o == null ? ERROR : o;
  }

  /**
   * Returns the slug, as reports, results and the journal write it.
   *
   * @return e.g. {@code not-sent}
   */
  public String slug() {
    return slug;
  }

  /**
   * Returns the exit code this outcome stands for (see {@link ExitCodes}).
   *
   * @return e.g. 5 for {@code not-sent}
   */
  public int exitCode() {
    return exitCode;
  }

  @Override
  public String toString() {
    return slug;
  }
}
