package dev.relent.http;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A small JSON reader for the structured-field test corpus (tests may not add a JSON library):
 * objects become {@link LinkedHashMap}, arrays {@link ArrayList}, numbers {@link Long} when written
 * without a fraction or exponent and {@link BigDecimal} otherwise, so that an Integer and a Decimal
 * stay apart as the corpus means them.
 */
final class CorpusJson {
  private final String text;
  private int pos;

  private CorpusJson(String text) {
    this.text = text;
  }

  /**
   * Reads the httpwg structured-field test corpus copied into the test resources.
   *
   * @return each file's name with its vectors, files in name order
   */
  @SuppressWarnings("unchecked")
  static Map<String, List<Map<String, Object>>> corpus() throws IOException, URISyntaxException {
    Path dir =
        Path.of(
            Objects.requireNonNull(CorpusJson.class.getResource("/structured-field-tests"))
                .toURI());
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().collect(Collectors.toList());
    }
    Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
    for (Path f : files) {
      out.put(
          f.getFileName().toString(),
          (List<Map<String, Object>>) parse(Files.readString(f, StandardCharsets.UTF_8)));
    }
    return out;
  }

  static Object parse(String text) {
    CorpusJson r = new CorpusJson(text);
    Object value = r.value();
    r.whitespace();
    if (r.pos != text.length()) {
      throw r.error("end of input");
    }
    return value;
  }

  private Object value() {
    whitespace();
    if (pos >= text.length()) {
      throw error("a value");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> out = new LinkedHashMap<>();
    pos++;
    whitespace();
    if (peek() == '}') {
      pos++;
      return out;
    }
    while (true) {
      whitespace();
      String key = string();
      whitespace();
      expect(':');
      out.put(key, value());
      whitespace();
      if (peek() == '}') {
        pos++;
        return out;
      }
      expect(',');
    }
  }

  private List<Object> array() {
    List<Object> out = new ArrayList<>();
    pos++;
    whitespace();
    if (peek() == ']') {
      pos++;
      return out;
    }
    while (true) {
      out.add(value());
      whitespace();
      if (peek() == ']') {
        pos++;
        return out;
      }
      expect(',');
    }
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = text.charAt(pos++);
      switch (e) {
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'n':
          out.append('\n');
          break;
        case 'r':
          out.append('\r');
          break;
        case 't':
          out.append('\t');
          break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          pos += 4;
          break;
        default:
          out.append(e);
      }
    }
  }

  private Object number() {
    int start = pos;
    boolean fraction = false;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
      fraction |= "eE.".indexOf(text.charAt(pos)) >= 0;
      pos++;
    }
    if (start == pos) {
      throw error("a value");
    }
    String n = text.substring(start, pos);
    return fraction ? new BigDecimal(n) : (Object) Long.parseLong(n);
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error(word);
    }
    pos += word.length();
    return value;
  }

  private void whitespace() {
    while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("'" + c + "'");
    }
    pos++;
  }

  private IllegalStateException error(String expected) {
    return new IllegalStateException("corpus JSON: expected " + expected + " at " + pos);
  }
}
