package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.relent.cli.common.Json;
import dev.relent.http.Redactor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing of the batch input reader through {@link BatchInput#parse(List, String,
 * Redactor)}: any lines give requests and problems, never an exception; every non-blank line is
 * exactly one of them; a problem names the source and its line; ids are unique; and a credential on
 * a line — an {@code Authorization} value, a sensitive header, a token in the URL — is never echoed
 * in a problem, however the line is broken. A plain test run replays the committed inputs under
 * {@code src/test/resources/dev/relent/cli/batch/BatchInputFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/fuzzing.md).
 */
class BatchInputFuzzTest {
  private static final String SOURCE = "input.jsonl";
  private static final String SECRET = "Zq9Zq9Zq9";

  @FuzzTest
  void readsEveryLineAsARequestOrAProblem(FuzzedDataProvider data) {
    String id = clean(data.consumeString(20));
    String method = clean(data.consumeString(10));
    String url = clean(data.consumeString(80));
    String name = clean(data.consumeString(20));
    String tail = clean(data.consumeString(20));
    int at = data.consumeInt(0, 8);
    List<String> lines =
        new ArrayList<>(List.of(clean(data.consumeRemainingAsString()).split("\n", -1)));
    // A line holding credentials in every place a line can hold one, cut or not where the fuzzer
    // says.
    String planted =
        "{\"id\":"
            + Json.quote(id)
            + ",\"method\":"
            + Json.quote(method)
            + ",\"url\":"
            + Json.quote(url + "?access_token=" + SECRET)
            + ",\"headers\":{\"Authorization\":\"Bearer "
            + SECRET
            + "\",\"X-Api-Key\":\""
            + SECRET
            + "\","
            + Json.quote(name)
            + ":\""
            + SECRET
            + "\""
            + tail;
    lines.add(Math.min(at, lines.size()), planted);

    BatchInput.Parsed parsed = BatchInput.parse(lines, SOURCE, Redactor.ofDefaults());

    Set<Integer> seen = new HashSet<>();
    Set<String> ids = new HashSet<>();
    for (BatchInput.Request r : parsed.requests()) {
      assertThat(seen.add(r.line())).as("line %d read once", r.line()).isTrue();
      assertThat(ids.add(r.id())).as("id %s unique", r.id()).isTrue();
      assertThat(r.fingerprint()).matches("[0-9a-f]{64}");
      assertThat(r.givenKey() != null).isEqualTo(r.keyMode() == BatchInput.KeyMode.GIVEN);
      assertThat(r.request().uri().toString()).isNotNull();
    }
    for (BatchInput.Problem p : parsed.problems()) {
      assertThat(seen.add(p.line())).as("line %d read once", p.line()).isTrue();
      assertThat(p.message()).startsWith(SOURCE + ":" + p.line() + ": ").doesNotContain(SECRET);
    }
    long nonBlank = 0;
    for (int i = 0; i < lines.size(); i++) {
      String text =
          i == 0 && lines.get(i).startsWith("\uFEFF") ? lines.get(i).substring(1) : lines.get(i);
      if (!text.isBlank()) {
        nonBlank++;
        assertThat(seen).as("line %d", i + 1).contains(i + 1);
      }
    }
    assertThat(seen).hasSize((int) nonBlank);
  }

  /** The fuzzer's text without the secret's first letter, so that it cannot spell the secret. */
  private static String clean(String s) {
    return s.replace("Z", "");
  }
}
