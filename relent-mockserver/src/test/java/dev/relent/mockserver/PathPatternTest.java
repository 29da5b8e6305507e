package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathPatternTest {

  @ParameterizedTest
  @CsvSource({
    "/flaky, /flaky, true",
    "/flaky, /flaky/, false",
    "/flaky, /flak, false",
    "/items/*, /items/42, true",
    "/items/*, /items/, false",
    "/items/*, /items, false",
    "/items/*, /items/42/x, false",
    "/items/{id}/tags, /items/7/tags, true",
    "/items/{id}/tags, /items/7/tag, false",
    "/api/**, /api, true",
    "/api/**, /api/, true",
    "/api/**, /api/v1/x, true",
    "/api/**, /apis, false",
    "/**, /anything/at/all, true",
  })
  void matches(String pattern, String path, boolean expected) {
    assertThat(PathPattern.compile(pattern).matches(path)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "flaky|expected a path starting with \"/\", got \"flaky\"",
        "/a?b=1|expected a path without query, fragment or space, got \"/a?b=1\"",
        "/**/a|\"**\" may only be the last segment, got \"/**/a\"",
        "/a*b|expected whole-segment wildcards (*, {name} or a last **), got \"/a*b\"",
      })
  void rejects(String pattern, String message) {
    assertThatThrownBy(() -> PathPattern.compile(pattern)).hasMessage(message);
  }

  @ParameterizedTest
  @CsvSource({
    "250ms, 250",
    "2s, 2000",
    "1m, 60000",
    "1h, 3600000",
    "1d, 86400000",
    "0, 0",
    "PT2S, 2000",
    "PT0.5S, 500",
    "pt1m, 60000",
    // Parsed, so that the setter can say what it must be: "delay must be >= 0: -2000 ms".
    "PT-2S, -2000",
  })
  void parsesDurations(String text, long millis) {
    assertThat(ScenarioParser.parseDuration(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"15, ", "2 s, ", "-5s, ", "PT2, ", "1w, ", "s, ", "'', "})
  void rejectsNonDurations(String text, String none) {
    assertThat(ScenarioParser.parseDuration(text)).isNull();
  }
}
