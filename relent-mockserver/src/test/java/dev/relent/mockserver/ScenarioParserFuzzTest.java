package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the scenario parser: any text, read as JSON and as YAML, gives a
 * scenario or a {@link ScenarioException} whose every line names the source and a line number —
 * never another exception. A plain test run replays the committed inputs under {@code
 * src/test/resources/dev/relent/mockserver/ScenarioParserFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/fuzzing.md).
 */
class ScenarioParserFuzzTest {

  @FuzzTest
  void parsesOrSaysWhatIsWrong(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    check(text, "scenario.json");
    check(text, "scenario.yaml");
  }

  private static void check(String text, String source) {
    Scenario scenario;
    try {
      scenario = Scenario.parse(text, source);
    } catch (ScenarioException e) {
      assertThat(e.source()).isEqualTo(source);
      assertThat(e.line()).as("line of %s", e.getMessage()).isPositive();
      assertThat(e.problems()).isNotEmpty();
      for (String problem : e.problems()) {
        assertThat(problem).as("problem").matches("(?s)\\Q" + source + "\\E:[1-9][0-9]*: .+");
      }
      assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems()));
      return;
    }
    assertThat(scenario).as("a scenario or an exception").isNotNull();
  }
}
