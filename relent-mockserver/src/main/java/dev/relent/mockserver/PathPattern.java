package dev.relent.mockserver;

import java.util.ArrayList;
import java.util.List;

/**
 * A route's path, compiled once: literal segments, {@code *} or {@code {name}} for exactly one
 * segment, and a trailing {@code **} for any rest (including none). Matching allocates nothing.
 * Immutable and thread-safe.
 */
final class PathPattern {

  private static final String EXPECTED = "expected a path starting with \"/\"";

  private final String source;
  // Null when the pattern is a literal path: then matching is String.equals.
  private final String[] segments;
  private final boolean rest;

  private PathPattern(String source, String[] segments, boolean rest) {
    this.source = source;
    this.segments = segments;
    this.rest = rest;
  }

  /**
   * Compiles a path pattern.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  static PathPattern compile(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException(EXPECTED + ", got " + JsonText.quote(path));
    }
    if (path.indexOf('?') >= 0 || path.indexOf('#') >= 0 || path.indexOf(' ') >= 0) {
      throw new IllegalArgumentException(
          "expected a path without query, fragment or space, got " + JsonText.quote(path));
    }
    if (path.indexOf('*') < 0 && path.indexOf('{') < 0) {
      return new PathPattern(path, null, false);
    }
    String[] parts = path.substring(1).split("/", -1);
    List<String> segs = new ArrayList<>();
    boolean rest = false;
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      if (p.equals("**")) {
        if (i != parts.length - 1) {
          throw new IllegalArgumentException(
              "\"**\" may only be the last segment, got " + JsonText.quote(path));
        }
        rest = true;
      } else if (p.equals("*") || (p.startsWith("{") && p.endsWith("}") && p.length() > 2)) {
        segs.add(null);
      } else if (p.indexOf('*') >= 0 || p.indexOf('{') >= 0 || p.indexOf('}') >= 0) {
        throw new IllegalArgumentException(
            "expected whole-segment wildcards (*, {name} or a last **), got "
                + JsonText.quote(path));
      } else {
        segs.add(p);
      }
    }
    return new PathPattern(path, segs.toArray(new String[0]), rest);
  }

  String source() {
    return source;
  }

  /** Whether the request path (without query) matches. */
  boolean matches(String path) {
    if (segments == null) {
      return source.equals(path);
    }
    if (path.isEmpty() || path.charAt(0) != '/') {
      return false;
    }
    int pos = 1;
    for (String seg : segments) {
      if (pos > path.length()) {
        return false;
      }
      int end = path.indexOf('/', pos);
      if (end < 0) {
        end = path.length();
      }
      if (seg == null) {
        if (end == pos) {
          return false;
        }
      } else if (end - pos != seg.length() || !path.startsWith(seg, pos)) {
        return false;
      }
      pos = end + 1;
    }
    if (rest) {
      // "/a/**" matches "/a", "/a/" and "/a/b/c".
      return true;
    }
    return pos == path.length() + 1;
  }

  @Override
  public String toString() {
    return source;
  }
}
