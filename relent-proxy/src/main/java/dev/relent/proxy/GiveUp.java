package dev.relent.proxy;

import dev.relent.RelentException;
import dev.relent.http.Fault;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.UnresolvedWriteException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;

/**
 * What the caller is told when the attempt loop ends without an answer to return: a status (502
 * when the upstream failed or answered wrongly, 503 when the proxy will not send now, 504 when time
 * ran out or the outcome is unknown), the reason as {@code Relent-Give-Up} spells it, a sentence,
 * and when a retry may be made. A write held back after an answer is the exception: that answer is
 * passed on as it is ({@link #passThrough}), with the reason in its header.
 *
 * @param status the status to answer
 * @param reason the reason slug, e.g. {@code retries-exhausted}, {@code io-tls}
 * @param title a short title for the problem body
 * @param detail the sentence saying what happened, secrets removed
 * @param retryAfterSeconds when a retry may be made, or -1
 * @param passThrough the upstream's answer to pass on instead, or null
 */
record GiveUp(
    int status,
    String reason,
    String title,
    String detail,
    long retryAfterSeconds,
    ProxyResponse passThrough) {

  /** The reason of a write that was not sent again because it may have reached the upstream. */
  static final String WRITE_NOT_RESENT = "write-not-resent";

  static GiveUp of(Throwable failure, Redactor redactor, Instant now) {
    String detail =
        redactor.text(failure.getMessage() == null ? failure.toString() : failure.getMessage());
    if (failure instanceof NotRetriedWriteException) {
      NotRetriedWriteException e = (NotRetriedWriteException) failure;
      Object response = e.response().orElse(null);
      if (response instanceof ProxyResponse) {
        return new GiveUp(e.status(), WRITE_NOT_RESENT, "", detail, -1, (ProxyResponse) response);
      }
      boolean timeout = e.fault().orElse(null) == Fault.READ_TIMEOUT;
      return new GiveUp(
          timeout ? 504 : 502,
          WRITE_NOT_RESENT,
          "The write was not sent again: it may have reached the upstream",
          detail
              + ". Send it with an Idempotency-Key header (or configure the route to get one) to"
              + " let the proxy retry it.",
          -1,
          null);
    }
    if (failure instanceof UnresolvedWriteException) {
      UnresolvedWriteException e = (UnresolvedWriteException) failure;
      releaseLast(e);
      return new GiveUp(
          504,
          "unresolved-write",
          "The keyed write is unresolved: it may have taken effect",
          detail + ". Sending it again with the same Idempotency-Key is safe.",
          retryAfter(e, now),
          null);
    }
    if (failure instanceof RelentException) {
      RelentException e = (RelentException) failure;
      int lastStatus = lastStatus(e);
      releaseLast(e);
      return new GiveUp(
          statusOf(e, lastStatus),
          e.reason().slug(),
          titleOf(e.reason()),
          detail,
          retryAfter(e, now),
          null);
    }
    if (failure instanceof HttpFaultException) {
      Fault fault = ((HttpFaultException) failure).fault();
      return new GiveUp(
          fault == Fault.READ_TIMEOUT ? 504 : 502,
          fault.rule(),
          "The upstream could not be reached: " + fault.description(),
          detail,
          -1,
          null);
    }
    if (failure instanceof CancellationException) {
      return new GiveUp(504, "deadline", "The request's deadline passed", detail, -1, null);
    }
    return new GiveUp(502, "proxy-error", "The proxy failed to send the request", detail, -1, null);
  }

  private static int lastStatus(RelentException e) {
    Object last = e.lastResult().orElse(null);
    return last instanceof ProxyResponse ? ((ProxyResponse) last).status() : -1;
  }

  private static void releaseLast(RelentException e) {
    Object last = e.lastResult().orElse(null);
    if (last instanceof ProxyResponse) {
      ((ProxyResponse) last).release();
    }
  }

  private static int statusOf(RelentException e, int lastStatus) {
    switch (e.reason()) {
      case DEADLINE:
        return 504;
      case RETRIES_EXHAUSTED:
      case NOT_RETRYABLE:
        if (lastStatus == 429 || lastStatus == 503) {
          return 503;
        }
        if (lastStatus == 504
            || (lastStatus < 0 && Fault.classify(e.getCause()) == Fault.READ_TIMEOUT)) {
          return 504;
        }
        return 502;
      default:
        return 503;
    }
  }

  private static String titleOf(RelentException.Reason reason) {
    switch (reason) {
      case RETRIES_EXHAUSTED:
        return "Every retry allowed was made";
      case DEADLINE:
        return "The request's deadline passed";
      case SERVER_WAIT_TOO_LONG:
        return "The upstream asked for a wait longer than allowed";
      case QUOTA_EXHAUSTED:
        return "The upstream's quota is used up";
      case CIRCUIT_OPEN:
        return "The circuit breaker is open: nothing was sent";
      case RETRY_BUDGET:
        return "The retry budget is spent";
      case RATE_LIMIT_WAIT:
        return "The pacer's next start lies past the deadline";
      case CONCURRENCY_LIMIT:
        return "No concurrency slot came free before the deadline";
      case THROTTLED:
        return "Adaptive throttling refused the request: nothing was sent";
      default:
        return "The proxy gave up";
    }
  }

  private static long retryAfter(RelentException e, Instant now) {
    Instant at = e.retryAt().orElse(null);
    if (at == null) {
      return -1;
    }
    Duration d = Duration.between(now, at);
    long s = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
    return Math.max(0, s);
  }

  /** The problem body (RFC 9457), small and in one line. */
  String problemJson(int attempts) {
    StringBuilder b = new StringBuilder(160);
    b.append("{\"type\":\"urn:relent:give-up:").append(reason).append("\",\"title\":");
    quote(b, title);
    b.append(",\"status\":").append(status).append(",\"detail\":");
    quote(b, detail);
    b.append(",\"reason\":");
    quote(b, reason);
    b.append(",\"attempts\":").append(attempts);
    if (retryAfterSeconds >= 0) {
      b.append(",\"retryAfterSeconds\":").append(retryAfterSeconds);
    }
    return b.append("}\n").toString();
  }

  static void quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    b.append('"');
  }
}
