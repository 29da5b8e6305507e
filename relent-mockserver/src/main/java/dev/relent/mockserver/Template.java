package dev.relent.mockserver;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /**
   * What a {@code {{name:N}}} renders. The three date forms are those of RFC 9110 section 5.6.7;
   * {@link DateTimeFormatter#RFC_1123_DATE_TIME} is not used because it writes single-digit days
   * without the leading zero IMF-fixdate requires.
   */
  private enum Kind {
    /** {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    HTTP_DATE("http-date", "EEE, dd MMM yyyy HH:mm:ss 'GMT'"),
    /** {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
    RFC850_DATE("rfc850-date", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'"),
    /** {@code Sun Nov 6 08:49:37 1994}. */
    ASCTIME_DATE("asctime-date", "EEE MMM ppd HH:mm:ss yyyy"),
    EPOCH_SECONDS("epoch-seconds", null),
    SECONDS("seconds", null);

    final String templateName;
    // Null for the kinds that render a number.
    final DateTimeFormatter format;

    Kind(String templateName, String pattern) {
      this.templateName = templateName;
      this.format =
          pattern == null
              ? null
              : DateTimeFormatter.ofPattern(pattern, Locale.US).withZone(ZoneOffset.UTC);
    }
  }

  private record Part(Kind kind, long offsetSeconds) {}

  // N: an optional sign, digits and an optional unit (seconds by default).
  private static final Pattern OFFSET = Pattern.compile("([+-]?)(\\d{1,12})([smhd]?)");

  private final String source;
  // Literal strings and Parts in order; null when the value has no template.
  private final Object[] parts;

  private Template(String source, Object[] parts) {
    this.source = source;
    this.parts = parts;
  }

  /** The IMF-fixdate of {@code epochSecond}, as the {@code Date} header writes it. */
  static String httpDate(long epochSecond) {
    return Kind.HTTP_DATE.format.format(Instant.ofEpochSecond(epochSecond));
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
            "unclosed template in " + JsonText.quote(text) + ", expected }} after {{");
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
    Kind kind = null;
    for (Kind k : Kind.values()) {
      if (k.templateName.equals(name)) {
        kind = k;
      }
    }
    if (kind == null) {
      throw new IllegalArgumentException(
          "unknown template " + JsonText.quote(whole) + ", " + EXPECTED_KINDS);
    }
    if (arg.isEmpty() && kind == Kind.SECONDS) {
      throw new IllegalArgumentException(
          "missing N in " + JsonText.quote(whole) + ", expected {{seconds:N}} like {{seconds:5}}");
    }
    Long offset = arg.isEmpty() ? Long.valueOf(0) : offsetSeconds(arg);
    if (offset == null) {
      throw new IllegalArgumentException(
          "bad offset in "
              + JsonText.quote(whole)
              + ": expected N with an optional unit s, m, h or d, like +5s, -30s or 2m");
    }
    return new Part(kind, offset);
  }

  private static Long offsetSeconds(String arg) {
    Matcher m = OFFSET.matcher(arg);
    if (!m.matches()) {
      return null;
    }
    long value = Long.parseLong(m.group(2));
    if (value > 100_000_000_000L) {
      return null;
    }
    long unit =
        switch (m.group(3)) {
          case "m" -> 60;
          case "h" -> 3600;
          case "d" -> 86_400;
          default -> 1;
        };
    return (m.group(1).equals("-") ? -value : value) * unit;
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
      if (part.kind.format == null) {
        out.append(second);
      } else {
        out.append(part.kind.format.format(Instant.ofEpochSecond(second)));
      }
    }
    return out.toString();
  }
}
