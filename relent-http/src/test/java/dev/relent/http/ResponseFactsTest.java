package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResponseFactsTest {
  private static HeaderLookup headers(String... nameValue) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      map.put(nameValue[i], List.of(nameValue[i + 1]));
    }
    return HeaderLookup.of(map);
  }

  @Test
  void requestIdPrefersTheApplicationsOwn() {
    assertThat(ResponseFacts.requestId(headers("CF-Ray", "8a1b-FRA", "x-request-id", "r-1")))
        .isEqualTo("X-Request-Id: r-1");
    assertThat(ResponseFacts.requestId(headers("x-amzn-requestid", "a-1")))
        .isEqualTo("X-Amzn-RequestId: a-1");
    assertThat(ResponseFacts.requestId(headers("X-Correlation-Id", "c-1")))
        .isEqualTo("X-Correlation-Id: c-1");
    assertThat(ResponseFacts.requestId(headers("CF-Ray", "8a1b-FRA")))
        .isEqualTo("CF-Ray: 8a1b-FRA");
    assertThat(ResponseFacts.requestId(headers("Server", "nginx"))).isNull();
    assertThat(ResponseFacts.requestId(null)).isNull();
  }

  @Test
  void layers() {
    assertThat(ResponseFacts.layers(headers("CF-Ray", "8a1b-FRA", "Server", "cloudflare")))
        .isEqualTo("Cloudflare (CF-Ray)");
    assertThat(ResponseFacts.layers(headers("cf-cache-status", "DYNAMIC")))
        .isEqualTo("Cloudflare (cf-cache-status)");
    assertThat(
            ResponseFacts.layers(
                headers("X-Amz-Cf-Id", "abc", "Via", "1.1 abc.cloudfront.net (CloudFront)")))
        .isEqualTo("CloudFront (X-Amz-Cf-Id)");
    assertThat(
            ResponseFacts.layers(headers("X-Served-By", "cache-fra-1234-FRA", "X-Cache", "MISS")))
        .isEqualTo("Fastly (X-Served-By)");
    assertThat(ResponseFacts.layers(headers("Via", "1.1 varnish", "Server", "nginx")))
        .isEqualTo("proxy (Via: 1.1 varnish)");
    assertThat(ResponseFacts.layers(headers("X-Cache", "HIT"))).isEqualTo("cache (X-Cache: HIT)");
    assertThat(ResponseFacts.layers(headers("Server", "nginx/1.25")))
        .isEqualTo("server (Server: nginx/1.25)");
    assertThat(ResponseFacts.layers(headers("Server", "AkamaiGHost"))).isEqualTo("Akamai");
    assertThat(ResponseFacts.layers(headers("Server", "Google Frontend")))
        .isEqualTo("Google front end (Server)");
    assertThat(ResponseFacts.layers(headers())).isNull();
  }

  @Test
  void waitHeaders() {
    assertThat(
            ResponseFacts.waitHeaders(
                headers("Retry-After", "5", "X-RateLimit-Remaining", "0", "Server", "x")))
        .isEqualTo("Retry-After: 5, X-RateLimit-Remaining: 0");
    assertThat(ResponseFacts.waitHeaders(headers("Server", "x"))).isNull();
  }

  @Test
  void hostileValuesCannotForgeLogLines() {
    assertThat(ResponseFacts.requestId(headers("X-Request-Id", "r-1\r\nINFO forged")))
        .isEqualTo("X-Request-Id: r-1??INFO forged");
    assertThat(ResponseFacts.requestId(headers("X-Request-Id", "x".repeat(500))))
        .isEqualTo("X-Request-Id: " + "x".repeat(200) + "...");
  }
}
