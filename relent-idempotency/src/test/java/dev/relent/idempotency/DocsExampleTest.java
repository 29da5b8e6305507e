package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Compiles and runs the example of {@code docs/idempotency.md}; keep the two identical. */
class DocsExampleTest {

  // --- begin example (docs/idempotency.md) ---
  /** A payment endpoint that charges at most once per Idempotency-Key. */
  static final class PaymentEndpoint {
    private final IdempotencyHandler idempotency;
    private final Payments payments;

    PaymentEndpoint(IdempotencyHandler idempotency, Payments payments) {
      this.idempotency = idempotency;
      this.payments = payments;
    }

    /** Called by your HTTP framework for POST /v1/payments. */
    IdempotencyResponse post(String accountId, String idempotencyKeyHeader, byte[] body) {
      IdempotencyRequest request =
          IdempotencyRequest.builder()
              .withScope(accountId) // who asks: keys never cross callers
              .withMethod("POST")
              .withPath("/v1/payments")
              .withKey(idempotencyKeyHeader) // the raw header value, or null if absent
              .withBody(body)
              .build();
      return idempotency.handle(
          request,
          r -> {
            String id = payments.charge(r.body());
            return IdempotencyResponse.builder(201)
                .withHeader("Location", "/v1/payments/" + id)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"" + id + "\"}")
                .build();
          });
    }

    /** The same for a non-blocking server (an event loop): nothing waits on the charge. */
    CompletionStage<IdempotencyResponse> postAsync(
        String accountId, String idempotencyKeyHeader, byte[] body) {
      IdempotencyRequest request =
          IdempotencyRequest.builder()
              .withScope(accountId)
              .withMethod("POST")
              .withPath("/v1/payments")
              .withKey(idempotencyKeyHeader)
              .withBody(body)
              .build();
      return idempotency.handleAsync(
          request,
          r ->
              payments
                  .chargeAsync(r.body())
                  .thenApply(
                      id ->
                          IdempotencyResponse.builder(201)
                              .withHeader("Location", "/v1/payments/" + id)
                              .build()));
    }
  }

  /** Your business logic. */
  interface Payments {
    String charge(byte[] order);

    CompletionStage<String> chargeAsync(byte[] order);
  }

  static IdempotencyHandler newHandler() {
    return IdempotencyHandler.builder()
        .withStore(new InMemoryIdempotencyStore()) // or a shared Redis / PostgreSQL store
        .withKeyRequired(true) // POST /v1/payments without a key gets 400
        .withExpiry(Duration.ofHours(24))
        .build();
  }

  // --- end example ---

  final AtomicInteger charges = new AtomicInteger();
  final Payments payments =
      new Payments() {
        @Override
        public String charge(byte[] order) {
          return "pay_" + charges.incrementAndGet();
        }

        @Override
        public CompletionStage<String> chargeAsync(byte[] order) {
          return CompletableFuture.completedFuture(charge(order));
        }
      };

  static final byte[] ORDER = "{\"amount\":100}".getBytes(StandardCharsets.UTF_8);

  @Test
  void theDocumentedEndpointChargesOncePerKey() {
    PaymentEndpoint endpoint = new PaymentEndpoint(newHandler(), payments);

    IdempotencyResponse first = endpoint.post("acct_1", "\"key-1\"", ORDER);
    IdempotencyResponse retry = endpoint.post("acct_1", "\"key-1\"", ORDER);
    IdempotencyResponse missing = endpoint.post("acct_1", null, ORDER);
    IdempotencyResponse otherAccount = endpoint.post("acct_2", "\"key-1\"", ORDER);

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.bodyUtf8()).isEqualTo("{\"id\":\"pay_1\"}");
    assertThat(retry.isReplayed()).isTrue();
    assertThat(retry.bodyUtf8()).isEqualTo("{\"id\":\"pay_1\"}");
    assertThat(missing.status()).isEqualTo(400);
    assertThat(otherAccount.bodyUtf8()).isEqualTo("{\"id\":\"pay_2\"}");
    assertThat(charges).hasValue(2);
  }

  @Test
  void theDocumentedAsyncEndpointChargesOncePerKey() {
    PaymentEndpoint endpoint = new PaymentEndpoint(newHandler(), payments);

    IdempotencyResponse first =
        endpoint.postAsync("acct_1", "key-1", ORDER).toCompletableFuture().join();
    IdempotencyResponse retry =
        endpoint.postAsync("acct_1", "key-1", ORDER).toCompletableFuture().join();

    assertThat(first.header("Location")).contains("/v1/payments/pay_1");
    assertThat(retry.isReplayed()).isTrue();
    assertThat(charges).hasValue(1);
  }

  @Test
  void theDocumentedFakeClockExample() {
    // --- begin clock example (docs/idempotency.md) ---
    AtomicLong now = new AtomicLong(1_700_000_000_000L);
    IdempotencyHandler handler = IdempotencyHandler.builder().withClock(now::get).build();
    // ... first request ...
    now.addAndGet(Duration.ofHours(24).toMillis()); // the stored response has expired now
    // --- end clock example ---
    assertThat(handler.config().clock().millis()).isEqualTo(1_700_086_400_000L);
  }

  @Test
  void theDocsShowExactlyTheCodeCompiledHere() throws IOException {
    // Surefire runs in the module directory.
    String source =
        Files.readString(
            Path.of("src/test/java/dev/relent/idempotency/DocsExampleTest.java"),
            StandardCharsets.UTF_8);
    String docs = Files.readString(Path.of("../docs/idempotency.md"), StandardCharsets.UTF_8);

    assertThat(docs)
        .contains("```java\n" + between(source, "// --- begin example") + "```\n")
        .contains("```java\n" + between(source, "// --- begin clock example") + "```\n");
  }

  /** The lines after the begin marker up to the end marker, without their common indent. */
  private static String between(String source, String begin) {
    int start = source.indexOf('\n', source.indexOf(begin)) + 1;
    int end = source.lastIndexOf('\n', source.indexOf("// --- end", start));
    String block = source.substring(start, end).stripTrailing();
    int indent =
        block
            .lines()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return block
            .lines()
            .map(l -> l.isBlank() ? "" : l.substring(indent))
            .collect(Collectors.joining("\n"))
        + "\n";
  }
}
