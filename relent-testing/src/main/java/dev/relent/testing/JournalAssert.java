package dev.relent.testing;

import dev.relent.mockserver.JournalEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on what a mock server saw, written like the requirement they check:
 *
 * <pre>{@code
 * assertThat(server.journal()).onPath("/flaky")
 *     .hasAttempts(3)
 *     .spacedWithin(Envelope.of(backoff))
 *     .carriedNoSecret("sk_live_123");
 * }</pre>
 *
 * <p>Gaps are measured between consecutive arrivals in the journal, on the server's clock: give the
 * server and the client the same {@link FakeTime} and they are exact. Not thread-safe; use it from
 * the test's thread.
 */
public final class JournalAssert extends AbstractAssert<JournalAssert, List<JournalEntry>> {

  JournalAssert(List<JournalEntry> journal) {
    super(List.copyOf(journal), JournalAssert.class);
  }

  /**
   * Keeps only the requests whose path (the target without its query) equals the given one.
   *
   * @param path a path such as {@code /payments}
   * @return an assertion on those requests
   */
  public JournalAssert onPath(String path) {
    Objects.requireNonNull(path, "path cannot be null");
    return filtered(e -> pathOf(e.target()).equals(path), "path " + path);
  }

  /**
   * Keeps only the requests answered by the named route or resource.
   *
   * @param endpoint the endpoint's name in the scenario
   * @return an assertion on those requests
   */
  public JournalAssert onEndpoint(String endpoint) {
    Objects.requireNonNull(endpoint, "endpoint cannot be null");
    return filtered(e -> endpoint.equals(e.endpoint()), "endpoint " + endpoint);
  }

  /**
   * Keeps only the requests that carried a header with the given value, e.g. the attempts of one
   * logical request by its {@code X-Request-Id}.
   *
   * @param name the header name, compared ignoring case
   * @param value the exact value
   * @return an assertion on those requests
   */
  public JournalAssert withHeader(String name, String value) {
    Objects.requireNonNull(name, "name cannot be null");
    Objects.requireNonNull(value, "value cannot be null");
    return filtered(e -> value.equals(e.header(name)), name + ": " + value);
  }

  /**
   * Counts the requests answered with the given status.
   *
   * @param status an HTTP status
   * @return the count
   */
  public long countWithStatus(int status) {
    isNotNull();
    return actual.stream().filter(e -> e.status() == status).count();
  }

  private JournalAssert filtered(Predicate<JournalEntry> keep, String what) {
    isNotNull();
    List<JournalEntry> kept = new ArrayList<>();
    for (JournalEntry e : actual) {
      if (keep.test(e)) {
        kept.add(e);
      }
    }
    return new JournalAssert(kept).as(what);
  }

  /**
   * Checks the number of requests: first attempts and retries as the server saw them.
   *
   * @param expected the count
   * @return this
   */
  public JournalAssert hasAttempts(int expected) {
    isNotNull();
    if (actual.size() != expected) {
      failWithMessage(
          "expected %d attempts but the server saw %d:%n%s", expected, actual.size(), list());
    }
    return this;
  }

  /**
   * Checks that each gap between consecutive requests lies inside the backoff envelope of its retry
   * number.
   *
   * @param envelope the allowed range per retry
   * @return this
   */
  public JournalAssert spacedWithin(Envelope envelope) {
    isNotNull();
    List<Duration> gaps = gaps();
    for (int i = 0; i < gaps.size(); i++) {
      long gap = gaps.get(i).toNanos();
      int retry = i + 1;
      if (gap < envelope.minNanos(retry) || gap > envelope.maxNanos(retry)) {
        failWithMessage(
            "gap before retry %d was %s, outside [%s, %s] of %s; all gaps: %s",
            retry,
            gaps.get(i),
            Duration.ofNanos(envelope.minNanos(retry)),
            Duration.ofNanos(envelope.maxNanos(retry)),
            envelope,
            gaps);
      }
    }
    return this;
  }

  /**
   * Checks that no request came sooner than the given wait after the one before it: the server's
   * {@code Retry-After} was honoured.
   *
   * @param minimum the shortest allowed gap
   * @return this
   */
  public JournalAssert spacedAtLeast(Duration minimum) {
    isNotNull();
    List<Duration> gaps = gaps();
    for (int i = 0; i < gaps.size(); i++) {
      if (gaps.get(i).compareTo(minimum) < 0) {
        failWithMessage(
            "request %d came %s after the one before, earlier than the %s asked for; gaps: %s",
            i + 2, gaps.get(i), minimum, gaps);
      }
    }
    return this;
  }

  /**
   * Checks that every request carried the same value of a header (an {@code Idempotency-Key} reused
   * by every retry) and that it was present.
   *
   * @param header the header name
   * @return this
   */
  public JournalAssert allCarrySameHeader(String header) {
    isNotNull();
    String first = null;
    for (JournalEntry e : actual) {
      String value = e.header(header);
      if (value == null) {
        failWithMessage("request %d carried no %s header", e.sequence(), header);
      }
      if (first == null) {
        first = value;
      } else if (!first.equals(value)) {
        failWithMessage(
            "request %d carried %s: %s, not the %s of the first request",
            e.sequence(), header, value, first);
      }
    }
    return this;
  }

  /**
   * Checks that no request carried any of the given secrets in its target or any header value. The
   * journal redacts credentials it recognises ({@code Authorization}, {@code api_key=}...), so this
   * also fails when a credential-like query parameter was sent at all: a secret in a URL ends up in
   * every proxy's log.
   *
   * @param secrets the values that must never be sent
   * @return this
   */
  public JournalAssert carriedNoSecret(String... secrets) {
    isNotNull();
    for (JournalEntry e : actual) {
      if (e.target().contains("=" + JournalEntry.REDACTED)) {
        failWithMessage(
            "request %d sent a credential in its URL (%s %s)",
            e.sequence(), e.method(), e.target());
      }
      for (String secret : secrets) {
        if (e.target().contains(secret)) {
          failWithMessage("request %d carried a secret in its URL", e.sequence());
        }
        for (Map.Entry<String, List<String>> h : e.headers().entrySet()) {
          for (String value : h.getValue()) {
            if (value.contains(secret)) {
              failWithMessage("request %d carried a secret in header %s", e.sequence(), h.getKey());
            }
          }
        }
      }
    }
    return this;
  }

  /**
   * Returns the gaps between consecutive requests, in order.
   *
   * @return the gaps
   */
  public List<Duration> gaps() {
    List<Duration> gaps = new ArrayList<>();
    for (int i = 1; i < actual.size(); i++) {
      gaps.add(Duration.between(actual.get(i - 1).arrivedAt(), actual.get(i).arrivedAt()));
    }
    return gaps;
  }

  private String list() {
    StringBuilder b = new StringBuilder();
    for (JournalEntry e : actual) {
      b.append("  #")
          .append(e.sequence())
          .append(' ')
          .append(e.arrivedAt())
          .append(' ')
          .append(e.method())
          .append(' ')
          .append(e.target())
          .append(" -> ")
          .append(e.fault() != null ? e.fault() : String.valueOf(e.status()))
          .append(System.lineSeparator());
    }
    return b.toString();
  }

  private static String pathOf(String target) {
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }
}
