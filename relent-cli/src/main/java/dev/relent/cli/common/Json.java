package dev.relent.cli.common;

/** The one piece of JSON writing the CLI needs without a library: string quoting. */
public final class Json {
  /** The characters with a short escape, and the letter each is written with after a backslash. */
  private static final String SHORT = "\"\\\n\r\t";

  private static final String LETTER = "\"\\nrt";

  private Json() {}

  /** Quotes a string as a JSON string literal, escaping what RFC 8259 requires. */
  public static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      int e = SHORT.indexOf(c);
      if (e >= 0) {
        b.append('\\').append(LETTER.charAt(e));
      } else if (c < 0x20) {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
