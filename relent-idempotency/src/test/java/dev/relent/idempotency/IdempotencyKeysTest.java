package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IdempotencyKeysTest {

  static final String RULES =
      " A key is 1 to 255 printable ASCII characters, sent quoted as an sf-string"
          + " (Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\") or bare."
          + " Generate one random key (a UUID) per operation and reuse it for every retry.";

  static String key(String raw) {
    IdempotencyKeys.Parsed p = IdempotencyKeys.parse(raw, 255);
    assertThat(p.error()).as(raw).isNull();
    return p.key();
  }

  static String error(String raw) {
    IdempotencyKeys.Parsed p = IdempotencyKeys.parse(raw, 255);
    assertThat(p.key()).as(raw).isNull();
    assertThat(p.error()).endsWith(RULES);
    return p.error().substring(0, p.error().length() - RULES.length());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "'\"8e03978e-40d5-43e8-bc93-6894a57f9324\"' | 8e03978e-40d5-43e8-bc93-6894a57f9324",
        "8e03978e-40d5-43e8-bc93-6894a57f9324       | 8e03978e-40d5-43e8-bc93-6894a57f9324",
        "'  \"abc\"\t'                              | abc",
        "'\tabc  '                                  | abc",
        "'\"a b\"'                                  | a b",
        "'\"a\\\"b\"'                               | a\"b",
        "'\"a\\\\b\"'                               | a\\b",
        "'\"a,b\"'                                  | a,b",
        "'\" \"'                                    | ' '",
        "x                                          | x",
      })
  void acceptsQuotedAndBareKeys(String raw, String expected) {
    assertThat(key(raw)).isEqualTo(expected);
  }

  @Test
  void everyVisibleAsciiCharacterButQuoteBackslashAndCommaMayStandBare() {
    String punctuation = "~!#$%&'()*+-./:;<=>?@[]^_`{|}";

    assertThat(key(punctuation)).isEqualTo(punctuation);
  }

  @Test
  void lengthIsCountedAfterUnquotingAndUnescaping() {
    assertThat(key("a".repeat(255))).hasSize(255);
    assertThat(key("\"" + "a".repeat(255) + "\"")).hasSize(255);
    assertThat(key("\"" + "\\\"".repeat(255) + "\"")).isEqualTo("\"".repeat(255));
    assertThat(error("a".repeat(256)))
        .isEqualTo("The Idempotency-Key is 256 characters long, more than the 255 allowed.");
    assertThat(error("\"" + "a".repeat(256) + "\""))
        .isEqualTo("The Idempotency-Key is 256 characters long, more than the 255 allowed.");
  }

  @Test
  void aSmallerMaximumApplies() {
    assertThat(IdempotencyKeys.parse("0123456789", 10).key()).isEqualTo("0123456789");
    assertThat(IdempotencyKeys.parse("0123456789a", 10).error())
        .startsWith("The Idempotency-Key is 11 characters long, more than the 10 allowed.")
        .contains("A key is 1 to 10 printable ASCII characters");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "''           | The Idempotency-Key header is empty.",
        "'   '        | The Idempotency-Key header is empty.",
        "'\"\"'       | The Idempotency-Key is an empty string.",
        "caf\u00e9    | The Idempotency-Key has a character outside printable ASCII at index 3.",
        "'\"caf\u00e9\"' | The Idempotency-Key has a character outside printable ASCII at index 4.",
        "'\"a\u0001\"' | The Idempotency-Key has a character outside printable ASCII at index 2.",
        "a\u007fb     | The Idempotency-Key has a character outside printable ASCII at index 1.",
        "'a b'        | The unquoted Idempotency-Key has a space, quote, backslash or comma at"
            + " index 1; send such a key quoted, as an sf-string.",
        "'a,b'        | The unquoted Idempotency-Key has a space, quote, backslash or comma at"
            + " index 1; send such a key quoted, as an sf-string.",
        "'ab\"'       | The unquoted Idempotency-Key has a space, quote, backslash or comma at"
            + " index 2; send such a key quoted, as an sf-string.",
        "'a\\b'       | The unquoted Idempotency-Key has a space, quote, backslash or comma at"
            + " index 1; send such a key quoted, as an sf-string.",
        "'\"abc'      | The quoted Idempotency-Key has no closing quote.",
        "'\"abc\\\"'  | The quoted Idempotency-Key has no closing quote.",
        "'\"a\\nb\"'  | The quoted Idempotency-Key has a backslash at index 2 that escapes neither"
            + " \\\" nor \\\\.",
        "'\"abc\\'    | The quoted Idempotency-Key has a backslash at index 4 that escapes neither"
            + " \\\" nor \\\\.",
        "'\"a\", \"b\"' | The quoted Idempotency-Key has characters after its closing quote, at"
            + " index 3; send exactly one Idempotency-Key header.",
        "'\"a\"b'     | The quoted Idempotency-Key has characters after its closing quote, at"
            + " index 3; send exactly one Idempotency-Key header.",
      })
  void rejectsMalformedKeysSayingWhy(String raw, String why) {
    assertThat(error(raw)).isEqualTo(why);
  }

  @Test
  void theHandlerAnswersAnInvalidKeyWith400AndTheReason() {
    AtomicInteger executions = new AtomicInteger();
    IdempotencyHandler handler = IdempotencyHandler.ofDefaults();

    IdempotencyResponse r =
        handler.handle(
            IdempotencyHandlerTest.request("k".repeat(256)),
            x -> {
              executions.incrementAndGet();
              return IdempotencyResponse.builder(200).build();
            });

    IdempotencyHandlerTest.assertProblem(
        r,
        400,
        IdempotencyHandlerTest.problem(
            "idempotency-key-invalid",
            "Idempotency-Key is invalid",
            400,
            "The Idempotency-Key is 256 characters long, more than the 255 allowed. A key is 1 to"
                + " 255 printable ASCII characters, sent quoted as an sf-string (Idempotency-Key:"
                + " \\\"8e03978e-40d5-43e8-bc93-6894a57f9324\\\") or bare. Generate one random key"
                + " (a UUID) per operation and reuse it for every retry."));
    assertThat(executions).hasValue(0);
  }

  @Test
  void theHandlerAcceptsA255CharacterKeyAndRejectsEmptyAndNonAsciiKeys() {
    IdempotencyHandler handler = IdempotencyHandler.ofDefaults();

    assertThat(handle(handler, "k".repeat(255))).isEqualTo(200);
    assertThat(handle(handler, "k".repeat(256))).isEqualTo(400);
    assertThat(handle(handler, "")).isEqualTo(400);
    assertThat(handle(handler, "\"\"")).isEqualTo(400);
    assertThat(handle(handler, "\u00fcber")).isEqualTo(400);
    assertThat(handle(handler, "\"\u00fcber\"")).isEqualTo(400);
    assertThat(handle(handler, "\u65e5\u672c")).isEqualTo(400);
  }

  @Test
  void theHandlersMaximumKeyLengthApplies() {
    IdempotencyHandler handler = IdempotencyHandler.builder().withMaxKeyLength(8).build();

    assertThat(handle(handler, "12345678")).isEqualTo(200);
    assertThat(handle(handler, "123456789")).isEqualTo(400);
  }

  private static int handle(IdempotencyHandler handler, String key) {
    return handler
        .handle(IdempotencyHandlerTest.request(key), r -> IdempotencyResponse.builder(200).build())
        .status();
  }

  @Test
  void everyPrintableKeyRoundTripsThroughItsQuotedForm() {
    SplittableRandom random = new SplittableRandom(20240611L);
    for (int i = 0; i < 5_000; i++) {
      int length = 1 + random.nextInt(255);
      StringBuilder k = new StringBuilder(length);
      for (int j = 0; j < length; j++) {
        k.append((char) (0x20 + random.nextInt(0x7F - 0x20)));
      }
      String original = k.toString();
      String quoted = "\"" + original.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";

      assertThat(key(quoted)).isEqualTo(original);
      boolean bareable =
          original.chars().noneMatch(c -> c == ' ' || c == '"' || c == '\\' || c == ',');
      if (bareable) {
        assertThat(key(original)).isEqualTo(original);
      }
    }
  }

  @Test
  void arbitraryInputNeverThrowsAndEitherParsesOrSaysWhy() {
    SplittableRandom random = new SplittableRandom(7L);
    char[] alphabet = {'"', '\\', ' ', '\t', ',', 'a', 'Z', '0', '\u00e9', '\u0000', '\u007f', '~'};
    for (int i = 0; i < 20_000; i++) {
      int length = random.nextInt(12);
      StringBuilder s = new StringBuilder();
      for (int j = 0; j < length; j++) {
        s.append(alphabet[random.nextInt(alphabet.length)]);
      }
      IdempotencyKeys.Parsed p = IdempotencyKeys.parse(s.toString(), 255);

      assertThat(p.key() == null).as(s.toString()).isNotEqualTo(p.error() == null);
      if (p.key() != null) {
        assertThat(p.key()).isNotEmpty();
        assertThat(p.key().chars().allMatch(c -> c >= 0x20 && c <= 0x7E)).isTrue();
        assertThat(p.key().getBytes(StandardCharsets.US_ASCII)).hasSize(p.key().length());
      }
    }
  }
}
