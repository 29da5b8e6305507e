package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.cli.common.JsonTree;
import dev.relent.http.Redactor;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The input format of {@code relent batch}: what a line may say, and what a bad one is told. */
class BatchInputTest {
  static BatchInput.Parsed parse(String... lines) {
    return BatchInput.parse(List.of(lines), "in.jsonl", Redactor.ofDefaults());
  }

  static String body(HttpRequest r) {
    List<ByteBuffer> parts = new ArrayList<>();
    r.bodyPublisher()
        .orElseThrow()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer item) {
                parts.add(item);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onComplete() {}
            });
    StringBuilder b = new StringBuilder();
    for (ByteBuffer p : parts) {
      b.append(StandardCharsets.UTF_8.decode(p));
    }
    return b.toString();
  }

  @Test
  void aLineSaysIdMethodUrlHeadersBodyAndKey() {
    BatchInput.Parsed p =
        parse(
            "{\"id\": 7, \"url\": \"https://api.example.com/a?page=2\"}",
            "{\"id\": \"w\", \"method\": \"post\", \"url\": \"http://h/p\", \"headers\":"
                + " {\"Authorization\": \"Bearer s3cret\"}, \"body\": {\"amount\": 1.50, \"tags\":"
                + " [\"a\", null, true]}}",
            "{\"id\": \"t\", \"url\": \"http://h/p\", \"body\": \"plain text\"}",
            "{\"id\": \"k\", \"url\": \"http://h/p\", \"method\": \"PATCH\", \"idempotency_key\":"
                + " \"order-42\"}",
            "{\"id\": \"n\", \"url\": \"http://h/p\", \"method\": \"POST\", \"idempotency_key\":"
                + " false}",
            "{\"id\": \"h\", \"url\": \"http://h/p\", \"method\": \"POST\", \"headers\":"
                + " {\"Idempotency-Key\": \"from-header\", \"Content-Type\": \"text/x\"}, \"body\":"
                + " [1]}",
            "{\"id\": \"d\", \"url\": \"http://h/p\", \"method\": \"DELETE\"}");

    assertThat(p.problems()).isEmpty();
    List<BatchInput.Request> r = p.requests();
    assertThat(r)
        .extracting(BatchInput.Request::id)
        .containsExactly("7", "w", "t", "k", "n", "h", "d");
    assertThat(r)
        .extracting(BatchInput.Request::method)
        .containsExactly("GET", "POST", "POST", "PATCH", "POST", "POST", "DELETE");
    assertThat(r)
        .extracting(BatchInput.Request::keyed)
        .containsExactly(false, true, true, true, false, true, false);
    assertThat(r)
        .extracting(BatchInput.Request::keyMode)
        .containsExactly(
            BatchInput.KeyMode.AUTO,
            BatchInput.KeyMode.AUTO,
            BatchInput.KeyMode.AUTO,
            BatchInput.KeyMode.GIVEN,
            BatchInput.KeyMode.NONE,
            BatchInput.KeyMode.GIVEN,
            BatchInput.KeyMode.AUTO);
    assertThat(r.get(3).givenKey()).isEqualTo("order-42");
    assertThat(r.get(5).givenKey()).isEqualTo("from-header");
    // the key travels in CallOptions, not in the request
    assertThat(r.get(5).request().headers().firstValue("Idempotency-Key")).isEmpty();
    assertThat(body(r.get(1).request())).isEqualTo("{\"amount\":1.50,\"tags\":[\"a\",null,true]}");
    assertThat(r.get(1).request().headers().firstValue("Content-Type"))
        .hasValue("application/json");
    assertThat(r.get(1).request().headers().firstValue("Authorization")).hasValue("Bearer s3cret");
    assertThat(body(r.get(2).request())).isEqualTo("plain text");
    assertThat(r.get(2).request().headers().firstValue("Content-Type")).isEmpty();
    assertThat(r.get(5).request().headers().allValues("Content-Type")).containsExactly("text/x");
    assertThat(r.get(0).line()).isEqualTo(1);
    assertThat(r.get(0).fingerprint()).hasSize(64).isNotEqualTo(r.get(2).fingerprint());
  }

  @Test
  void everyBadLineIsToldWhatWasWrongWithoutItsSecrets() {
    String[][] cases = {
      {"{", "in.jsonl:1: invalid JSON: Unexpected end-of-input: expected close marker for Object"},
      {
        "{\"id\": \"a\", \"url\": \"http://h/\"} {}",
        "in.jsonl:1: more than one JSON value on the line"
      },
      {
        "{\"id\": \"a\", \"id\": \"b\", \"url\": \"http://h/\"}",
        "in.jsonl:1: invalid JSON: Duplicate field 'id'"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"body\": {\"n\": 44444444e44444444444444}}",
        "in.jsonl:1: invalid JSON: a number too large to read (its exponent has too many digits)"
      },
      {"\"just a string\"", "in.jsonl:1: expected a JSON object, got a string"},
      {"{\"url\": \"http://h/\"}", "in.jsonl:1: missing required key \"id\""},
      {
        "{\"id\": true, \"url\": \"http://h/\"}",
        "in.jsonl:1: id: expected a string or an integer, got true"
      },
      {
        "{\"id\": \"\", \"url\": \"http://h/\"}",
        "in.jsonl:1: id: expected 1 to 200 characters, got 0"
      },
      {"{\"id\": \"a\", \"url\": 5}", "in.jsonl:1: url: expected a string, got a number"},
      {
        "{\"id\": \"a\", \"url\": \"/relative\"}",
        "in.jsonl:1: url: '/relative' is not an http(s) URL with a host"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/?api_key=PLANTED9\", \"method\": \"G T\"}",
        "in.jsonl:1: method: expected an HTTP method such as GET, POST, PUT, PATCH, DELETE, got \"G T\""
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"method\": \"CONNECT\"}",
        "in.jsonl:1: method: the HTTP client cannot send CONNECT"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"headers\": [\"A: b\"]}",
        "in.jsonl:1: headers: expected an object of name to string, got an array"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"headers\": {\"Host\": \"PLANTED9\"}}",
        "in.jsonl:1: headers.Host: the HTTP client sets this header itself; leave it out"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"headers\": {\"X-Token\": \"PLANTED9\\nX\"}}",
        "in.jsonl:1: headers.X-Token: the value has characters a header cannot carry"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"headers\": {\"Idempotency-Key\": \"a b\"}}",
        "in.jsonl:1: headers.Idempotency-Key: idempotency key must be visible ASCII"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"idempotency_key\": 3}",
        "in.jsonl:1: idempotency_key: expected a key (1 to 255 visible ASCII characters) or false, got a number"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"idempotency_key\": \"k\", \"headers\": {\"Idempotency-Key\": \"k\"}}",
        "in.jsonl:1: idempotency_key and headers.Idempotency-Key both give a key; give it once"
      },
      {
        "{\"id\": \"a\", \"url\": \"http://h/\", \"Body\": 1}",
        "in.jsonl:1: unknown key \"Body\", expected one of: id, method, url, headers, body, idempotency_key"
      },
    };
    for (String[] c : cases) {
      BatchInput.Parsed p = parse(c[0]);
      assertThat(p.requests()).as(c[0]).isEmpty();
      assertThat(p.problems()).as(c[0]).hasSize(1);
      assertThat(p.problems().get(0).line()).isEqualTo(1);
      assertThat(p.problems().get(0).message())
          .as(c[0])
          .startsWith(c[1])
          .doesNotContain("PLANTED9");
    }
  }

  @Test
  void blankLinesAndAByteOrderMarkAreNotRequestsAndLineNumbersCountThem() {
    BatchInput.Parsed p =
        parse("\uFEFF{\"id\": \"a\", \"url\": \"http://h/\"}", "", "  ", "{\"id\": \"a\"}");
    assertThat(p.requests()).hasSize(1);
    assertThat(p.problems()).extracting(BatchInput.Problem::line).containsExactly(4);
  }

  /**
   * A line over the limit (here a JSON array of requests on one line, a common mistake) is a bad
   * line that says so and how to split it; it is never held whole, and the lines after it are read.
   */
  @Test
  void aLineOverTheLimitIsABadLineAndTheNextIsRead(@TempDir Path dir) throws Exception {
    StringBuilder array = new StringBuilder("[");
    while (array.length() <= BatchInput.MAX_LINE_CHARS) {
      array.append("{\"id\": \"r\", \"url\": \"http://h/\"},");
    }
    Path file = dir.resolve("in.jsonl");
    Files.writeString(
        file,
        array.append("{}]\n{\"id\": \"b\", \"url\": \"http://h/\"}\n"),
        StandardCharsets.UTF_8);
    List<BatchInput.Problem> problems = new ArrayList<>();
    BatchInput.Scan scan = BatchInput.scan(file, Redactor.ofDefaults(), problems::add);
    assertThat(scan.requests()).isEqualTo(1);
    assertThat(problems)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.line()).isEqualTo(1);
              assertThat(p.message())
                  .startsWith(file + ":1: longer than 4194304 characters (4 MiB)")
                  .contains("JSON Lines, one request per line")
                  .contains("jq -c '.[]'");
            });
    try (BatchInput.Requests requests = BatchInput.requests(file, Redactor.ofDefaults(), scan)) {
      assertThat(requests.next().id()).isEqualTo("b");
      assertThat(requests.next()).isNull();
    }
  }

  @Test
  void jsonRoundTripsExactlyOverManyGeneratedValues() throws Exception {
    SplittableRandom random = new SplittableRandom(20260101L);
    for (int i = 0; i < 2000; i++) {
      Object value = generate(random, 0);
      String text = JsonTree.write(value);
      assertThat(JsonTree.write(JsonTree.parse(text))).isEqualTo(text);
      assertThat(JsonTree.parse(text)).isEqualTo(value);
    }
    assertThatThrownBy(() -> JsonTree.parse("")).hasMessage("empty");
  }

  private static Object generate(SplittableRandom r, int depth) {
    int kind = r.nextInt(depth > 3 ? 5 : 7);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return r.nextBoolean();
      case 2:
        return r.nextLong();
      case 3:
        return BigDecimal.valueOf(r.nextLong(), r.nextInt(1, 8));
      case 4:
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
          s.append((char) r.nextInt(0, 0x3000));
        }
        return s.toString();
      case 5:
        List<Object> list = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          list.add(generate(r, depth + 1));
        }
        return list;
      default:
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          map.put("k" + r.nextInt(100), generate(r, depth + 1));
        }
        return map;
    }
  }
}
