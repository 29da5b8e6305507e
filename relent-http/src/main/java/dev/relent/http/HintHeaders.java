package dev.relent.http;

import java.util.ArrayList;
import java.util.List;

/**
 * One response's headers as the hint readers see them: each header they use is read from the {@link
 * HeaderLookup} at most once, on first use, and kept, however many readers ask. A plain header is
 * its first value, sanitised as {@link ResponseFacts} writes it down; a structured field is all its
 * lines joined with {@code ", "}, unsanitised, and absent when longer than {@link
 * ServerHints#MAX_FIELD_LENGTH} (ignored, never cut). A lookup that throws counts as no header.
 *
 * <p>Not thread-safe: made and read on the thread that reads one response.
 */
final class HintHeaders {
  /** The headers the hint readers use. */
  enum Name {
    DATE("Date", false),
    AGE("Age", false),
    RETRY_AFTER("Retry-After", false),
    SCOPE("X-RateLimit-Scope", false),
    RATE_LIMIT("RateLimit", true),
    RATE_LIMIT_POLICY("RateLimit-Policy", true),
    RATE_LIMIT_LIMIT("RateLimit-Limit", true),
    RATE_LIMIT_REMAINING("RateLimit-Remaining", true),
    RATE_LIMIT_RESET("RateLimit-Reset", true),
    X_RATELIMIT_LIMIT("X-RateLimit-Limit", false),
    X_RATELIMIT_REMAINING("X-RateLimit-Remaining", false),
    X_RATELIMIT_RESET("X-RateLimit-Reset", false),
    X_RATE_LIMIT_LIMIT("X-Rate-Limit-Limit", false),
    X_RATE_LIMIT_REMAINING("X-Rate-Limit-Remaining", false),
    X_RATE_LIMIT_RESET("X-Rate-Limit-Reset", false);

    final String header;
    final boolean structured;

    Name(String header, boolean structured) {
      this.header = header;
      this.structured = structured;
    }
  }

  private static final int COUNT = Name.values().length;

  private final HeaderLookup lookup;
  private final String[] values = new String[COUNT];
  private final boolean[] read = new boolean[COUNT];

  HintHeaders(HeaderLookup lookup) {
    this.lookup = lookup;
  }

  /**
   * The header's value: a plain header's first value sanitised, a structured field's lines joined;
   * null when absent.
   */
  String get(Name name) {
    int i = name.ordinal();
    if (!read[i]) {
      values[i] = name.structured ? field(name.header) : ResponseFacts.first(lookup, name.header);
      read[i] = true;
    }
    return values[i];
  }

  private String field(String header) {
    if (lookup == null) {
      return null;
    }
    List<String> lines;
    try {
      lines = lookup.all(header);
    } catch (RuntimeException e) {
      return null; // a broken header view counts as no header
    }
    if (lines == null || lines.isEmpty()) {
      return null;
    }
    List<String> kept = new ArrayList<>(lines.size());
    long length = 0;
    for (String line : lines) {
      if (line == null) {
        continue;
      }
      length += line.length() + (kept.isEmpty() ? 0 : 2);
      if (length > ServerHints.MAX_FIELD_LENGTH) {
        return null;
      }
      kept.add(line);
    }
    return kept.isEmpty() ? null : StructuredFields.join(kept);
  }

  /** The value without the optional whitespace (SP, HTAB) around it; "" for null. */
  static String trim(String value) {
    if (value == null) {
      return "";
    }
    int start = 0;
    int end = value.length();
    while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
      end--;
    }
    return value.substring(start, end);
  }
}
