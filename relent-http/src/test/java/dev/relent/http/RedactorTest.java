package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedactorTest {
  private static final Redactor R = Redactor.ofDefaults();

  @Test
  void sensitiveHeaders() {
    for (String name :
        List.of(
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "Set-Cookie",
            "X-Api-Key",
            "Api-Key",
            "X-Auth-Token",
            "X-Amz-Security-Token",
            "X-Client-Secret",
            "X-Session-Id",
            "My-Password")) {
      assertThat(R.isSensitiveHeader(name)).as(name).isTrue();
    }
    for (String name :
        List.of(
            "Idempotency-Key",
            "X-Request-Id",
            "Retry-After",
            "Content-Type",
            "X-RateLimit-Reset",
            "Via")) {
      assertThat(R.isSensitiveHeader(name)).as(name).isFalse();
    }
    assertThat(R.isSensitiveHeader(null)).isFalse();
    assertThat(R.header("Authorization", "Bearer abc")).isEqualTo("REDACTED");
    assertThat(R.header("Accept", "text/plain")).isEqualTo("text/plain");
    assertThat(R.header("Authorization", null)).isNull();
  }

  @Test
  void headerMaps() {
    Map<String, List<String>> in = new LinkedHashMap<>();
    in.put("Authorization", List.of("Bearer s3cr3t"));
    in.put("Accept", List.of("a", "b"));
    in.put(null, List.of("HTTP/1.1 200 OK"));
    assertThat(R.headers(in))
        .containsExactly(
            Map.entry("Authorization", List.of("REDACTED")),
            Map.entry("Accept", List.of("a", "b")));
  }

  @Test
  void uris() {
    assertThat(
            R.uri(
                URI.create(
                    "https://api.example.com/v1/items?token=abc&page=2&api_key=k&sig=s#frag")))
        .isEqualTo(
            "https://api.example.com/v1/items?token=REDACTED&page=2&api_key=REDACTED&sig=REDACTED");
    assertThat(R.uri("https://user:pass@api.example.com/x?client_secret=1&X-Amz-Signature=2"))
        .isEqualTo(
            "https://REDACTED@api.example.com/x?client_secret=REDACTED&X-Amz-Signature=REDACTED");
    assertThat(R.uri("https://api.example.com/x?my_access_token=1&keyboard=2&flag&=v"))
        .isEqualTo("https://api.example.com/x?my_access_token=REDACTED&keyboard=2&flag&=v");
    assertThat(R.uri("https://api.example.com/x?api%5Fkey=1"))
        .isEqualTo("https://api.example.com/x?api%5Fkey=REDACTED");
    assertThat(R.uri("/x?password=1")).isEqualTo("/x?password=REDACTED");
    assertThat(R.uri((URI) null)).isEqualTo("-");
    assertThat(R.uri("http://h/p")).isEqualTo("http://h/p");
  }

  @Test
  void freeText() {
    assertThat(R.text("GET https://u:p@h/x?token=abc&x=1 failed; Authorization: Bearer xyz.abc"))
        .isEqualTo("GET https://REDACTED@h/x?token=REDACTED&x=1 failed; Authorization: REDACTED");
    assertThat(R.text("bearer abc123 expired")).isEqualTo("bearer REDACTED expired");
    // Found by RedactorFuzzTest: a scheme word after a scheme, the next line's header name, or the
    // start of a labelled secret was taken for the whole credential.
    assertThat(R.text("Bearer  TOKEN abc123 expired")).isEqualTo("Bearer  TOKEN REDACTED expired");
    assertThat(R.text("Bearer tokenabc")).isEqualTo("Bearer REDACTED");
    assertThat(R.text("Bearer api%5Fkey=abc123 expired")).isEqualTo("Bearer REDACTED expired");
    assertThat(R.text("expected: Bearer\nX-Api-Key: abc123"))
        .isEqualTo("expected: Bearer\nX-Api-Key: REDACTED");
    assertThat(R.text("Connection refused: localhost/127.0.0.1:8080"))
        .isEqualTo("Connection refused: localhost/127.0.0.1:8080");
    assertThat(R.text(null)).isNull();
  }

  /**
   * Text of many names ({@code a=a=a=…}, {@code a:a:a:…}), such as a hostile server can put in a
   * message, is redacted in time proportional to its length. The value after every name used to be
   * measured to its end, sensitive or not: 32 000 characters of {@code a=} took 9.6 s, and the 400
   * 000 here would take many minutes, against a fraction of a second now. The bound is a guard
   * against that, a hundred times what it takes, not a timing target.
   */
  @Test
  void longTextOfManyNamesIsRedactedInOnePass() {
    String pairs = "a=".repeat(200_000) + " token=s3cr3t";
    String lines = "a:".repeat(200_000) + "\nAuthorization: s3cr3t";
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          assertThat(R.text(pairs))
              .startsWith("a=a=a=")
              .endsWith("a=a= token=REDACTED")
              .hasSize(400_000 + " token=REDACTED".length());
          assertThat(R.text(lines)).endsWith("a:a:\nAuthorization: REDACTED");
        });
  }

  @Test
  void configurableLists() {
    Redactor custom =
        Redactor.builder()
            .withoutDefaults()
            .redactHeaders("X-Tenant")
            .redactHeadersContaining("private")
            .allowHeaders("X-Private-Ok")
            .redactParameters("email")
            .redactParametersContaining("phone")
            .allowParameters("phone_country")
            .withReplacement("***")
            .build();
    assertThat(custom.isSensitiveHeader("x-tenant")).isTrue();
    assertThat(custom.isSensitiveHeader("X-Private-Thing")).isTrue();
    assertThat(custom.isSensitiveHeader("X-Private-Ok")).isFalse();
    assertThat(custom.isSensitiveHeader("Authorization")).isFalse();
    assertThat(custom.uri("http://h/?email=a@b&mobile_phone=1&phone_country=49&token=t"))
        .isEqualTo("http://h/?email=***&mobile_phone=***&phone_country=49&token=t");
    Redactor more = Redactor.builder().redactParameters("email").build();
    assertThat(more.uri("http://h/?email=a&token=t"))
        .isEqualTo("http://h/?email=REDACTED&token=REDACTED");
  }

  @Test
  void validation() {
    assertThatThrownBy(() -> Redactor.builder().redactHeaders(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("header name must not be blank: \" \"");
    assertThatThrownBy(() -> Redactor.builder().redactParameters((String) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("parameter name cannot be null");
    assertThatThrownBy(() -> Redactor.builder().withReplacement(""))
        .hasMessage("replacement must not be blank: \"\"");
  }
}
