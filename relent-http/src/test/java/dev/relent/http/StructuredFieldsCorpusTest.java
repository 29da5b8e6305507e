package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.http.StructuredFields.ByteSequence;
import dev.relent.http.StructuredFields.Date;
import dev.relent.http.StructuredFields.DisplayString;
import dev.relent.http.StructuredFields.InnerList;
import dev.relent.http.StructuredFields.Item;
import dev.relent.http.StructuredFields.Member;
import dev.relent.http.StructuredFields.Token;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every vector of every file of the httpwg structured-field test corpus
 * (https://github.com/httpwg/structured-field-tests, BSD licence in {@code
 * src/test/resources/structured-field-tests/LICENSE.md}): a {@code must_fail} vector must be
 * rejected, every other one must parse to its {@code expected} value; a {@code can_fail} vector (a
 * SHOULD of the RFC) may also be rejected. Several {@code raw} lines are joined as a recipient
 * joins field lines.
 */
class StructuredFieldsCorpusTest {
  private static final int FILES = 20;

  @TestFactory
  Stream<DynamicNode> everyVectorOfEveryFile() throws IOException, URISyntaxException {
    Map<String, List<Map<String, Object>>> corpus = CorpusJson.corpus();
    assertThat(corpus).as("corpus files").hasSize(FILES);
    List<DynamicNode> nodes = new ArrayList<>();
    corpus.forEach(
        (file, vectors) -> {
          List<DynamicTest> tests = new ArrayList<>();
          for (Map<String, Object> v : vectors) {
            tests.add(DynamicTest.dynamicTest(String.valueOf(v.get("name")), () -> check(v)));
          }
          nodes.add(DynamicContainer.dynamicContainer(file, tests));
        });
    return nodes.stream();
  }

  @SuppressWarnings("unchecked")
  private static void check(Map<String, Object> v) {
    String raw = StructuredFields.join((List<String>) v.get("raw"));
    String type = (String) v.get("header_type");
    if (Boolean.TRUE.equals(v.get("must_fail"))) {
      assertThatThrownBy(() -> parse(type, raw))
          .as("must fail: %s", raw)
          .isInstanceOf(StructuredFields.MalformedFieldException.class);
      return;
    }
    Object parsed;
    try {
      parsed = parse(type, raw);
    } catch (StructuredFields.MalformedFieldException e) {
      if (Boolean.TRUE.equals(v.get("can_fail"))) {
        return; // a SHOULD the parser may decline
      }
      throw new AssertionError("rejected a valid value " + raw + ": " + e.getMessage(), e);
    }
    assertThat(normalise(parsed)).as("parsed %s", raw).isEqualTo(normalise(v.get("expected")));
  }

  private static Object parse(String type, String raw) {
    switch (type) {
      case "list":
        return json(StructuredFields.parseList(raw));
      case "dictionary":
        return json(StructuredFields.parseDictionary(raw));
      case "item":
        return json(StructuredFields.parseItem(raw));
      default:
        throw new IllegalStateException("unknown header_type " + type);
    }
  }

  /** The parser's result in the corpus's JSON shape. */
  private static Object json(Object value) {
    if (value instanceof List) {
      List<Object> out = new ArrayList<>();
      for (Object member : (List<?>) value) {
        out.add(json(member));
      }
      return out;
    }
    if (value instanceof Map) {
      List<Object> out = new ArrayList<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        out.add(List.of(e.getKey(), json(e.getValue())));
      }
      return out;
    }
    if (value instanceof Item) {
      Item item = (Item) value;
      return List.of(bare(item.value()), parameters(item));
    }
    InnerList inner = (InnerList) value;
    return List.of(json(inner.items()), parameters(inner));
  }

  private static List<Object> parameters(Member member) {
    List<Object> out = new ArrayList<>();
    member.parameters().forEach((k, v) -> out.add(List.of(k, bare(v))));
    return out;
  }

  private static Object bare(Object value) {
    if (value instanceof Token) {
      return typed("token", ((Token) value).value());
    }
    if (value instanceof ByteSequence) {
      return typed("binary", base32(((ByteSequence) value).bytes()));
    }
    if (value instanceof Date) {
      return typed("date", ((Date) value).epochSeconds());
    }
    if (value instanceof DisplayString) {
      return typed("displaystring", ((DisplayString) value).value());
    }
    return value;
  }

  private static Map<String, Object> typed(String type, Object value) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("__type", type);
    out.put("value", value);
    return out;
  }

  /** Decimals compared by value (1.50 equals 1.5), Integers kept apart from them. */
  private static Object normalise(Object value) {
    if (value instanceof BigDecimal) {
      return ((BigDecimal) value).stripTrailingZeros();
    }
    if (value instanceof List) {
      return ((List<?>) value)
          .stream().map(StructuredFieldsCorpusTest::normalise).collect(Collectors.toList());
    }
    if (value instanceof Map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      ((Map<?, ?>) value).forEach((k, v) -> out.put(k, normalise(v)));
      return out;
    }
    return value;
  }

  /** RFC 4648 §6 base32 with padding, the corpus's spelling of binary content. */
  private static String base32(byte[] bytes) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    StringBuilder out = new StringBuilder();
    int buffer = 0;
    int bits = 0;
    for (byte b : bytes) {
      buffer = (buffer << 8) | (b & 0xff);
      bits += 8;
      while (bits >= 5) {
        out.append(alphabet.charAt((buffer >> (bits - 5)) & 31));
        bits -= 5;
      }
    }
    if (bits > 0) {
      out.append(alphabet.charAt((buffer << (5 - bits)) & 31));
    }
    while (out.length() % 8 != 0) {
      out.append('=');
    }
    return out.toString();
  }
}
