package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * How the adaptive pacer reads "{@code remaining} left until a reset in {@code t}": the starts that
 * fit before the reset, the next one at it, on fake time; and against two servers on a virtual
 * clock, a token bucket that states its reset as the mock server does (whole seconds until full)
 * and a fixed window.
 */
class AdaptivePacerQuotaTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;

  private static Pacer tenASecond() {
    return Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).build();
  }

  @Test
  void nineLeftInASecondAfterAStartAreOneStartEvery100Ms() {
    Pacer pacer = tenASecond();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    // The answer to the start at 0: 9 more before the reset 1 s later. The schedule holds the next
    // start at 100 ms; 9 starts 100 ms apart fit before the reset, the tenth goes at it.
    pacer.observeQuota(0, 9, S);
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(100));
    for (int n = 1; n <= 10; n++) {
      assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(n * 100 * MS);
    }
  }

  @Test
  void oneLeftInASecondIsOneStartBeforeTheResetAndTheNextAtIt() {
    Pacer pacer = tenASecond();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    // A fixed window with 1 left and 1 s to go: the start the schedule holds at 100 ms is that
    // one; the next waits for the reset.
    pacer.observeQuota(0, 1, S);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(100 * MS);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(S);
  }

  @Test
  void startsReservedSinceTheAttemptCountAgainstTheRemaining() {
    Pacer pacer = tenASecond();
    for (int n = 0; n < 4; n++) {
      assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(n * 100 * MS);
    }
    // The answer to the start at 0 says 4 left before 1 s: 3 of them are reserved (100, 200, 300
    // ms), one is left, and the schedule holds it at 400 ms; the next goes at the reset.
    pacer.observeQuota(0, 4, S);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(400 * MS);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(S);
  }

  @Test
  void aReadingWhoseResetComesBeforeTheNextStartLimitsNothing() {
    Pacer pacer = tenASecond();
    pacer.tryAcquire(0, NO_LIMIT);
    pacer.tryAcquire(0, NO_LIMIT);
    // Reserved at 0 and 100 ms; the next is due at 200 ms, after the reset at 150 ms.
    pacer.observeQuota(0, 5, 150 * MS);
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(100));
  }

  /**
   * 120 requests through 4 workers at a ceiling of 10/s against the mock server's token bucket of
   * 10 refilling 10 a second, whose headers say the tokens left and the whole seconds until it is
   * full ({@code r=8;t=1} when it is in fact full 200 ms later): the 12 s the limit needs, within 5
   * %, none refused, with each start reaching it up to 10 ms late. Read as "r spread up to the
   * reset", the same headers held the pacer to 111 ms and more (13.2 s).
   */
  @Test
  void aBucketThatStatesItsResetInWholeSecondsIsUsedAtItsRate() {
    for (long seed = 1; seed <= 5; seed++) {
      for (long jitter : new long[] {0, 2 * MS, 10 * MS}) {
        Outcome o = run(new Bucket(10, S), 120, seed, jitter);
        assertThat(o.refused).as("seed %d, jitter %d ms", seed, jitter / MS).isZero();
        assertThat(o.spanNanos)
            .as("seed %d, jitter %d ms", seed, jitter / MS)
            .isLessThanOrEqualTo(12_600 * MS);
      }
    }
  }

  /**
   * The same pacer against fixed windows, whose remaining count comes back only at the reset (also
   * stated in whole seconds, rounded up): never a request refused, with one second's window and
   * with ten seconds' of 50.
   */
  @Test
  void aFixedWindowIsNeverExceeded() {
    for (long seed = 1; seed <= 5; seed++) {
      for (long jitter : new long[] {0, 2 * MS, 10 * MS, 30 * MS}) {
        for (Server server : new Server[] {new Window(10, S), new Window(50, 10 * S)}) {
          Outcome o = run(server, 120, seed, jitter);
          assertThat(o.refused).as("%s, seed %d, jitter %d ms", server, seed, jitter).isZero();
        }
      }
    }
  }

  /**
   * A pacer without a ceiling starts {@code answered} requests, each answered "9 left until 5 s",
   * then {@code unanswered} more, the last of which is refused; returns the interval after it.
   */
  private static long afterARefusal(int answered, int unanswered) {
    FakeTime time = new FakeTime();
    Pacer pacer = Pacer.builder().adaptive().withTime(time).build();
    long[] starts = new long[answered + unanswered];
    for (int n = 0; n < starts.length; n++) {
      starts[n] = pacer.tryAcquire(0, NO_LIMIT);
      if (n < answered) {
        pacer.observeQuota(starts[n], 9, 5 * S);
        pacer.onAccepted(starts[n]);
      }
    }
    long refused = starts[starts.length - 1];
    // The executor reports the refusal's own quota first, then the throttle.
    pacer.observeQuota(refused, 9, 5 * S);
    pacer.onThrottled(refused, refused + 50 * MS);
    time.advance(Duration.ofNanos(refused + 50 * MS));
    return pacer.interval().toNanos();
  }

  @Test
  void aRefusalWithinTheStatedQuotaLeavesAQuarterOfItToTheOtherCaller() {
    // The answer before it allowed 9 more before its reset and this pacer made one start since:
    // someone else spent the account. 10 in 5 s is 2/s; three quarters of it, 1.5/s, is left.
    assertThat(afterARefusal(10, 1)).isEqualTo((long) (500 * MS / 0.75));
    // 12 starts since that answer, against 9 allowed: this pacer spent it; no headroom, the
    // quota's 555 ms (9 in 5 s, the next at the reset) and the controller govern.
    assertThat(afterARefusal(10, 12)).isEqualTo(555_555_556L);
  }

  // ---------------------------------------------------------------- a server on a virtual clock

  record Outcome(long spanNanos, long refused) {}

  /** A server's answer: the remaining count and the reset in whole seconds, or -1 if refused. */
  interface Server {
    long[] admit(long now);
  }

  /**
   * The mock server's token bucket (relent-mockserver {@code RateLimit}): {@code limit} tokens per
   * {@code window}, as many held; the reset is the time until it is full, in whole seconds up.
   */
  static final class Bucket implements Server {
    private final long token;
    private final long full;
    private long credit;
    private long updated;

    Bucket(int limit, long window) {
      this.token = window / limit;
      this.full = limit * token;
      this.credit = full;
    }

    @Override
    public long[] admit(long now) {
      credit = Math.min(full, credit + (now - updated));
      updated = now;
      if (credit < token) {
        return null;
      }
      credit -= token;
      return new long[] {credit / token, ceilSeconds(full - credit)};
    }
  }

  /** A fixed window of {@code limit} per {@code window}, its edges 300 ms off the clock's. */
  static final class Window implements Server {
    private final int limit;
    private final long window;
    private long current = -1;
    private int used;

    Window(int limit, long window) {
      this.limit = limit;
      this.window = window;
    }

    @Override
    public long[] admit(long now) {
      long w = (now + 300 * MS) / window;
      if (w != current) {
        current = w;
        used = 0;
      }
      if (used == limit) {
        return null;
      }
      used++;
      long end = (w + 1) * window - 300 * MS;
      return new long[] {limit - used, ceilSeconds(end - now)};
    }

    @Override
    public String toString() {
      return "window of " + limit + " per " + window / S + " s";
    }
  }

  private static long ceilSeconds(long nanos) {
    return (nanos + S - 1) / S * S;
  }

  /**
   * {@code requests} through 4 workers, each reserving its next start when its last answer came:
   * each start reaches the server after up to {@code jitter}, answers 2 to 5 ms later, and the
   * answer feeds the pacer as the executor does (a refusal pauses it for a second and is sent
   * again).
   */
  private static Outcome run(Server server, int requests, long seed, long jitter) {
    SplittableRandom rng = new SplittableRandom(seed);
    Pacer pacer = tenASecond();
    PriorityQueue<long[]> events = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    // {at, kind (0 ready, 1 arrival, 2 answer), sentAt, remaining or -1, reset}
    for (int w = 0; w < 4; w++) {
      events.add(new long[] {rng.nextLong(50 * MS), 0, 0, 0, 0});
    }
    long toSend = requests;
    long first = Long.MAX_VALUE;
    long last = 0;
    long refused = 0;
    while (!events.isEmpty()) {
      long[] e = events.poll();
      long now = e[0];
      if (e[1] == 0) {
        if (toSend > 0) {
          toSend--;
          long start = now + pacer.tryAcquire(now, NO_LIMIT);
          long arrival = start + (jitter > 0 ? rng.nextLong(jitter) : 0);
          events.add(new long[] {arrival, 1, start, 0, 0});
        }
      } else if (e[1] == 1) {
        first = Math.min(first, now);
        last = Math.max(last, now);
        long[] answer = server.admit(now);
        long at = now + 2 * MS + rng.nextLong(3 * MS);
        events.add(
            answer == null
                ? new long[] {at, 2, e[2], -1, 0}
                : new long[] {at, 2, e[2], answer[0], answer[1]});
      } else {
        if (e[3] < 0) {
          refused++;
          toSend++;
          pacer.pauseUntil(e[2] + S);
          pacer.onThrottled(e[2], now);
        } else {
          pacer.observeQuota(e[2], e[3], e[4]);
          if (e[3] == 0) {
            pacer.pauseUntil(e[2] + e[4]);
          }
          pacer.onAccepted(e[2]);
        }
        events.add(new long[] {now, 0, 0, 0, 0});
      }
    }
    return new Outcome(last - first, refused);
  }
}
