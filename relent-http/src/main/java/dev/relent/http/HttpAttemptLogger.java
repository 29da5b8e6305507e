package dev.relent.http;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentListener;
import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;

/**
 * Writes one line per attempt from the executor's events (see {@link HttpOutcomes#logger(Logger)}).
 *
 * <p>Design: the executor emits ATTEMPT, then exactly one of SUCCESS, RETRY or FAILURE for the same
 * attempt; the line is written on the second event, which carries the outcome, the verdict and the
 * wait chosen, so no state is kept between events. A FAILURE without a new attempt (an open
 * breaker, a deadline reached before the next attempt) is written as a give-up line of its own.
 * Everything written passes the redactor or is a sanitised header from a fixed list; bodies are
 * never read.
 */
final class HttpAttemptLogger<R> implements RelentListener<R> {
  private final HttpOutcomes<R> outcomes;
  private final Logger log;

  HttpAttemptLogger(HttpOutcomes<R> outcomes, Logger log) {
    this.outcomes = outcomes;
    this.log = log;
  }

  @Override
  public void onEvent(RelentEvent<R> event) {
    switch (event.type()) {
      case SUCCESS:
        if (event.attempt() <= 1) {
          if (log.isDebugEnabled()) {
            log.debug(line(event));
          }
        } else if (log.isInfoEnabled()) {
          log.info(line(event));
        }
        break;
      case RETRY:
        if (log.isInfoEnabled()) {
          log.info(line(event));
        }
        break;
      case FAILURE:
        if (log.isWarnEnabled()) {
          log.warn(line(event));
        }
        break;
      case PACED:
        if (log.isDebugEnabled()) {
          log.debug(
              "at="
                  + outcomes.clock().instant()
                  + " attempt="
                  + (event.attempt() + 1)
                  + " decision=paced wait="
                  + event.waitTime().map(HttpAttemptLogger::seconds).orElse("0 s"));
        }
        break;
      default:
        break;
    }
  }

  String line(RelentEvent<R> event) {
    Redactor redactor = outcomes.redactor();
    ResponseAccess<R> access = outcomes.access();
    StringBuilder s = new StringBuilder(256);
    s.append("at=").append(outcomes.clock().instant());
    s.append(" attempt=").append(event.attempt());
    R result = event.result().orElse(null);
    Throwable failure = event.failure().orElse(null);
    HeaderLookup headers = null;
    if (event.verdict().isPresent()) {
      if (failure == null && result != null) {
        headers = access.headers(result);
        s.append(" method=").append(ResponseFacts.sanitize(access.method(result)));
        s.append(" endpoint=").append(ResponseFacts.sanitize(redactor.uri(access.uri(result))));
      } else if (failure != null) {
        HttpFaultException fault = HttpOutcomes.findFault(failure);
        if (fault != null) {
          s.append(" method=").append(ResponseFacts.sanitize(fault.method()));
          s.append(" endpoint=").append(ResponseFacts.sanitize(fault.endpoint()));
        }
      }
      s.append(" outcome=\"").append(outcomes.describe(result, failure)).append('"');
    }
    if (headers != null) {
      appendQuoted(s, "request-id", ResponseFacts.requestId(headers), redactor);
      appendQuoted(s, "wait-headers", ResponseFacts.waitHeaders(headers), redactor);
      appendQuoted(s, "via", ResponseFacts.layers(headers), redactor);
    }
    RelentException gaveUp = event.exception().orElse(null);
    if (event.type() == RelentEvent.Type.FAILURE && gaveUp != null) {
      s.append(" decision=\"give up: ")
          .append(gaveUp.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      event.verdict().ifPresent(verdict -> s.append(", last ").append(verdict));
      s.append('"');
      gaveUp.serverWait().ifPresent(w -> s.append(" server-wait=").append(seconds(w)));
      gaveUp.retryAt().ifPresent(at -> s.append(" retry-at=").append(at));
    } else if (event.verdict().isPresent()) {
      s.append(" decision=\"").append(event.verdict().get()).append('"');
    }
    event.waitTime().ifPresent(w -> s.append(" wait=").append(seconds(w)));
    event.hint().ifPresent(h -> appendQuoted(s, "hint", h.source(), redactor));
    s.append(" elapsed=").append(seconds(event.elapsed()));
    return s.toString();
  }

  private static void appendQuoted(StringBuilder s, String key, String value, Redactor redactor) {
    if (value != null) {
      s.append(' ')
          .append(key)
          .append("=\"")
          .append(ResponseFacts.sanitize(redactor.text(value)).replace('"', '\''))
          .append('"');
    }
  }

  private static String seconds(Duration d) {
    return seconds(d.toNanos());
  }

  static String seconds(long nanos) {
    return Durations.format(nanos);
  }
}
