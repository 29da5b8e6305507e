package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class CorsTest {

  private final HttpClient client = HttpClient.newHttpClient();

  private HttpResponse<String> send(
      MockServer server, String method, String path, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.uri(path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String h(HttpResponse<?> r, String name) {
    return r.headers().firstValue(name).orElse(null);
  }

  @Test
  void answersPreflightAndExposesRetryAndRateLimitHeadersByDefault() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("POST", "/payments")
            .steps(Step.status(429).withHeader("Retry-After", "5"))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      HttpResponse<String> preflight =
          send(
              server,
              "OPTIONS",
              "/payments",
              "Origin",
              "https://app.example",
              "Access-Control-Request-Method",
              "POST",
              "Access-Control-Request-Headers",
              "idempotency-key, content-type");
      assertThat(preflight.statusCode()).isEqualTo(204);
      assertThat(h(preflight, "Access-Control-Allow-Origin")).isEqualTo("*");
      assertThat(h(preflight, "Access-Control-Allow-Methods"))
          .isEqualTo("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      assertThat(h(preflight, "Access-Control-Allow-Headers"))
          .isEqualTo("idempotency-key, content-type");
      assertThat(h(preflight, "Access-Control-Max-Age")).isEqualTo("600");

      HttpResponse<String> limited =
          send(server, "POST", "/payments", "Origin", "https://app.example");
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(h(limited, "Access-Control-Allow-Origin")).isEqualTo("*");
      assertThat(h(limited, "Access-Control-Expose-Headers"))
          .isEqualTo(
              "Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining,"
                  + " X-RateLimit-Reset, Idempotent-Replayed, Location, Date");
      assertThat(h(limited, "Retry-After")).isEqualTo("5");

      HttpResponse<String> noOrigin = send(server, "POST", "/payments");
      assertThat(h(noOrigin, "Access-Control-Allow-Origin")).isNull();
      assertThat(server.journal())
          .extracting(JournalEntry::outcome)
          .containsExactly("preflight", "step", "step");
    }
  }

  @Test
  void restrictedOriginsAreEchoedOrRefused() throws Exception {
    Scenario scenario =
        Scenario.parse(
            "{\"cors\":{\"allowOrigins\":[\"https://a.example\"],\"allowHeaders\":[\"Idempotency-Key\"],"
                + "\"exposeHeaders\":[\"Retry-After\"],\"maxAge\":\"1m\",\"allowCredentials\":true},"
                + "\"routes\":[{\"path\":\"/x\",\"steps\":[{}]}]}");
    try (MockServer server = MockServer.start(scenario)) {
      HttpResponse<String> ok =
          send(
              server,
              "OPTIONS",
              "/x",
              "Origin",
              "https://a.example",
              "Access-Control-Request-Method",
              "GET");
      assertThat(ok.statusCode()).isEqualTo(204);
      assertThat(h(ok, "Access-Control-Allow-Origin")).isEqualTo("https://a.example");
      assertThat(h(ok, "Access-Control-Allow-Headers")).isEqualTo("Idempotency-Key");
      assertThat(h(ok, "Access-Control-Allow-Credentials")).isEqualTo("true");
      assertThat(h(ok, "Access-Control-Max-Age")).isEqualTo("60");
      HttpResponse<String> refused =
          send(
              server,
              "OPTIONS",
              "/x",
              "Origin",
              "https://b.example",
              "Access-Control-Request-Method",
              "GET");
      assertThat(refused.statusCode()).isEqualTo(403);
      HttpResponse<String> get = send(server, "GET", "/x", "Origin", "https://a.example");
      assertThat(h(get, "Access-Control-Expose-Headers")).isEqualTo("Retry-After");
      assertThat(h(get, "Vary")).isEqualTo("Origin");
    }
  }

  @Test
  void disabledCorsLeavesOptionsToTheRoutes() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .withCors(Cors.disabled())
            .route("GET", "/x")
            .steps(Step.normal())
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      HttpResponse<String> r =
          send(
              server,
              "OPTIONS",
              "/x",
              "Origin",
              "https://a.example",
              "Access-Control-Request-Method",
              "GET");
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(
              h(
                  send(server, "GET", "/x", "Origin", "https://a.example"),
                  "Access-Control-Allow-Origin"))
          .isNull();
    }
  }
}
