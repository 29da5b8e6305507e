package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonFactory;

/** The shared JSON factory and the quoting used in messages. */
final class Json {

  static final JsonFactory FACTORY = new JsonFactory();

  private Json() {}

  /** Quotes {@code s} as a JSON string, for messages that show a value as it was written. */
  static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }
}
