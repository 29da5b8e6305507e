package dev.relent.cli;

import dev.relent.RelentException;
import dev.relent.http.Decision;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.RelentHttpResponse;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * How one {@code relent call} ended: its exit code, a reason for scripts, a one-line message for
 * people (already free of secrets: endpoints are redacted, outcomes are described, bodies never
 * quoted), the last status, and the body of the last response received, if any.
 *
 * @param exitCode one of {@link ExitCodes}
 * @param reason {@code success}, {@code http-error}, {@code not-resent}, {@code fault-not-retried},
 *     a {@link RelentException.Reason} in lower case with hyphens ({@code retries-exhausted}), or
 *     {@code error}
 * @param message what happened, for stderr and the report
 * @param status the last HTTP status, or -1 when no response came
 * @param attempts attempts made, or -1 when unknown
 * @param body the last response's body as received, or null
 * @param serverWait how long the server asked to wait, when that ended the call, else null
 * @param retryAt when a retry may be made, when known, else null
 */
record CallOutcome(
    int exitCode,
    String reason,
    String message,
    int status,
    int attempts,
    byte[] body,
    Duration serverWait,
    Instant retryAt) {

  /** A response the client returned: 2xx/3xx is success, anything else was not retried. */
  static CallOutcome of(RelentHttpResponse<byte[]> response, Redactor redactor) {
    int status = response.statusCode();
    int n = response.attempts();
    String tries = n + (n == 1 ? " attempt" : " attempts");
    if (status >= 200 && status < 400) {
      return new CallOutcome(
          ExitCodes.OK,
          "success",
          "HTTP " + status + " after " + tries,
          status,
          n,
          response.body(),
          null,
          null);
    }
    Decision d = response.decision();
    String message =
        "HTTP "
            + status
            + " from "
            + response.request().method()
            + " "
            + redactor.uri(response.request().uri())
            + " after "
            + tries
            + (d == null ? ": not retried" : ": " + d.explanation() + " (rule " + d.rule() + ")");
    return new CallOutcome(
        ExitCodes.NOT_RETRIED, "http-error", message, status, n, response.body(), null, null);
  }

  /** A write without key that was held back; its message says it was not re-sent and why. */
  static CallOutcome notResent(NotRetriedWriteException e) {
    return new CallOutcome(
        ExitCodes.NOT_RETRIED,
        "not-resent",
        e.getMessage(),
        e.status(),
        e.attempts(),
        e.response().map(CallOutcome::bodyOf).orElse(null),
        null,
        null);
  }

  /** A network fault the decision table never retries (unknown host, TLS). */
  static CallOutcome faultNotRetried(HttpFaultException e) {
    return new CallOutcome(
        ExitCodes.NOT_RETRIED,
        "fault-not-retried",
        e.getMessage() + "; not retried",
        -1,
        -1,
        null,
        null,
        null);
  }

  /** The executor gave up: retries, budget or breaker (4), or time and quota (5). */
  static CallOutcome gaveUp(RelentException e) {
    int code;
    switch (e.reason()) {
      case RETRIES_EXHAUSTED:
      case RETRY_BUDGET:
      case CIRCUIT_OPEN:
        code = ExitCodes.RETRIES_EXHAUSTED;
        break;
      case DEADLINE:
      case SERVER_WAIT_TOO_LONG:
      case QUOTA_EXHAUSTED:
      case RATE_LIMIT_WAIT:
      case CONCURRENCY_LIMIT:
        code = ExitCodes.DEADLINE;
        break;
      default:
        code = ExitCodes.ERROR;
        break;
    }
    Object last = e.lastResult().orElse(null);
    int status = last instanceof HttpResponse ? ((HttpResponse<?>) last).statusCode() : -1;
    return new CallOutcome(
        code,
        e.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'),
        e.getMessage(),
        status,
        e.attempts(),
        bodyOf(last),
        e.serverWait().orElse(null),
        e.retryAt().orElse(null));
  }

  /** Something that should not happen (a bug, an interruption). */
  static CallOutcome error(String reason, String message, byte[] body) {
    return new CallOutcome(ExitCodes.ERROR, reason, message, -1, -1, body, null, null);
  }

  private static byte[] bodyOf(Object response) {
    if (response instanceof HttpResponse && ((HttpResponse<?>) response).body() instanceof byte[]) {
      return (byte[]) ((HttpResponse<?>) response).body();
    }
    return null;
  }
}
