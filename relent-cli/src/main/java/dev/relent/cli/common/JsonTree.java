package dev.relent.cli.common;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One JSON value per line, read into plain Java values and written back compactly: objects are
 * {@code LinkedHashMap<String, Object>} (key order kept), arrays {@code List<Object>}, strings,
 * {@code Boolean}, {@code null}, and numbers as {@code Long} or {@code BigDecimal} (never through
 * {@code double}, so a body's {@code 0.10} is sent as {@code 0.10}). Used for the batch input, the
 * journal and the results; jackson-core only.
 */
public final class JsonTree {
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .build();

  private JsonTree() {}

  /** A line that is not one JSON value; the message says where and what. */
  public static final class NotJson extends Exception {
    private static final long serialVersionUID = 1L;

    NotJson(String message) {
      super(message);
    }
  }

  /**
   * Parses one JSON value that must fill the whole text.
   *
   * @throws NotJson with the parser's reason (duplicate keys included), without echoing the text
   */
  public static Object parse(String text) throws NotJson {
    try (JsonParser p = JSON.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new NotJson("empty");
      }
      Object value = read(p);
      if (p.nextToken() != null) {
        throw new NotJson("more than one JSON value on the line");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new NotJson("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new NotJson("invalid JSON: " + e.getMessage());
    } catch (NumberFormatException e) {
      // Jackson refuses a number it cannot hold (an exponent of too many digits) this way; its
      // message repeats the number, which stays out of ours like the rest of the line.
      throw new NotJson(
          "invalid JSON: a number too large to read (its exponent has too many digits)");
    }
  }

  private static Object read(JsonParser p) throws IOException, NotJson {
    switch (p.currentToken()) {
      case START_OBJECT:
        Map<String, Object> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          map.put(name, read(p));
        }
        return map;
      case START_ARRAY:
        List<Object> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          list.add(read(p));
        }
        return list;
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
            ? new BigDecimal(p.getBigIntegerValue())
            : (Object) p.getLongValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDecimalValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new NotJson("unexpected " + p.currentToken());
    }
  }

  /** Writes a value compactly, on one line. */
  public static String write(Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      write(g, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void write(JsonGenerator g, Object value) throws IOException {
    if (value == null) {
      g.writeNull();
    } else if (value instanceof Map) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (value instanceof List) {
      g.writeStartArray();
      for (Object o : (List<?>) value) {
        write(g, o);
      }
      g.writeEndArray();
    } else if (value instanceof String) {
      g.writeString((String) value);
    } else if (value instanceof Boolean) {
      g.writeBoolean((Boolean) value);
    } else if (value instanceof Long || value instanceof Integer) {
      g.writeNumber(((Number) value).longValue());
    } else if (value instanceof BigDecimal) {
      g.writeNumber((BigDecimal) value);
    } else if (value instanceof Double) {
      g.writeNumber((Double) value);
    } else {
      throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
    }
  }

  /** The JSON type of a parsed value, for messages: object, array, string, number, ... */
  public static String typeOf(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Map) {
      return "an object";
    }
    if (value instanceof List) {
      return "an array";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Boolean) {
      return value.toString();
    }
    return "a number";
  }
}
