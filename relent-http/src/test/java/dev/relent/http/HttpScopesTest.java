package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.guard.Scope;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpScopesTest {
  private static List<Scope> scopes(HttpScopes s, String method, String uri) {
    return s.scopesOf(method, URI.create(uri), HeaderLookup.NONE);
  }

  @Test
  void aRequestBelongsToItsAccountAndItsEndpointByRouteNotByRawUrl() {
    assertThat(scopes(HttpScopes.ofDefaults(), "get", "https://API.example.com/v1/items/42?x=1"))
        .containsExactly(
            Scope.account("api.example.com"), Scope.endpoint("GET api.example.com/v1/items/{id}"));
    assertThat(scopes(HttpScopes.ofDefaults(), "GET", "http://127.0.0.1:8080/"))
        .containsExactly(Scope.account("127.0.0.1:8080"), Scope.endpoint("GET 127.0.0.1:8080/"));
  }

  @Test
  void theDefaultNormaliserReplacesIdsAndKeepsWords() {
    HttpScopes s = HttpScopes.ofDefaults();
    String[][] table = {
      {"/v1/items/42", "/v1/items/{id}"},
      {"/v1/users/3fa85f64-5717-4562-b3fc-2c963f66afa6/orders", "/v1/users/{id}/orders"},
      {"/v2/accounts/acct-12345/payments", "/v2/accounts/{id}/payments"},
      {"/repos/a1b2c3d4e5f6a7b8/commits", "/repos/{id}/commits"},
      {"/files/" + "x".repeat(30), "/files/{id}"},
      {"/v1/items/", "/v1/items/"},
      {"/api/v3/status", "/api/v3/status"},
      {"/decade/deadbeef", "/decade/deadbeef"},
    };
    for (String[] row : table) {
      assertThat(s.route(URI.create("https://h" + row[0]))).as(row[0]).isEqualTo(row[1]);
    }
  }

  @Test
  void configuredTemplatesWinOverTheNormaliser() {
    HttpScopes s =
        HttpScopes.builder().withRoutes("/v1/payments/{payment}", "/v1/users/{name}").build();
    assertThat(s.route(URI.create("https://h/v1/payments/pay_x")))
        .isEqualTo("/v1/payments/{payment}");
    assertThat(s.route(URI.create("https://h/v1/users/alice"))).isEqualTo("/v1/users/{name}");
    assertThat(s.route(URI.create("https://h/v1/users/alice/x"))).isEqualTo("/v1/users/alice/x");
  }

  @Test
  void aKeyScopeIsNamedByAShortHashNeverByTheKey() {
    HttpScopes s = HttpScopes.builder().withKeyHeader("X-Api-Key").build();
    List<Scope> scopes =
        s.scopesOf(
            "GET",
            URI.create("https://h/v1/items/1"),
            HeaderLookup.of(Map.of("X-Api-Key", List.of("sk_live_secret"))));

    assertThat(scopes).hasSize(3);
    assertThat(scopes.get(1).kind()).isEqualTo(Scope.Kind.KEY);
    assertThat(scopes.get(1).name()).matches("X-Api-Key#[0-9a-f]{8}").doesNotContain("secret");
    assertThat(scopes.toString()).doesNotContain("sk_live");
    // another key, another scope; no key header, no key scope
    assertThat(
            s.scopesOf(
                    "GET",
                    URI.create("https://h/v1/items/1"),
                    HeaderLookup.of(Map.of("X-Api-Key", List.of("other"))))
                .get(1))
        .isNotEqualTo(scopes.get(1));
    assertThat(scopes(s, "GET", "https://h/v1/items/1")).hasSize(2);
  }

  @Test
  void theCallerMayDeriveTheAccountAndAScopeOfItsOwn() {
    HttpScopes s =
        HttpScopes.builder()
            .withAccount(r -> r.uri().getHost().endsWith(".example.com") ? "example" : null)
            .withCustom(
                r -> r.uri().getPath().startsWith("/t/") ? r.uri().getPath().split("/")[2] : null)
            .build();
    assertThat(scopes(s, "GET", "https://eu.example.com/t/acme/items"))
        .containsExactly(
            Scope.account("example"),
            Scope.endpoint("GET example/t/acme/items"),
            Scope.custom("acme"));
    assertThat(scopes(s, "GET", "https://other.org/x"))
        .containsExactly(Scope.account("other.org"), Scope.endpoint("GET other.org/x"));
  }

  @Test
  void aPauseIsTheEndpointsUnlessTheServerOrARuleSaysTheAccount() {
    HttpScopes s =
        HttpScopes.builder()
            .withAccountWideWhen(h -> "global".equals(h.first("X-RateLimit-Scope")))
            .build();
    assertThat(s.pauses(429, HeaderLookup.NONE)).isEqualTo(Scope.Kind.ENDPOINT);
    assertThat(
            s.pauses(
                429,
                HeaderLookup.of(
                    Map.of("RateLimit-Policy", List.of("\"user\";q=100;w=60;pk=:YWJj:")))))
        .isEqualTo(Scope.Kind.ACCOUNT);
    assertThat(
            s.pauses(
                429,
                HeaderLookup.of(Map.of("RateLimit-Policy", List.of("\"default\";q=100;w=60")))))
        .isEqualTo(Scope.Kind.ENDPOINT);
    assertThat(s.pauses(429, HeaderLookup.of(Map.of("X-RateLimit-Scope", List.of("global")))))
        .isEqualTo(Scope.Kind.ACCOUNT);
    assertThat(
            HttpScopes.builder()
                .withKeyHeader("X-Api-Key")
                .build()
                .pauses(
                    429, HeaderLookup.of(Map.of("RateLimit-Policy", List.of("10;w=1;pk=:YQ==:")))))
        .isEqualTo(Scope.Kind.KEY);
    assertThat(HttpScopes.builder().withPauseDefault(Scope.Kind.ACCOUNT).build().pauses(429, null))
        .isEqualTo(Scope.Kind.ACCOUNT);
  }

  @Test
  void badSettingsAreRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> HttpScopes.builder().withRoutes("v1/items/{id}"))
        .hasMessage(
            "route template must be a path starting with / and without a query, variables named"
                + " in braces: \"v1/items/{id}\"; e.g. /v1/payments/{id}");
    assertThatThrownBy(() -> HttpScopes.builder().withRoutes("/a?b=1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HttpScopes.builder().withKeyHeader("X Api Key"))
        .hasMessage(
            "key header must be a header name (letters, digits, - and the like): \"X Api Key\"");
  }
}
