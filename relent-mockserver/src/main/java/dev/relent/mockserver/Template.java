package dev.relent.mockserver;

import java.util.ArrayList;
import java.util.List;

/**
 * A header value compiled once, rendered per response. Text outside {@code {{...}}} is literal;
 * inside, one of:
 *
 * <ul>
 *   <li>{@code {{http-date:±N}}}: IMF-fixdate N seconds from now ({@code Sun, 06 Nov 1994 08:49:37
 *       GMT});
 *   <li>{@code {{rfc850-date:±N}}}: the obsolete RFC 850 form ({@code Sunday, 06-Nov-94 08:49:37
 *       GMT});
 *   <li>{@code {{asctime-date:±N}}}: the C asctime form ({@code Sun Nov 6 08:49:37 1994});
 *   <li>{@code {{epoch-seconds:±N}}}: Unix seconds N seconds from now;
 *   <li>{@code {{seconds:N}}}: N as whole seconds ({@code {{seconds:2m}}} is {@code 120}).
 * </ul>
 *
 * <p>N is an integer with an optional sign and unit {@code s} (default), {@code m}, {@code h} or
 * {@code d}; it may be left out ({@code {{http-date}}} is now). Dates are rounded up to the next
 * whole second so that "not before" is never earlier than asked. Immutable and thread-safe.
 */
final class Template {

  static final String EXPECTED_KINDS =
      "expected {{http-date:±N}}, {{rfc850-date:±N}}, {{asctime-date:±N}}, {{epoch-seconds:±N}}"
          + " or {{seconds:N}}";

  private enum Kind {
    HTTP_DATE,
    RFC850_DATE,
    ASCTIME_DATE,
    EPOCH_SECONDS,
    SECONDS
  }

  private static final class Part {
    final Kind kind;
    final long offsetSeconds;

    Part(Kind kind, long offsetSeconds) {
      this.kind = kind;
      this.offsetSeconds = offsetSeconds;
    }
  }

  private final String source;
  // Literal strings and Parts in order; null when the value has no template.
  private final Object[] parts;

  private Template(String source, Object[] parts) {
    this.source = source;
    this.parts = parts;
  }

  /**
   * Compiles a header value.
   *
   * @throws IllegalArgumentException if a {@code {{...}}} is unclosed or unknown, saying what was
   *     expected
   */
  static Template compile(String text) {
    int open = text.indexOf("{{");
    if (open < 0) {
      return new Template(text, null);
    }
    List<Object> parts = new ArrayList<>();
    int pos = 0;
    while (open >= 0) {
      if (open > pos) {
        parts.add(text.substring(pos, open));
      }
      int close = text.indexOf("}}", open + 2);
      if (close < 0) {
        throw new IllegalArgumentException(
            "unclosed template in " + Json.quote(text) + ", expected }} after {{");
      }
      parts.add(part(text.substring(open, close + 2)));
      pos = close + 2;
      open = text.indexOf("{{", pos);
    }
    if (pos < text.length()) {
      parts.add(text.substring(pos));
    }
    return new Template(text, parts.toArray());
  }

  private static Part part(String whole) {
    String inner = whole.substring(2, whole.length() - 2).trim();
    int colon = inner.indexOf(':');
    String name = colon < 0 ? inner : inner.substring(0, colon).trim();
    String arg = colon < 0 ? "" : inner.substring(colon + 1).trim();
    Kind kind;
    switch (name) {
      case "http-date":
        kind = Kind.HTTP_DATE;
        break;
      case "rfc850-date":
        kind = Kind.RFC850_DATE;
        break;
      case "asctime-date":
        kind = Kind.ASCTIME_DATE;
        break;
      case "epoch-seconds":
        kind = Kind.EPOCH_SECONDS;
        break;
      case "seconds":
        kind = Kind.SECONDS;
        break;
      default:
        throw new IllegalArgumentException(
            "unknown template " + Json.quote(whole) + ", " + EXPECTED_KINDS);
    }
    if (arg.isEmpty() && kind == Kind.SECONDS) {
      throw new IllegalArgumentException(
          "missing N in " + Json.quote(whole) + ", expected {{seconds:N}} like {{seconds:5}}");
    }
    Long offset = arg.isEmpty() ? Long.valueOf(0) : offsetSeconds(arg);
    if (offset == null) {
      throw new IllegalArgumentException(
          "bad offset in "
              + Json.quote(whole)
              + ": expected N with an optional unit s, m, h or d, like +5s, -30s or 2m");
    }
    return new Part(kind, offset);
  }

  private static Long offsetSeconds(String arg) {
    int i = 0;
    int sign = 1;
    if (arg.charAt(0) == '+' || arg.charAt(0) == '-') {
      sign = arg.charAt(0) == '-' ? -1 : 1;
      i = 1;
    }
    int digits = i;
    long value = 0;
    while (i < arg.length() && Character.isDigit(arg.charAt(i))) {
      value = value * 10 + (arg.charAt(i) - '0');
      if (value > 100_000_000_000L) {
        return null;
      }
      i++;
    }
    if (i == digits) {
      return null;
    }
    long unit;
    switch (arg.substring(i)) {
      case "":
      case "s":
        unit = 1;
        break;
      case "m":
        unit = 60;
        break;
      case "h":
        unit = 3600;
        break;
      case "d":
        unit = 86_400;
        break;
      default:
        return null;
    }
    return sign * value * unit;
  }

  /** Whether the rendered value is the same at every instant. */
  boolean isConstant() {
    return parts == null;
  }

  /** The value as written in the scenario. */
  String source() {
    return source;
  }

  /** Renders the value for a response sent at {@code wallMillis}. */
  String render(long wallMillis) {
    if (parts == null) {
      return source;
    }
    StringBuilder out = new StringBuilder(40);
    for (Object p : parts) {
      if (p instanceof String) {
        out.append((String) p);
        continue;
      }
      Part part = (Part) p;
      if (part.kind == Kind.SECONDS) {
        out.append(part.offsetSeconds);
        continue;
      }
      // Round up: a server that says "not before T" must never name a T earlier than it meant.
      long second = Math.floorDiv(wallMillis + 999L, 1000L) + part.offsetSeconds;
      switch (part.kind) {
        case HTTP_DATE:
          out.append(HttpDates.imfFixdate(second));
          break;
        case RFC850_DATE:
          out.append(HttpDates.RFC_850.format(java.time.Instant.ofEpochSecond(second)));
          break;
        case ASCTIME_DATE:
          out.append(HttpDates.ASCTIME.format(java.time.Instant.ofEpochSecond(second)));
          break;
        default:
          out.append(second);
          break;
      }
    }
    return out.toString();
  }
}
