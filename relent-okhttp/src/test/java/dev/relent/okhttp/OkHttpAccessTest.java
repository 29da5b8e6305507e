package dev.relent.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.http.HeaderLookup;
import dev.relent.http.ServerHints;
import java.time.Duration;
import java.time.Instant;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

class OkHttpAccessTest {
  @Test
  void headersGiveTheFirstValueAndEveryLine() {
    Response response =
        new Response.Builder()
            .request(new Request.Builder().url("http://localhost/").build())
            .protocol(Protocol.HTTP_1_1)
            .code(200)
            .message("OK")
            .addHeader("RateLimit", "\"burst\";r=3;t=1")
            .addHeader("ratelimit", "\"minute\";r=0;t=20")
            .build();
    HeaderLookup headers = OkHttpAccess.INSTANCE.headers(response);
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
