package dev.relent.sim;

import dev.relent.Backoff;
import dev.relent.RetryPolicy;
import dev.relent.RetryPolicyConfig;
import dev.relent.ServerHint;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.spi.PacerState;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * {@code relent batch}'s configuration of relent-core, replicated through relent-core's public API
 * (the simulator may not depend on relent-cli or relent-http; relent-cli's {@code
 * LimitersFidelityTest} checks each piece against the real one): the default retry policy of the
 * batch, every scope's {@link Pacer.Congestion#BRACKET} pacer under the {@code --rate} ceiling, the
 * ceiling itself, the scopes of a request, and the hint relent-http's {@code ServerHints} reads
 * from the answers of {@code bench/limiters.sh}'s limiters. Stateless.
 */
final class BatchClient {
  /** {@code relent batch}'s default deadline per request (relent-cli's RetryOptions): 60 s. */
  static final Duration DEADLINE = Duration.ofSeconds(60);

  private BatchClient() {}

  /**
   * The policy of {@code relent batch} without retry flags: relent-core's defaults (5 retries,
   * backoff base 500 ms, cap 30 s, full jitter, 10 s per attempt), the deadline 60 s, the longest
   * server wait the deadline.
   */
  static RetryPolicy policy() {
    Backoff backoff = Backoff.ofDefaults();
    return RetryPolicy.builder()
        .withMaxRetries(RetryPolicyConfig.DEFAULT_MAX_RETRIES)
        .withBackoff(
            Backoff.builder()
                .withBase(backoff.base())
                .withCap(backoff.cap())
                .withJitter(backoff.jitter())
                .build())
        .withAttemptTimeout(RetryPolicyConfig.DEFAULT_ATTEMPT_TIMEOUT)
        .withDeadline(DEADLINE)
        .build();
  }

  /**
   * A rate of {@code permitsPerMinute} as the batch gives it to a pacer (relent-cli's {@code
   * BatchRun.rated}: a whole number of permits per minute).
   */
  private static Pacer.Builder rated(Pacer.Builder b, int permitsPerMinute) {
    return b.withRate(permitsPerMinute, Duration.ofMinutes(1));
  }

  /**
   * The ceiling of the whole queue ({@code --rate}): a fixed-rate pacer, on {@code state} when the
   * run is shared; null without {@code --rate} (0).
   */
  static Pacer ceiling(int permitsPerMinute, PacerState state, TimeSource time) {
    if (permitsPerMinute <= 0) {
      return null;
    }
    Pacer.Builder b = rated(Pacer.builder(), permitsPerMinute).withTime(time);
    if (state != null) {
      b.withState(state);
    }
    return b.build();
  }

  /**
   * A scope's pacer (relent-cli's {@code BatchRun.scopePacer}): adaptive BRACKET, under the ceiling
   * when there is one, on {@code state} when the run is shared.
   */
  static Pacer scopePacer(int permitsPerMinute, PacerState state, TimeSource time) {
    Pacer.Builder b = Pacer.builder().adaptive(Pacer.Congestion.BRACKET).withTime(time);
    if (permitsPerMinute > 0) {
      rated(b, permitsPerMinute);
    }
    if (state != null) {
      b.withState(state);
    }
    return b.build();
  }

  /**
   * The registry of the requests' scopes (relent-cli's {@code BatchRun.registry}): every kind of
   * scope gets a pacer of its own, on the state {@code states} gives it (null: in memory).
   */
  static GuardRegistry registry(
      int permitsPerMinute, Function<Scope, PacerState> states, TimeSource time) {
    GuardRegistry.Builder b = GuardRegistry.builder().withTime(time);
    for (Scope.Kind kind : Scope.Kind.values()) {
      b.withPacer(kind, scope -> scopePacer(permitsPerMinute, states.apply(scope), time));
    }
    return b.build();
  }

  /**
   * The scopes relent-http's default {@code HttpScopes} gives a GET of {@code
   * http://127.0.0.1:PORT/PREFIX/N}: the account (the host and port) and the endpoint (the method,
   * the account and the path with its number made {@code {id}}).
   */
  static List<Scope> scopes(int port, String prefix) {
    String account = "127.0.0.1:" + port;
    return List.of(Scope.account(account), Scope.endpoint("GET " + account + prefix + "{id}"));
  }

  /**
   * The hint relent-http's {@code ServerHints.read} gives the answer, with the default settings
   * (quota threshold 1 h, so none of these is a quota): {@code Retry-After} only on a 429; the
   * {@code X-RateLimit-*} family on any status, its epoch reset measured against the batch's clock,
   * which reads within the answer's {@code Date} second on loopback (so a reset rounded up to the
   * second is up to a second later than the window's); remaining 0 with a reset ahead is a rate
   * limit until the reset; a bare 429 is {@code rateLimited(0)}. Every hint carries the limit's
   * quota and, with {@code X-RateLimit-Limit}, its policy without a window.
   */
  static ServerHint hint(Limiter.Answer a) {
    boolean tooMany = a.status() == 429;
    boolean headers = a.limit() >= 0;
    long resetNanos =
        headers
            ? Math.max(0L, (a.resetEpochSeconds() * 1000 - a.servedEpochMillis()) * 1_000_000L)
            : 0;
    Duration reset = Duration.ofNanos(resetNanos);
    // The tightest limit: the only one, while its reset is ahead.
    boolean tightest = headers && resetNanos > 0;
    String source =
        "X-RateLimit-Remaining: " + a.remaining() + ", X-RateLimit-Reset: " + a.resetEpochSeconds();
    if (tooMany && a.retryAfterSeconds() >= 0) {
      ServerHint h =
          ServerHint.rateLimited(
              Duration.ofSeconds(a.retryAfterSeconds()), "Retry-After: " + a.retryAfterSeconds());
      return tightest ? policy(h.withQuota(a.remaining(), reset), a) : h;
    }
    if (headers && (a.remaining() == 0 || tooMany) && (tooMany || resetNanos > 0)) {
      ServerHint h = ServerHint.rateLimited(reset, source);
      return tightest ? policy(h.withQuota(a.remaining(), reset), a) : h;
    }
    if (tooMany) {
      return ServerHint.rateLimited(Duration.ZERO, "HTTP 429");
    }
    if (tightest) {
      return policy(ServerHint.quota(a.remaining(), reset, source), a);
    }
    return null;
  }

  private static ServerHint policy(ServerHint h, Limiter.Answer a) {
    return a.limit() > 0 ? h.withPolicy(a.limit()) : h;
  }
}
