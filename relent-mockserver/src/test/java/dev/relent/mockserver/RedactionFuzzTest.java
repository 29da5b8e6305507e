package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/**
 * Coverage-guided fuzzing of the journal's redaction: a secret planted as the value of a
 * credential-like query parameter of a request target, or anywhere in its fragment, never reaches
 * the journal, whatever the fuzzer puts around it; a header named with a credential word anywhere
 * in its name is redacted. A plain test run replays the committed inputs under {@code
 * src/test/resources/dev/relent/mockserver/RedactionFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (docs/fuzzing.md).
 *
 * <p>The fuzzer's text loses the secret's first letter, so the planted copy is the only one, and
 * {@code #} before the parameter is removed where the oracle is about the query (after a {@code #}
 * everything is fragment, redacted as a whole).
 */
class RedactionFuzzTest {
  private static final String SECRET = "Zq9Zq9Zq9";
  private static final List<String> PARAMETERS =
      List.of(
          "token",
          "access_token",
          "api_key",
          "apikey",
          "key",
          "sig",
          "password",
          "client_secret",
          "auth",
          "sessionid",
          "X-Amz-Credential",
          "%74oken",
          "api%5Fkey",
          "TOKEN");
  private static final List<String> HEADER_WORDS =
      List.of("auth", "Auth", "KEY", "token", "Secret", "cookie", "session", "credential");

  @FuzzTest
  void noPlantedSecretReachesTheJournal(FuzzedDataProvider data) {
    String parameter = data.pickValue(PARAMETERS);
    String headerWord = data.pickValue(HEADER_WORDS);
    String before = data.consumeString(200).replace("Z", "").replace("#", "");
    String after = data.consumeRemainingAsString().replace("Z", "");
    String query = before.indexOf('?') < 0 ? before + "?" : before + "&";

    assertThat(Redaction.redactUri(query + parameter + "=" + SECRET + "&" + after))
        .doesNotContain(SECRET);
    assertThat(Redaction.redactUri(query + parameter + "=" + SECRET)).doesNotContain(SECRET);
    assertThat(Redaction.redactUri(before + "#" + after + SECRET + after)).doesNotContain(SECRET);
    String header = before + headerWord + after;
    assertThat(Redaction.isSecretHeader(header))
        .isEqualTo(
            !header.equalsIgnoreCase("idempotency-key")
                && !header.equalsIgnoreCase("x-idempotency-key"));
    // Redacting twice changes nothing more; the text before the query is kept as it came, and a
    // fragment, if it comes first, is replaced as a whole.
    String whole = before + after;
    String once = Redaction.redactUri(whole);
    assertThat(Redaction.redactUri(once)).isEqualTo(once);
    int question = whole.indexOf('?');
    int hash = whole.indexOf('#');
    if (hash >= 0 && (question < 0 || hash < question)) {
      assertThat(once).isEqualTo(whole.substring(0, hash) + "#" + JournalEntry.REDACTED);
    } else if (question >= 0) {
      assertThat(once).startsWith(whole.substring(0, question + 1));
    } else {
      assertThat(once).isEqualTo(whole);
    }
  }
}
