package dev.relent.http.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.http.HeaderLookup;
import dev.relent.http.ServerHints;
import java.time.Duration;
import java.time.Instant;

/**
 * What every adapter's {@link HeaderLookup} must do with a field sent on several lines: {@code
 * first} gives the first line, {@code all} every line in order, whatever the case of the name, and
 * the hint reader sees the whole field. An adapter's test builds a response of its client with
 * {@link #FIRST_LINE} and {@link #SECOND_LINE} and passes the adapter's view of it.
 */
public final class HeaderLookupContract {
  /** The first {@code RateLimit} line, sent as {@code RateLimit}. */
  public static final String FIRST_LINE = "\"burst\";r=3;t=1";

  /** The second line, sent as {@code ratelimit}: its exhausted item decides the wait. */
  public static final String SECOND_LINE = "\"minute\";r=0;t=20";

  private HeaderLookupContract() {}

  /**
   * Fails unless the view gives both lines and the hint reader reads the field whole.
   *
   * @param headers the adapter's view of a response with the two lines and no {@code Retry-After}
   */
  public static void assertGivesEveryLine(HeaderLookup headers) {
    assertThat(headers.first("RATELIMIT")).isEqualTo(FIRST_LINE);
    assertThat(headers.all("RateLimit")).containsExactly(FIRST_LINE, SECOND_LINE);
    assertThat(headers.first("Retry-After")).isNull();
    assertThat(headers.all("Retry-After")).isEmpty();
    assertThat(
            ServerHints.ofDefaults()
                .read(200, headers, Instant.parse("2026-01-01T00:00:00Z"))
                .waitTime())
        .isEqualTo(Duration.ofSeconds(20));
  }
}
