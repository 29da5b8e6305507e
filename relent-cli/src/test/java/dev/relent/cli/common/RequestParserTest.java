package dev.relent.cli.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.http.Redactor;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;

/**
 * The one parser behind {@code relent call} and {@code relent batch}: which part is wrong, and the
 * key taken out of the headers. The wording each source gives is tested with the commands.
 */
class RequestParserTest {
  private final Redactor redactor = Redactor.ofDefaults();

  RequestParser parser(String method) throws RequestParser.Invalid {
    return new RequestParser(URI.create("https://api.example.com/v1"), method, null, redactor);
  }

  @Test
  void anIdempotencyKeyHeaderIsCheckedAndTakenOutForTheClientToSend() throws Exception {
    RequestParser p = parser("POST");
    p.header("idempotency-key", "order-4711");
    p.header("Accept", "application/json");

    HttpRequest r = p.build();

    assertThat(p.headerKey()).isEqualTo("order-4711");
    assertThat(p.headerNames()).containsExactly("idempotency-key", "Accept");
    assertThat(r.headers().firstValue("Idempotency-Key")).isEmpty();
    assertThat(r.headers().firstValue("Accept")).hasValue("application/json");
  }

  @Test
  void eachWrongPartIsNamedAndNoHeaderValueIsQuoted() throws Exception {
    RequestParser p = parser("GET");

    assertThatThrownBy(() -> p.header("X Token", "s3cret"))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.HEADER_NAME));
    assertThatThrownBy(() -> p.header("Idempotency-Key", "bad key s3cret"))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.KEY))
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> p.header("X-Token", "s3cret\n"))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.HEADER))
        .hasMessage("the value has characters a header cannot carry");
    assertThatThrownBy(() -> p.header("Host", "example.com"))
        .hasMessage("the HTTP client sets this header itself; leave it out");
    assertThatThrownBy(() -> parser("CONNECT"))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.METHOD));
    assertThatThrownBy(() -> RequestParser.uri("http://exa mple.com/", redactor))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.URL))
        .hasMessageStartingWith("not valid (Illegal character");
    assertThatThrownBy(() -> RequestParser.uri("ftp://example.com/?token=s3cret", redactor))
        .isInstanceOfSatisfying(
            RequestParser.Invalid.class,
            e -> assertThat(e.part()).isEqualTo(RequestParser.Invalid.Part.SCHEME))
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void aDefaultHeaderGivesWayToOneGivenInAnyCase() throws Exception {
    RequestParser given = parser("POST");
    given.header("content-type", "text/plain");
    given.headerUnlessGiven("Content-Type", "application/json");
    RequestParser none = parser("POST");
    none.headerUnlessGiven("Content-Type", "application/json");

    assertThat(given.build().headers().allValues("Content-Type")).containsExactly("text/plain");
    assertThat(none.build().headers().allValues("Content-Type"))
        .containsExactly("application/json");
  }

  @Test
  void theMethodDefaultsByTheBodyAndMustBeAToken() {
    assertThat(RequestParser.defaultMethod(true)).isEqualTo("POST");
    assertThat(RequestParser.defaultMethod(false)).isEqualTo("GET");
    assertThat(RequestParser.isToken("PATCH")).isTrue();
    assertThat(RequestParser.isToken("GE T")).isFalse();
    assertThat(RequestParser.isToken("")).isFalse();
  }
}
