package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.common.JsonTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A results line is written without the JSON writer ({@link BatchRecorder.Item#resultsLine()}); it
 * must be the same text the JSON writer makes of {@link BatchRecorder.Item#json()}, which the
 * journal keeps and a resume copies back into the results.
 */
class BatchResultsLineTest {
  private static final String ALPHABET =
      "abcXYZ019 -_/:?&=.#%~\"\\\n\r\t\b\f\u0000\u001f\u007f\u0080\u00e9\u2028\u20ac\ud83d\ude00";

  private static String text(Random random, boolean nullable) {
    if (nullable && random.nextInt(4) == 0) {
      return null;
    }
    int n = random.nextInt(3) == 0 ? 0 : random.nextInt(12);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      // mostly plain text, as the URLs and ids of a real queue are
      char c =
          random.nextInt(5) == 0
              ? ALPHABET.charAt(random.nextInt(ALPHABET.length()))
              : ALPHABET.charAt(random.nextInt(16));
      b.append(c);
    }
    return b.toString();
  }

  private static long nanos(Random random) {
    switch (random.nextInt(6)) {
      case 0:
        return 0;
      case 1:
        return random.nextInt(1000);
      case 2:
        // on a rounding edge: x.xxx5 ms
        return random.nextInt(100_000) * 1000L + 500;
      case 3:
        return random.nextInt(100_000) * 1000L + 499;
      case 4:
        return Math.abs(random.nextLong()) % 3_600_000_000_000L;
      default:
        return random.nextInt(60) * 1_000_000_000L;
    }
  }

  private static BatchRecorder.Item item(Random random) {
    List<Long> waits = new ArrayList<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      waits.add(nanos(random));
    }
    return new BatchRecorder.Item(
        text(random, false),
        random.nextInt(1_000_000) + 1,
        random.nextBoolean() ? "GET" : "POST",
        text(random, false),
        random.nextBoolean() ? "success" : "not-sent",
        random.nextBoolean(),
        random.nextInt(3) == 0 ? -1 : 100 + random.nextInt(500),
        random.nextInt(5),
        List.copyOf(waits),
        nanos(random),
        nanos(random),
        text(random, true),
        text(random, true));
  }

  @Test
  void theLineIsWhatTheJsonWriterMakesOfTheItem() {
    Random random = new Random(20261201L);
    for (int i = 0; i < 20_000; i++) {
      BatchRecorder.Item item = item(random);
      assertThat(item.resultsLine())
          .as("item %s", item)
          .isEqualTo(JsonTree.write(item.json()) + "\n");
    }
  }

  @Test
  void edgesOfTheMillisecondsAndTheStrings() {
    long[] edges = {
      0, 1, 499, 500, 1_000_000, 1_500_000, 999_999_499, 999_999_500, 120_000_000_000L
    };
    for (long n : edges) {
      BatchRecorder.Item item =
          new BatchRecorder.Item(
              "a\"b",
              1,
              "GET",
              "http://h/\u0001",
              "success",
              true,
              200,
              1,
              List.of(n),
              n,
              n,
              null,
              "line\nbreak");
      assertThat(item.resultsLine()).isEqualTo(JsonTree.write(item.json()) + "\n");
    }
  }
}
