package dev.relent.testing;

import dev.relent.mockserver.JournalEntry;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
 * server and the client the same {@link FakeTime} and they are exact. On the system clock they are
 * whatever the machine took, so every assertion that measures gaps fails on a journal recorded by a
 * {@link MockServerExtension} left on the system clock, and says how to give it a {@code FakeTime}.
 *
 * <p>Upper bounds ({@link #spacedWithin(Envelope)}) catch a client that waits too long; lower
 * bounds catch one that comes back too soon: {@link #spacedAtLeast(Duration)} for every gap, {@link
 * #honoursRetryAfter(int, Duration)} for the gaps after a throttling answer, {@link
 * #gapsLookJittered(Envelope)} for a full-jitter envelope, whose lower bound is zero.
 *
 * <p>Not thread-safe; use it from the test's thread.
 */
public final class JournalAssert extends AbstractAssert<JournalAssert, List<JournalEntry>> {
  /**
   * The fewest gaps {@link #gapsLookJittered(Envelope)} judges. With 20 gaps drawn uniformly, their
   * mean position falls outside {@code [0.25, 0.75]} in fewer than 1 run in 10 000.
   */
  public static final int MIN_JITTER_GAPS = 20;

  private static final double JITTER_MEAN_LOW = 0.25;
  private static final double JITTER_MEAN_HIGH = 0.75;

  // Whether the server stamped these entries with the system clock; kept by filtered views.
  private final boolean onSystemClock;

  JournalAssert(List<JournalEntry> journal) {
    this(journal, journal.stream().anyMatch(JournalEntry::onSystemClock));
  }

  private JournalAssert(List<JournalEntry> journal, boolean onSystemClock) {
    super(List.copyOf(journal), JournalAssert.class);
    this.onSystemClock = onSystemClock;
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
    return new JournalAssert(kept, onSystemClock).as(what);
  }

  private void requireVirtualTime() {
    isNotNull();
    if (onSystemClock) {
      failWithMessage(
          "spacing checks need virtual time, but the mock server stamped this journal with the"
              + " system clock, so its gaps are whatever the machine took. Give the extension a"
              + " FakeTime, MockServerExtension.of(scenario).withClock(time), and the client the"
              + " same FakeTime");
    }
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
   * number. With full jitter the envelope's lower bound is zero: add {@link
   * #gapsLookJittered(Envelope)} to catch a client that does not wait.
   *
   * @param envelope the allowed range per retry
   * @return this
   * @throws NullPointerException if {@code envelope} is null
   */
  public JournalAssert spacedWithin(Envelope envelope) {
    Objects.requireNonNull(envelope, "envelope cannot be null");
    requireVirtualTime();
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
   * Checks that no request came sooner than the given wait after the one before it, for example
   * when every answer carried the same {@code Retry-After}.
   *
   * @param minimum the shortest allowed gap
   * @return this
   * @throws NullPointerException if {@code minimum} is null
   */
  public JournalAssert spacedAtLeast(Duration minimum) {
    Objects.requireNonNull(minimum, "minimum cannot be null");
    requireVirtualTime();
    List<Duration> gaps = gaps();
    for (int i = 0; i < gaps.size(); i++) {
      if (gaps.get(i).compareTo(minimum) < 0) {
        failWithMessage(
            "request %d came %s after the one before, earlier than the %s asked for; gaps: %s",
            actual.get(i + 1).sequence(), gaps.get(i), minimum, gaps);
      }
    }
    return this;
  }

  /**
   * Checks that every request that followed an answer with the given status came at least the given
   * wait after it: the client honoured the {@code Retry-After} the server sent with that status.
   * The journal records requests, not the answers' headers, so the wait is stated here: what the
   * scenario sends (for a computed one, such as a rate limit's, its shortest value). Gaps run from
   * arrival to arrival, so they include the answer's own latency.
   *
   * @param status the throttling status, such as 429 or 503
   * @param retryAfter the wait the server asked for with it
   * @return this
   * @throws NullPointerException if {@code retryAfter} is null
   */
  public JournalAssert honoursRetryAfter(int status, Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "retryAfter cannot be null");
    requireVirtualTime();
    int followed = 0;
    for (int i = 0; i + 1 < actual.size(); i++) {
      JournalEntry answered = actual.get(i);
      if (answered.status() != status) {
        continue;
      }
      followed++;
      JournalEntry next = actual.get(i + 1);
      Duration gap = Duration.between(answered.arrivedAt(), next.arrivedAt());
      if (gap.compareTo(retryAfter) < 0) {
        failWithMessage(
            "request %d came %s after request %d was answered %d, sooner than its Retry-After of"
                + " %s; gaps: %s",
            next.sequence(), gap, answered.sequence(), status, retryAfter, gaps());
      }
    }
    if (followed == 0) {
      failWithMessage(
          "no answer %d was followed by another request, so nothing shows whether its Retry-After"
              + " was honoured:%n%s",
          status, list());
    }
    return this;
  }

  /**
   * Checks that the gaps are spread over their envelope as the backoff's jitter draws them, not
   * bunched at its lower bound: the lower bound a full-jitter envelope cannot give, since it starts
   * at zero. Each gap before retry {@code n} gets its position between the backoff's bounds for
   * {@code n} (0 = no wait beyond the lower bound, 1 = the whole window); their mean must lie in
   * {@code [0.25, 0.75]} over at least {@link #MIN_JITTER_GAPS} gaps. A client that retries at once
   * scores 0, one that always waits the whole window 1, a correct one about 0.5. The journal is one
   * request's attempts; for many requests use {@link #gapsLookJittered(Envelope, String)}.
   *
   * @param envelope the envelope of the client's backoff, with full or equal jitter
   * @return this
   * @throws NullPointerException if {@code envelope} is null
   * @throws IllegalArgumentException if the backoff's jitter is neither full nor equal
   */
  public JournalAssert gapsLookJittered(Envelope envelope) {
    Objects.requireNonNull(envelope, "envelope cannot be null");
    envelope.requireUniformJitter();
    requireVirtualTime();
    return judgeJitter(envelope, List.of(actual));
  }

  /**
   * Checks {@link #gapsLookJittered(Envelope)} over many requests: the journal's entries are
   * grouped by the value of a header that each logical request carries on all its attempts (such as
   * {@code X-Request-Id}), each group's gaps count from retry 1, and the mean is taken over all of
   * them.
   *
   * @param envelope the envelope of the client's backoff, with full or equal jitter
   * @param requestHeader the header naming the logical request
   * @return this
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the backoff's jitter is neither full nor equal
   */
  public JournalAssert gapsLookJittered(Envelope envelope, String requestHeader) {
    Objects.requireNonNull(envelope, "envelope cannot be null");
    Objects.requireNonNull(requestHeader, "requestHeader cannot be null");
    envelope.requireUniformJitter();
    requireVirtualTime();
    Map<String, List<JournalEntry>> requests = new LinkedHashMap<>();
    for (JournalEntry e : actual) {
      String id = e.header(requestHeader);
      if (id == null) {
        failWithMessage("request %d carried no %s header", e.sequence(), requestHeader);
      }
      requests.computeIfAbsent(id, k -> new ArrayList<>()).add(e);
    }
    return judgeJitter(envelope, requests.values());
  }

  private JournalAssert judgeJitter(Envelope envelope, Collection<List<JournalEntry>> requests) {
    List<String> positions = new ArrayList<>();
    double sum = 0;
    for (List<JournalEntry> attempts : requests) {
      List<Duration> gaps = gapsOf(attempts);
      for (int i = 0; i < gaps.size(); i++) {
        double position = envelope.position(i + 1, gaps.get(i).toNanos());
        sum += position;
        positions.add(String.format(Locale.ROOT, "%.2f", position));
      }
    }
    if (positions.size() < MIN_JITTER_GAPS) {
      failWithMessage(
          "judging jitter needs at least %d gaps, but there are %d: make more requests or let them"
              + " retry more",
          MIN_JITTER_GAPS, positions.size());
    }
    double mean = sum / positions.size();
    if (mean < JITTER_MEAN_LOW || mean > JITTER_MEAN_HIGH) {
      failWithMessage(
          "the gaps do not look jittered: their mean position in %s is %s over %d gaps, outside"
              + " [%s, %s] (0 = no wait, 1 = the whole window, about 0.5 for uniform draws);"
              + " positions: %s",
          envelope,
          String.format(Locale.ROOT, "%.3f", mean),
          positions.size(),
          JITTER_MEAN_LOW,
          JITTER_MEAN_HIGH,
          positions);
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
   * Returns the gaps between consecutive requests, in order, on the server's clock. Unlike the
   * spacing assertions it does not check that the clock was virtual.
   *
   * @return the gaps
   */
  public List<Duration> gaps() {
    isNotNull();
    return gapsOf(actual);
  }

  private static List<Duration> gapsOf(List<JournalEntry> entries) {
    List<Duration> gaps = new ArrayList<>();
    for (int i = 1; i < entries.size(); i++) {
      gaps.add(Duration.between(entries.get(i - 1).arrivedAt(), entries.get(i).arrivedAt()));
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
