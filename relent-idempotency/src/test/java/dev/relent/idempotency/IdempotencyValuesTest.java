package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Requests, responses and problems. */
class IdempotencyValuesTest {

  @Test
  void requestKeepsItsPartsAndCopiesTheBody() {
    byte[] body = {1, 2};
    IdempotencyRequest r =
        IdempotencyRequest.builder()
            .withScope("s")
            .withMethod("POST")
            .withPath("/p")
            .withKey("\"k\"")
            .withBody(body)
            .build();
    body[0] = 9;
    r.body()[1] = 9;

    assertThat(r.scope()).isEqualTo("s");
    assertThat(r.method()).isEqualTo("POST");
    assertThat(r.path()).isEqualTo("/p");
    assertThat(r.key()).isEqualTo("\"k\"");
    assertThat(r.body()).containsExactly(1, 2);
  }

  @Test
  void requestDefaultsToNoKeyAndAnEmptyBody() {
    IdempotencyRequest r =
        IdempotencyRequest.builder().withScope("s").withMethod("GET").withPath("/").build();

    assertThat(r.key()).isNull();
    assertThat(r.body()).isEmpty();
  }

  @Test
  void requestNeedsScopeMethodAndPath() {
    assertThatThrownBy(() -> IdempotencyRequest.builder().withMethod("POST").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("scope, method and path must be set: scope missing, method set, path missing");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withScope("s").withPath("/").build())
        .hasMessage("scope, method and path must be set: scope set, method missing, path set");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withMethod(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("method cannot be empty");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withScope(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("scope cannot be null");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withMethod(null))
        .hasMessage("method cannot be null");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withPath(null))
        .hasMessage("path cannot be null");
    assertThatThrownBy(() -> IdempotencyRequest.builder().withBody(null))
        .hasMessage("body cannot be null");
  }

  @Test
  void requestToStringHidesScopeKeyQueryAndBody() {
    IdempotencyRequest r =
        IdempotencyRequest.builder()
            .withScope("Bearer sk_live_1")
            .withMethod("POST")
            .withPath("/v1/charges?api_key=sk_live_1")
            .withKey("my-key")
            .withBody("card 4242".getBytes(StandardCharsets.UTF_8))
            .build();

    assertThat(r)
        .hasToString(
            "IdempotencyRequest{method=POST, path=/v1/charges?..., key=present, body=9 bytes}");
    assertThat(IdempotencyRequest.builder().withScope("s").withMethod("GET").withPath("/a").build())
        .hasToString("IdempotencyRequest{method=GET, path=/a, key=absent, body=0 bytes}");
  }

  @Test
  void responseOfCopiesHeadersAndBody() {
    Map<String, List<String>> headers = new HashMap<>();
    List<String> values = new ArrayList<>(List.of("1"));
    headers.put("X-A", values);
    byte[] body = {5};

    IdempotencyResponse r = IdempotencyResponse.of(202, headers, body);
    values.add("2");
    body[0] = 6;

    assertThat(r.status()).isEqualTo(202);
    assertThat(r.headers()).isEqualTo(Map.of("X-A", List.of("1")));
    assertThat(r.body()).containsExactly(5);
    assertThatThrownBy(() -> r.headers().put("B", List.of()))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void responseHeaderLookupIgnoresCase() {
    IdempotencyResponse r =
        IdempotencyResponse.builder(200)
            .withHeader("Content-Type", "text/plain")
            .withHeader("Vary", "a")
            .withHeader("Vary", "b")
            .build();

    assertThat(r.header("content-type")).contains("text/plain");
    assertThat(r.header("VARY")).contains("a");
    assertThat(r.header("Missing")).isEmpty();
    assertThat(r.headers().get("Vary")).containsExactly("a", "b");
    assertThat(IdempotencyResponse.of(200, Map.of("X", List.of()), new byte[0]).header("X"))
        .isEmpty();
  }

  @Test
  void responseEqualityAndToString() {
    IdempotencyResponse a =
        IdempotencyResponse.builder(200).withHeader("A", "1").withBody("x").build();
    IdempotencyResponse b =
        IdempotencyResponse.builder(200).withHeader("A", "1").withBody("x").build();

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a)
        .isNotEqualTo(IdempotencyResponse.builder(200).withHeader("A", "1").withBody("y").build());
    assertThat(a)
        .isNotEqualTo(IdempotencyResponse.builder(201).withHeader("A", "1").withBody("x").build());
    assertThat(a)
        .isNotEqualTo(IdempotencyResponse.builder(200).withHeader("A", "2").withBody("x").build());
    assertThat(
            IdempotencyResponse.builder(200)
                .withHeader("Set-Cookie", "session=secret")
                .withBody("personal")
                .build())
        .hasToString("IdempotencyResponse{status=200, headers=[Set-Cookie], body=8 bytes}");
  }

  @Test
  void responseValidation() {
    assertThatThrownBy(() -> IdempotencyResponse.builder(99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status must be in 100..599: 99");
    assertThatThrownBy(() -> IdempotencyResponse.of(600, Map.of(), new byte[0]))
        .hasMessage("status must be in 100..599: 600");
    assertThatThrownBy(() -> IdempotencyResponse.of(200, null, new byte[0]))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers cannot be null");
    assertThatThrownBy(() -> IdempotencyResponse.of(200, Map.of(), null))
        .hasMessage("body cannot be null");
    Map<String, List<String>> nullValue = new HashMap<>();
    nullValue.put("X", Arrays.asList("a", null));
    assertThatThrownBy(() -> IdempotencyResponse.of(200, nullValue, new byte[0]))
        .hasMessage("header value cannot be null: X");
    assertThatThrownBy(() -> IdempotencyResponse.builder(200).withHeader(null, "v"))
        .hasMessage("name cannot be null");
    assertThatThrownBy(() -> IdempotencyResponse.builder(200).withHeader("n", null))
        .hasMessage("value cannot be null");
    assertThatThrownBy(() -> IdempotencyResponse.builder(200).withBody((String) null))
        .hasMessage("body cannot be null");
    assertThatThrownBy(() -> IdempotencyResponse.builder(200).withBody((byte[]) null))
        .hasMessage("body cannot be null");
  }

  @Test
  void problemsHaveTheDraftsStatusesAndStableTypes() {
    assertThat(IdempotencyProblem.KEY_MISSING.status()).isEqualTo(400);
    assertThat(IdempotencyProblem.KEY_INVALID.status()).isEqualTo(400);
    assertThat(IdempotencyProblem.KEY_IN_FLIGHT.status()).isEqualTo(409);
    assertThat(IdempotencyProblem.KEY_REUSED.status()).isEqualTo(422);
    assertThat(IdempotencyProblem.KEY_REUSED.type())
        .isEqualTo(URI.create("https://relent.dev/problems/idempotency-key-reused"));
    assertThat(IdempotencyProblem.KEY_MISSING.title()).isEqualTo("Idempotency-Key is missing");
  }

  @Test
  void problemJsonEscapesItsText() {
    assertThat(IdempotencyProblem.escape("a\"b\\c\nd\u0001e\u001f"))
        .isEqualTo("a\\\"b\\\\c\\nd\\u0001e\\u001f");
    IdempotencyResponse r = IdempotencyProblem.KEY_IN_FLIGHT.toResponse("say \"hi\"");
    assertThat(r.bodyUtf8())
        .isEqualTo(
            "{\"type\":\"https://relent.dev/problems/idempotency-key-in-flight\","
                + "\"title\":\"A request with this Idempotency-Key is outstanding\","
                + "\"status\":409,\"detail\":\"say \\\"hi\\\"\"}");
    assertThat(r.header("Content-Type")).contains(IdempotencyProblem.CONTENT_TYPE);
  }
}
