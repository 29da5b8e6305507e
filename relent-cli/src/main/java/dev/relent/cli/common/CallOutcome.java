package dev.relent.cli.common;

import dev.relent.RelentException;
import dev.relent.http.Decision;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.UnresolvedWriteException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * How one request sent through the client ended, for {@code relent call} and for each request of
 * {@code relent batch}: a reason for scripts, a one-line message for people (already free of
 * secrets: endpoints are redacted, outcomes are described, bodies never quoted), the last status,
 * and the body of the last response received, if any. The exit code follows from the reason ({@link
 * ExitCodes#of}).
 *
 * @param reason {@code success}, {@code http-error}, {@code not-resent}, {@code fault-not-retried},
 *     {@code unresolved} (a keyed write that may have taken effect), a {@link
 *     RelentException.Reason} as a slug ({@code retries-exhausted}), {@code interrupted} or {@code
 *     error}
 * @param message what happened, for stderr, the report and the results
 * @param status the last HTTP status, or -1 when no response came
 * @param attempts attempts made, or -1 when unknown
 * @param body the last response's body: as it arrives for a final response, from memory (at most 64
 *     KiB) for one that was retried or held back; or null
 * @param serverWait how long the server asked to wait, when that ended the call, else null
 * @param retryAt when a retry may be made, when known, else null
 */
public record CallOutcome(
    String reason,
    String message,
    int status,
    int attempts,
    InputStream body,
    Duration serverWait,
    Instant retryAt) {

  /** One send through the client. */
  public interface Send {
    RelentHttpResponse<?> send() throws IOException, InterruptedException;
  }

  /**
   * Sends once and turns every way that can end into an outcome; never throws. An interruption is
   * the reason {@code interrupted}, with the thread's interrupt status set again.
   *
   * @param send the send
   * @param redactor scrubs the messages of unexpected errors and the endpoint
   * @param withEndpoint whether an HTTP error's message names the method and the endpoint
   */
  public static CallOutcome of(Send send, Redactor redactor, boolean withEndpoint) {
    try {
      return of(send.send(), redactor, withEndpoint);
    } catch (NotRetriedWriteException e) {
      // A write without key that was held back; its message says it was not re-sent and why.
      return new CallOutcome(
          "not-resent",
          e.getMessage(),
          e.status(),
          e.attempts(),
          e.response().map(CallOutcome::bodyOf).orElse(null),
          null,
          null);
    } catch (HttpFaultException e) {
      // A network fault the decision table never retries (unknown host, TLS).
      return error(Outcome.FAULT_NOT_RETRIED.slug(), e.getMessage() + "; not retried");
    } catch (UnresolvedWriteException e) {
      // A keyed write that may have taken effect: not failed; the same key resolves it.
      return ended(
          Outcome.UNRESOLVED.slug(),
          e.getMessage()
              + (withEndpoint
                  ? " (to send it again: relent call --idempotency-key "
                      + e.idempotencyKey()
                      + " …)"
                  : ""),
          e);
    } catch (RelentException e) {
      return ended(e.reason().slug(), e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error(Outcome.INTERRUPTED.slug(), "interrupted; no further attempt is made");
    } catch (IOException | RuntimeException e) {
      return unexpected(e, redactor);
    } catch (OutOfMemoryError e) {
      // What failed to fit is garbage now: there is room again to say so and write the report.
      return error(Outcome.ERROR.slug(), outOfMemory(e));
    }
  }

  /** An error nobody expected, as an outcome: its type and its message, redacted. */
  public static CallOutcome unexpected(Throwable e, Redactor redactor) {
    if (e instanceof OutOfMemoryError) {
      return error(Outcome.ERROR.slug(), outOfMemory((OutOfMemoryError) e));
    }
    return error(
        "error",
        "unexpected error: "
            + e.getClass().getSimpleName()
            + (e.getMessage() == null ? "" : ": " + redactor.text(e.getMessage())));
  }

  /** The message for a heap too small: which limit, and how to raise it. */
  static String outOfMemory(OutOfMemoryError e) {
    return "out of memory ("
        + (e.getMessage() == null ? "OutOfMemoryError" : e.getMessage())
        + ", heap limit "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024)
        + " MiB); give the JVM more, e.g. RELENT_JAVA_OPTS=-Xmx1g";
  }

  /** A response the client returned: 2xx/3xx is success, anything else was not retried. */
  private static CallOutcome of(
      RelentHttpResponse<?> response, Redactor redactor, boolean withEndpoint) {
    int status = response.statusCode();
    int n = response.attempts();
    String tries = n + (n == 1 ? " attempt" : " attempts");
    if (isSuccess(status)) {
      return new CallOutcome(
          Outcome.SUCCESS.slug(),
          "HTTP " + status + " after " + tries,
          status,
          n,
          bodyOf(response),
          null,
          null);
    }
    Decision d = response.decision();
    String message =
        "HTTP "
            + status
            + (withEndpoint
                ? " from "
                    + response.request().method()
                    + " "
                    + redactor.uri(response.request().uri())
                : "")
            + " after "
            + tries
            + (d == null ? ": not retried" : ": " + d.explanation() + " (rule " + d.rule() + ")");
    return new CallOutcome("http-error", message, status, n, bodyOf(response), null, null);
  }

  /** Whether a status is an answer the CLI counts as success: 2xx or 3xx. */
  public static boolean isSuccess(int status) {
    return status >= 200 && status < 400;
  }

  /**
   * A call the executor ended with {@code e}: the last status and body it saw, its attempts, and
   * the server's wait and the time a retry may be made, when known.
   */
  private static CallOutcome ended(String reason, String message, RelentException e) {
    Object last = e.lastResult().orElse(null);
    return new CallOutcome(
        reason,
        message,
        last instanceof HttpResponse ? ((HttpResponse<?>) last).statusCode() : -1,
        e.attempts(),
        bodyOf(last),
        e.serverWait().orElse(null),
        e.retryAt().orElse(null));
  }

  private static CallOutcome error(String reason, String message) {
    return new CallOutcome(reason, message, -1, -1, null, null, null);
  }

  private static InputStream bodyOf(Object response) {
    Object body = response instanceof HttpResponse ? ((HttpResponse<?>) response).body() : null;
    if (body instanceof InputStream) {
      return (InputStream) body;
    }
    if (body instanceof byte[]) {
      return new ByteArrayInputStream((byte[]) body);
    }
    return null;
  }

  /** The same outcome with another message. */
  public CallOutcome withMessage(String message) {
    return new CallOutcome(reason, message, status, attempts, body, serverWait, retryAt);
  }

  /** The same outcome with another reason and message: a body cut off while it was written. */
  public CallOutcome withReason(String newReason, String newMessage) {
    return new CallOutcome(newReason, newMessage, status, attempts, null, serverWait, retryAt);
  }

  /** The exit code this outcome stands for. */
  public int exitCode() {
    return ExitCodes.of(reason);
  }

  public boolean success() {
    return Outcome.of(reason) == Outcome.SUCCESS;
  }
}
