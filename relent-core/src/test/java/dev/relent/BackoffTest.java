package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class BackoffTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  private static Backoff backoff(long baseNanos, long capNanos, Jitter jitter) {
    return Backoff.builder()
        .withBase(Duration.ofNanos(baseNanos))
        .withCap(Duration.ofNanos(capNanos))
        .withJitter(jitter)
        .build();
  }

  private static List<Long> windows(Backoff backoff, int retries) {
    List<Long> windows = new ArrayList<>();
    for (int retry = 1; retry <= retries; retry++) {
      windows.add(backoff.windowNanos(retry, 0));
    }
    return windows;
  }

  /** Runs retries 1..n drawing from the source and feeding each delay back as the previous one. */
  private static List<Long> delays(Backoff backoff, RandomSource random, int retries) {
    List<Long> delays = new ArrayList<>();
    long previous = 0;
    for (int retry = 1; retry <= retries; retry++) {
      previous = backoff.delayNanos(retry, previous, random.nextDouble());
      delays.add(previous);
    }
    return delays;
  }

  @Test
  void defaultsAre500MillisBase30SecondsCapFullJitter() {
    Backoff defaults = Backoff.ofDefaults();

    assertThat(defaults.base()).isEqualTo(Duration.ofMillis(500));
    assertThat(defaults.cap()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.jitter()).isEqualTo(Jitter.FULL);
    assertThat(Backoff.builder().build()).isEqualTo(defaults);
    assertThat(defaults).hasToString("Backoff[base=500 ms, cap=30 s, jitter=FULL]");
  }

  @Test
  void articleExampleBase500MillisCap30Seconds() {
    // 0.5 s, 1 s, 2 s, 4 s, 8 s for retries 1..5; then 16 s and the cap.
    assertThat(windows(Backoff.ofDefaults(), 8))
        .containsExactly(500 * MS, 1 * S, 2 * S, 4 * S, 8 * S, 16 * S, 30 * S, 30 * S);
  }

  @Test
  void articleExampleBase1SecondCap8SecondsFitsFourRetriesIn30Seconds() {
    Backoff backoff = backoff(1 * S, 8 * S, Jitter.FULL);

    assertThat(windows(backoff, 7))
        .containsExactly(1 * S, 2 * S, 4 * S, 8 * S, 8 * S, 8 * S, 8 * S);
    assertThat(backoff.windowNanos(Integer.MAX_VALUE, 0)).isEqualTo(8 * S);
    // Even waiting each window in full, four retries spend 15 s: inside a 30 s total deadline.
    long worstCaseFourRetries = windows(backoff, 4).stream().mapToLong(Long::longValue).sum();
    assertThat(worstCaseFourRetries).isEqualTo(15 * S).isLessThan(30 * S);
  }

  static Stream<Arguments> seededTables() {
    return Stream.of(
        // Expected values computed independently (SplitMix64 and exact integer windows in Python).
        Arguments.of(
            500 * MS,
            30 * S,
            42L,
            Jitter.NONE,
            List.of(
                500_000_000L,
                1_000_000_000L,
                2_000_000_000L,
                4_000_000_000L,
                8_000_000_000L,
                16_000_000_000L,
                30_000_000_000L,
                30_000_000_000L)),
        Arguments.of(
            500 * MS,
            30 * S,
            42L,
            Jitter.FULL,
            List.of(
                370_782_439L,
                159_910_392L,
                557_202_260L,
                1_376_762_866L,
                304_241_348L,
                13_891_649_224L,
                6_552_155_811L,
                24_018_956_301L)),
        Arguments.of(
            500 * MS,
            30 * S,
            42L,
            Jitter.EQUAL,
            List.of(
                435_391_219L,
                579_955_196L,
                1_278_601_130L,
                2_688_381_433L,
                4_152_120_674L,
                14_945_824_612L,
                18_276_077_905L,
                27_009_478_150L)),
        Arguments.of(
            500 * MS,
            30 * S,
            42L,
            Jitter.DECORRELATED,
            List.of(
                1_241_564_878L,
                1_015_662_185L,
                1_209_593_332L,
                1_576_897_028L,
                660_893_894L,
                1_787_305_864L,
                1_561_868_053L,
                3_851_128_113L)),
        Arguments.of(
            1 * S,
            8 * S,
            7L,
            Jitter.NONE,
            List.of(
                1_000_000_000L,
                2_000_000_000L,
                4_000_000_000L,
                8_000_000_000L,
                8_000_000_000L,
                8_000_000_000L)),
        Arguments.of(
            1 * S,
            8 * S,
            7L,
            Jitter.FULL,
            List.of(
                389_829_748L,
                33_576_589L,
                3_603_042_722L,
                4_663_442_344L,
                3_619_535_160L,
                1_995_452_178L)),
        Arguments.of(
            1 * S,
            8 * S,
            7L,
            Jitter.EQUAL,
            List.of(
                694_914_874L,
                1_016_788_294L,
                3_801_521_361L,
                6_331_721_172L,
                5_809_767_580L,
                4_997_726_089L)),
        Arguments.of(
            1 * S,
            8 * S,
            7L,
            Jitter.DECORRELATED,
            List.of(
                1_779_659_496L,
                1_072_844_048L,
                2_998_366_523L,
                5_080_512_051L,
                4_167_093_265L,
                2_746_020_655L)));
  }

  @ParameterizedTest(name = "base {0} ns, cap {1} ns, seed {2}, {3}")
  @MethodSource("seededTables")
  void seededDelaysAreExact(
      long baseNanos, long capNanos, long seed, Jitter jitter, List<Long> expected) {
    Backoff backoff = backoff(baseNanos, capNanos, jitter);

    assertThat(delays(backoff, RandomSource.seeded(seed), expected.size()))
        .containsExactlyElementsOf(expected);
  }

  static Stream<Arguments> fixedDraws() {
    // Retry 3 of base 1 s, cap 8 s: window 4 s. DECORRELATED after a 2 s delay: window 6 s.
    return Stream.of(
        Arguments.of(Jitter.NONE, 0.0, 4 * S),
        Arguments.of(Jitter.NONE, 0.5, 4 * S),
        Arguments.of(Jitter.NONE, 1.0, 4 * S),
        Arguments.of(Jitter.FULL, 0.0, 0L),
        Arguments.of(Jitter.FULL, 0.25, 1 * S),
        Arguments.of(Jitter.FULL, 0.5, 2 * S),
        Arguments.of(Jitter.FULL, Math.nextDown(1.0), 3_999_999_999L),
        Arguments.of(Jitter.FULL, 1.0, 4 * S),
        Arguments.of(Jitter.EQUAL, 0.0, 2 * S),
        Arguments.of(Jitter.EQUAL, 0.25, 2_500 * MS),
        Arguments.of(Jitter.EQUAL, 0.5, 3 * S),
        Arguments.of(Jitter.EQUAL, 1.0, 4 * S),
        Arguments.of(Jitter.DECORRELATED, 0.0, 1 * S),
        Arguments.of(Jitter.DECORRELATED, 0.5, 3_500 * MS),
        Arguments.of(Jitter.DECORRELATED, 1.0, 6 * S));
  }

  @ParameterizedTest(name = "{0} draw {1} -> {2} ns")
  @MethodSource("fixedDraws")
  void fixedDrawsMapLinearlyOntoTheEnvelope(Jitter jitter, double random, long expected) {
    Backoff backoff = backoff(1 * S, 8 * S, jitter);

    assertThat(backoff.delayNanos(3, 2 * S, random)).isEqualTo(expected);
  }

  @Test
  void envelopeBoundsPerJitter() {
    assertThat(backoff(1 * S, 8 * S, Jitter.NONE).minNanos(3, 0)).isEqualTo(4 * S);
    assertThat(backoff(1 * S, 8 * S, Jitter.FULL).minNanos(3, 0)).isZero();
    assertThat(backoff(1 * S, 8 * S, Jitter.EQUAL).minNanos(3, 0)).isEqualTo(2 * S);
    assertThat(backoff(1 * S, 8 * S, Jitter.DECORRELATED).minNanos(3, 2 * S)).isEqualTo(1 * S);
    assertThat(backoff(1 * S, 8 * S, Jitter.DECORRELATED).windowNanos(3, 2 * S)).isEqualTo(6 * S);
    // EQUAL with an odd window: the fixed half rounds down, the random half covers the rest.
    Backoff odd = backoff(3, 3, Jitter.EQUAL);
    assertThat(odd.minNanos(1, 0)).isEqualTo(1);
    assertThat(odd.delayNanos(1, 0, 1.0)).isEqualTo(3);
  }

  @Test
  void decorrelatedTriplesUpToTheCapWithTheHighestDraw() {
    Backoff backoff = backoff(100 * MS, 10 * S, Jitter.DECORRELATED);

    assertThat(delays(backoff, () -> 1.0, 7))
        .containsExactly(300 * MS, 900 * MS, 2_700 * MS, 8_100 * MS, 10 * S, 10 * S, 10 * S);
    assertThat(delays(backoff, () -> 0.0, 3)).containsExactly(100 * MS, 100 * MS, 100 * MS);
  }

  @Test
  void decorrelatedFirstRetryStartsFromTheBaseAndPreviousBelowBaseCountsAsBase() {
    Backoff backoff = backoff(100 * MS, 10 * S, Jitter.DECORRELATED);

    assertThat(backoff.windowNanos(1, 0)).isEqualTo(300 * MS);
    assertThat(backoff.windowNanos(1, Long.MAX_VALUE)).isEqualTo(300 * MS);
    assertThat(backoff.windowNanos(1, -5)).isEqualTo(300 * MS);
    assertThat(backoff.windowNanos(2, 0)).isEqualTo(300 * MS);
    assertThat(backoff.windowNanos(2, Long.MIN_VALUE)).isEqualTo(300 * MS);
    assertThat(backoff.windowNanos(2, 1 * S)).isEqualTo(3 * S);
    assertThat(backoff.windowNanos(2, Long.MAX_VALUE)).isEqualTo(10 * S);
    assertThat(backoff.windowNanos(Integer.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(10 * S);
  }

  @Test
  void jitterIsKeptAtTheCap() {
    // At the cap the delay stays uniform over the capped window: not piled up at the cap.
    Backoff full = backoff(1 * S, 8 * S, Jitter.FULL);
    assertThat(full.delayNanos(100, 0, 0.5)).isEqualTo(4 * S);
    assertThat(full.delayNanos(100, 0, 0.0)).isZero();

    Backoff decorrelated = backoff(1 * S, 8 * S, Jitter.DECORRELATED);
    assertThat(decorrelated.delayNanos(2, 7 * S, 0.0)).isEqualTo(1 * S);
    assertThat(decorrelated.delayNanos(2, 7 * S, 0.5)).isEqualTo(4_500 * MS);
    assertThat(decorrelated.delayNanos(2, 7 * S, 1.0)).isEqualTo(8 * S);
  }

  @ParameterizedTest
  @EnumSource(Jitter.class)
  void hugeRetryNumbersSaturateAtTheCapWithoutOverflow(Jitter jitter) {
    Backoff backoff = backoff(500 * MS, 30 * S, jitter);
    for (int retry : new int[] {31, 32, 33, 62, 63, 64, 65, 1_000, Integer.MAX_VALUE}) {
      assertThat(backoff.windowNanos(retry, Long.MAX_VALUE))
          .as("retry %d", retry)
          .isEqualTo(30 * S);
      assertThat(backoff.delayNanos(retry, Long.MAX_VALUE, 1.0)).isEqualTo(30 * S);
    }
  }

  @Test
  void shiftsRightUpToTheLargestRepresentableWindow() {
    Backoff oneNanoBase = backoff(1, Long.MAX_VALUE, Jitter.NONE);
    assertThat(oneNanoBase.windowNanos(63, 0)).isEqualTo(1L << 62);
    assertThat(oneNanoBase.windowNanos(64, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(oneNanoBase.windowNanos(Integer.MAX_VALUE, 0)).isEqualTo(Long.MAX_VALUE);

    Backoff threeNanoBase = backoff(3, Long.MAX_VALUE, Jitter.NONE);
    assertThat(threeNanoBase.windowNanos(62, 0)).isEqualTo(3L << 61);
    assertThat(threeNanoBase.windowNanos(63, 0)).isEqualTo(Long.MAX_VALUE);

    Backoff maximal = backoff(Long.MAX_VALUE, Long.MAX_VALUE, Jitter.FULL);
    assertThat(maximal.windowNanos(1, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(maximal.delayNanos(2, 0, Math.nextDown(1.0))).isBetween(0L, Long.MAX_VALUE);
    assertThat(maximal.delayNanos(2, 0, 1.0)).isEqualTo(Long.MAX_VALUE);

    Backoff decorrelated = backoff(Long.MAX_VALUE / 2, Long.MAX_VALUE, Jitter.DECORRELATED);
    assertThat(decorrelated.windowNanos(1, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(decorrelated.delayNanos(5, Long.MAX_VALUE, 1.0)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void drawsJustBelowOneNeverLeaveWindowsBeyondDoublePrecision() {
    // Spans around powers of two above 2^53 are where a double product could round past the span.
    for (int exponent = 53; exponent <= 62; exponent++) {
      for (long offset = -4096; offset <= 4096; offset++) {
        long span = (1L << exponent) + offset;
        Backoff backoff = backoff(1, span, Jitter.FULL);
        long delay = backoff.delayNanos(Integer.MAX_VALUE, 0, Math.nextDown(1.0));
        assertThat(delay).as("span %d", span).isBetween(span - (span >> 50), span);
      }
    }
  }

  @Test
  void capEqualToBaseGivesConstantWindows() {
    Backoff constant = backoff(2 * S, 2 * S, Jitter.NONE);

    assertThat(windows(constant, 5)).containsOnly(2 * S);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void retryBelowOneIsRejected(int retry) {
    Backoff backoff = Backoff.ofDefaults();
    String message = "retry must be >= 1: " + retry;

    assertThatThrownBy(() -> backoff.delayNanos(retry, 0, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> backoff.windowNanos(retry, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> backoff.minNanos(retry, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @ParameterizedTest
  @ValueSource(
      doubles = {
        Double.NaN,
        -0.1,
        -Double.MIN_VALUE,
        1.0000000000000002,
        2.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY
      })
  void randomOutsideZeroToOneIsRejected(double random) {
    for (Jitter jitter : Jitter.values()) {
      Backoff backoff = Backoff.builder().withJitter(jitter).build();
      assertThatThrownBy(() -> backoff.delayNanos(1, 0, random))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("random must be in [0, 1]: " + random);
    }
  }

  @Test
  void negativeZeroDrawIsTheLowerBound() {
    assertThat(Backoff.ofDefaults().delayNanos(1, 0, -0.0)).isZero();
  }

  @Test
  void builderRejectsNullsWithTheirNames() {
    Backoff.Builder builder = Backoff.builder();

    assertThatThrownBy(() -> builder.withBase(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("base cannot be null");
    assertThatThrownBy(() -> builder.withCap(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("cap cannot be null");
    assertThatThrownBy(() -> builder.withJitter(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("jitter cannot be null");
    assertThatThrownBy(() -> Backoff.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("backoff cannot be null");
  }

  @Test
  void builderRejectsNonPositiveAndHugeDurationsWithValueAndUnit() {
    Backoff.Builder builder = Backoff.builder();

    assertThatThrownBy(() -> builder.withBase(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("base must be > 0: -5 ms");
    assertThatThrownBy(() -> builder.withBase(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("base must be > 0: 0 s");
    assertThatThrownBy(() -> builder.withCap(Duration.ofNanos(-1_500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cap must be > 0: -1500 ns");
    assertThatThrownBy(() -> builder.withCap(Duration.ofNanos(-1_500_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cap must be > 0: -1500 us");
    assertThatThrownBy(() -> builder.withCap(Duration.ofDays(110_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cap must be at most 292 years (a long of nanoseconds): 9504000000 s");
    assertThatThrownBy(() -> builder.withBase(Duration.ofSeconds(Long.MIN_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("base must be > 0: -9223372036854775808 s");
    // The largest accepted value is exactly Long.MAX_VALUE nanoseconds.
    assertThat(builder.withCap(Duration.ofNanos(Long.MAX_VALUE)).build().cap())
        .isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
  }

  @Test
  void buildRejectsCapBelowBaseNamingBoth() {
    Backoff.Builder builder =
        Backoff.builder().withBase(Duration.ofSeconds(2)).withCap(Duration.ofSeconds(1));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cap must be >= base: cap 1 s, base 2 s");
  }

  @Test
  void buildCopiesSoTheBuilderCanBeReused() {
    Backoff.Builder builder = Backoff.builder().withJitter(Jitter.EQUAL);
    Backoff first = builder.build();
    Backoff second = builder.withBase(Duration.ofMillis(100)).withJitter(Jitter.NONE).build();

    assertThat(first.base()).isEqualTo(Duration.ofMillis(500));
    assertThat(first.jitter()).isEqualTo(Jitter.EQUAL);
    assertThat(second.base()).isEqualTo(Duration.ofMillis(100));
    assertThat(second.jitter()).isEqualTo(Jitter.NONE);
    assertThat(second).hasToString("Backoff[base=100 ms, cap=30 s, jitter=NONE]");
  }

  @Test
  void builderFromAnotherBackoffStartsFromItsSettings() {
    Backoff original = backoff(1 * S, 8 * S, Jitter.DECORRELATED);
    Backoff copy = Backoff.builder(original).build();
    Backoff changed = Backoff.builder(original).withCap(Duration.ofSeconds(9)).build();

    assertThat(copy).isEqualTo(original).hasSameHashCodeAs(original).isNotSameAs(original);
    assertThat(changed).isNotEqualTo(original);
    assertThat(changed.base()).isEqualTo(Duration.ofSeconds(1));
    assertThat(changed.jitter()).isEqualTo(Jitter.DECORRELATED);
  }
}
