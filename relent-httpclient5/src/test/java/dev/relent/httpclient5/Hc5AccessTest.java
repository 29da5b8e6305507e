package dev.relent.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.http.HeaderLookup;
import dev.relent.http.ServerHints;
import java.time.Duration;
import java.time.Instant;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.junit.jupiter.api.Test;

class Hc5AccessTest {
  @Test
  void headersGiveTheFirstValueAndEveryLine() {
    BasicHttpResponse response = new BasicHttpResponse(200);
    response.addHeader("RateLimit", "\"burst\";r=3;t=1");
    response.addHeader("ratelimit", "\"minute\";r=0;t=20");
    HeaderLookup headers = Hc5Access.INSTANCE.headers(response);
    assertThat(headers.first("RATELIMIT")).isEqualTo("\"burst\";r=3;t=1");
    assertThat(headers.all("RateLimit"))
        .containsExactly("\"burst\";r=3;t=1", "\"minute\";r=0;t=20");
    assertThat(headers.first("Retry-After")).isNull();
    assertThat(headers.all("Retry-After")).isEmpty();
    // The field split over two lines is read whole: the second line's exhausted item counts.
    assertThat(
            ServerHints.ofDefaults()
                .read(200, headers, Instant.parse("2026-01-01T00:00:00Z"))
                .waitTime())
        .isEqualTo(Duration.ofSeconds(20));
  }
}
