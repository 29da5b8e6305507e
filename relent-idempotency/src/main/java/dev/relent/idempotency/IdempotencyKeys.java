package dev.relent.idempotency;

/**
 * Turns a raw {@code Idempotency-Key} header value into the key, or says what is wrong with it.
 *
 * <p>The draft makes the field an RFC 8941 sf-string ({@code "8e03978e-..."}); many clients
 * (Stripe's among them) send the key bare ({@code 8e03978e-...}). Both are accepted and name the
 * same key:
 *
 * <ul>
 *   <li>surrounding spaces and tabs are dropped (HTTP strips them anyway);
 *   <li>quoted: RFC 8941 section 4.2.5: printable ASCII (0x20..0x7E), {@code \"} and {@code \\} the
 *       only escapes, nothing after the closing quote (so two combined header lines {@code "a",
 *       "b"} are rejected);
 *   <li>bare: visible ASCII (0x21..0x7E) except {@code "}, {@code \} and {@code ,} (a comma would
 *       mean two header lines were combined), so every bare key is also its own quoted content;
 *   <li>the key (unquoted, unescaped) has 1 to {@code maxLength} characters.
 * </ul>
 */
final class IdempotencyKeys {

  /** Either the key or the reason it was rejected. */
  record Parsed(String key, String error) {}

  private IdempotencyKeys() {}

  static Parsed parse(String raw, int maxLength) {
    String value = trimOws(raw);
    if (value.isEmpty()) {
      return error("The Idempotency-Key header is empty.", maxLength);
    }
    String key;
    if (value.charAt(0) == '"') {
      StringBuilder out = new StringBuilder(value.length());
      int i = 1;
      boolean closed = false;
      while (i < value.length()) {
        char c = value.charAt(i);
        if (c == '\\') {
          char next = i + 1 < value.length() ? value.charAt(i + 1) : 0;
          if (next != '"' && next != '\\') {
            return error(
                "The quoted Idempotency-Key has a backslash at index "
                    + i
                    + " that escapes neither \\\" nor \\\\.",
                maxLength);
          }
          out.append(next);
          i += 2;
        } else if (c == '"') {
          closed = true;
          i++;
          break;
        } else if (c < 0x20 || c > 0x7E) {
          return error(
              "The Idempotency-Key has a character outside printable ASCII at index " + i + ".",
              maxLength);
        } else {
          out.append(c);
          i++;
        }
      }
      if (!closed) {
        return error("The quoted Idempotency-Key has no closing quote.", maxLength);
      }
      if (i < value.length()) {
        return error(
            "The quoted Idempotency-Key has characters after its closing quote, at index "
                + i
                + "; send exactly one Idempotency-Key header.",
            maxLength);
      }
      key = out.toString();
      if (key.isEmpty()) {
        return error("The Idempotency-Key is an empty string.", maxLength);
      }
    } else {
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c == ' ' || c == '"' || c == '\\' || c == ',') {
          return error(
              "The unquoted Idempotency-Key has a space, quote, backslash or comma at index "
                  + i
                  + "; send such a key quoted, as an sf-string.",
              maxLength);
        }
        if (c < 0x21 || c > 0x7E) {
          return error(
              "The Idempotency-Key has a character outside printable ASCII at index " + i + ".",
              maxLength);
        }
      }
      key = value;
    }
    if (key.length() > maxLength) {
      return error(
          "The Idempotency-Key is "
              + key.length()
              + " characters long, more than the "
              + maxLength
              + " allowed.",
          maxLength);
    }
    return new Parsed(key, null);
  }

  private static Parsed error(String what, int maxLength) {
    return new Parsed(
        null,
        what
            + " A key is 1 to "
            + maxLength
            + " printable ASCII characters, sent quoted as an sf-string"
            + " (Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\") or bare."
            + " Generate one random key (a UUID) per operation and reuse it for every retry.");
  }

  private static String trimOws(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && isOws(s.charAt(start))) {
      start++;
    }
    while (end > start && isOws(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(start, end);
  }

  private static boolean isOws(char c) {
    return c == ' ' || c == '\t';
  }
}
