package dev.relent.mockserver;

/**
 * The {@code Date} header value for a wall-clock instant, formatted at most once per second: every
 * response carries one, and formatting costs more than the rest of a simple response. Thread-safe:
 * a race formats the same second twice, never a wrong value.
 */
final class DateHeader {

  private record Cached(long second, String value) {}

  private volatile Cached cached = new Cached(Long.MIN_VALUE, "");

  String value(long wallMillis) {
    long second = Math.floorDiv(wallMillis, 1000L);
    Cached c = cached;
    if (c.second != second) {
      c = new Cached(second, Template.httpDate(second));
      cached = c;
    }
    return c.value;
  }
}
