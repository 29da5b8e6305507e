package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON text: the shared Jackson factory, a document written into bytes, and quoting a string the
 * way JSON writes it.
 */
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

  /** Writes one JSON document with a generator. */
  @FunctionalInterface
  interface Document {
    void write(JsonGenerator g) throws IOException;
  }

  /**
   * A JSON document as UTF-8 bytes, for the bodies the server answers with.
   *
   * @param sizeHint the buffer's first size, in bytes
   * @param document writes the document
   * @return its bytes
   */
  static byte[] bytes(int sizeHint, Document document) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      document.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Writes the field {@code name}: the string {@code value}, or null. */
  static void writeNullable(JsonGenerator g, String name, String value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeStringField(name, value);
    }
  }
}
