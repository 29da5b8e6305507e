package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

/** JSON text: the shared Jackson factory, and quoting a string the way JSON writes it. */
final class JsonText {

  static final JsonFactory FACTORY = new JsonFactory();

  private JsonText() {}

  /**
   * Quotes {@code s} as a JSON string: for messages that show a value as it was written, and for
   * the small JSON bodies built as text.
   */
  static String quote(String s) {
    char[] escaped = JsonStringEncoder.getInstance().quoteAsString(s);
    return new StringBuilder(escaped.length + 2).append('"').append(escaped).append('"').toString();
  }
}
