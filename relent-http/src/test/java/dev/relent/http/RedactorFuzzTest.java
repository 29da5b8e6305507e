package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Coverage-guided fuzzing of {@link Redactor}: a secret planted where a credential belongs — the
 * value of a sensitive query parameter, the password of a URL's user-info, a sensitive header, the
 * credential after {@code Bearer}, a {@code key=value} pair or a {@code Name: value} line in free
 * text — never survives into the output, whatever the fuzzer puts around it. A plain test run
 * replays the committed inputs under {@code
 * src/test/resources/dev/relent/http/RedactorFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (docs/fuzzing.md).
 *
 * <p>The surrounding text is the fuzzer's, with the secret's first letter removed from it, so that
 * the only copy of the secret is the planted one; each placement keeps only the characters that
 * would otherwise end the credential's syntax (a {@code /} before a user-info's {@code @} moves it
 * into the path, where nobody can recognise it).
 */
class RedactorFuzzTest {
  private static final String SECRET = "Zq9Zq9Zq9";

  /** What {@code \\s} matches in a Java pattern, and so ends a URL in free text. */
  private static final String WHITESPACE = " \t\n\u000b\f\r";

  private static final Redactor REDACTOR = Redactor.ofDefaults();
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
          "code",
          "x-amz-signature",
          "my_refresh_token",
          "userPassword",
          "%74oken",
          "api%5Fkey",
          "TOKEN",
          " secret");
  private static final List<String> HEADERS =
      List.of(
          "Authorization",
          "proxy-authorization",
          "Cookie",
          "Set-Cookie",
          "X-Api-Key",
          "x-goog-api-key",
          "Private-Token",
          "X-Session-Id",
          "X-Client-Secret",
          "MY-AUTH",
          "x-amz-security-token",
          "X-Signature");
  private static final List<String> SCHEMES =
      List.of("Bearer", "bearer", "Basic", "TOKEN", "Digest");

  @FuzzTest
  void noPlantedSecretSurvives(FuzzedDataProvider data) {
    String parameter = data.pickValue(PARAMETERS);
    String header = data.pickValue(HEADERS);
    String scheme = data.pickValue(SCHEMES);
    String before = clean(data.consumeString(200));
    String between = clean(data.consumeString(200));
    String after = clean(data.consumeRemainingAsString());

    // A query parameter, wherever the query starts.
    String query = before.indexOf('?') < 0 ? before + "?" : before + "&";
    assertNoSecret(REDACTOR.uri(query + parameter + "=" + SECRET + "&" + after), "uri query");
    assertNoSecret(REDACTOR.uri(query + parameter + "=" + SECRET), "uri query at the end");
    // The password of a user-info: nothing in the user or host may end the authority early.
    String userInfo =
        "https://" + without(between, "/?#@") + ":" + SECRET + "@" + without(after, "/?#") + "/p";
    assertNoSecret(REDACTOR.uri(userInfo), "uri user-info");
    assertNoSecret(
        REDACTOR.text(before + " " + without(userInfo, WHITESPACE) + " " + after), "text url");
    // Headers, one by one and as a map.
    assertNoSecret(REDACTOR.header(header, SECRET), "header");
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put(before, List.of(between));
    headers.put(header, List.of(after, SECRET));
    headers.put(header.toLowerCase(Locale.ROOT) + "x", List.of(between));
    assertNoSecret(REDACTOR.headers(headers).toString(), "header map");
    // Free text: a scheme credential, a name=value pair, a header line.
    assertNoSecret(
        REDACTOR.text(before + " " + scheme + " " + SECRET + " " + after), "text " + scheme);
    assertNoSecret(
        REDACTOR.text(before + " " + parameter.strip() + "=" + SECRET + after), "text pair");
    assertNoSecret(
        REDACTOR.text(before + "\n" + header + ": " + without(between, "\r\n") + SECRET + after),
        "text header");
  }

  private static void assertNoSecret(String output, String where) {
    assertThat(output).as(where).doesNotContain(SECRET);
  }

  /** The fuzzer's text without the secret's first letter, so that it cannot spell the secret. */
  private static String clean(String s) {
    return s.replace("Z", "");
  }

  private static String without(String s, String characters) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      if (characters.indexOf(s.charAt(i)) < 0) {
        out.append(s.charAt(i));
      }
    }
    return out.toString();
  }
}
