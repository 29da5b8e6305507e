package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyHandlerTest {

  static final long T0 = 1_700_000_000_000L;
  static final long DAY = 24 * 3_600_000L;
  static final String BODY = "{\"amount\":100}";

  final AtomicLong now = new AtomicLong(T0);
  final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  final AtomicInteger executions = new AtomicInteger();
  final IdempotencyHandler handler =
      IdempotencyHandler.builder().withStore(store).withClock(now::get).build();

  /** Counts executions and answers 201 with the execution number in Location and body. */
  final Function<IdempotencyRequest, IdempotencyResponse> create =
      request -> {
        int n = executions.incrementAndGet();
        return IdempotencyResponse.builder(201)
            .withHeader("Location", "/v1/payments/" + n)
            .withHeader("Set-Cookie", "a=1")
            .withHeader("Set-Cookie", "b=2")
            .withHeader("Content-Type", "application/json")
            .withBody("{\"id\":" + n + "}")
            .build();
      };

  static IdempotencyRequest.Builder post(String key) {
    return IdempotencyRequest.builder()
        .withScope("tenant-a")
        .withMethod("POST")
        .withPath("/v1/payments")
        .withKey(key)
        .withBody(BODY.getBytes(StandardCharsets.UTF_8));
  }

  static IdempotencyRequest request(String key) {
    return post(key).build();
  }

  static String problem(String slug, String title, int status, String detail) {
    return "{\"type\":\"https://relent.dev/problems/"
        + slug
        + "\",\"title\":\""
        + title
        + "\",\"status\":"
        + status
        + ",\"detail\":\""
        + detail
        + "\"}";
  }

  static final String IN_FLIGHT_BODY =
      problem(
          "idempotency-key-in-flight",
          "A request with this Idempotency-Key is outstanding",
          409,
          "A request with the same Idempotency-Key is still being processed. Do not change the"
              + " request: send it again with the same key later to receive its result.");

  static final String REUSED_BODY =
      problem(
          "idempotency-key-reused",
          "Idempotency-Key is already used",
          422,
          "This Idempotency-Key was first used with a different request: the method, path or"
              + " body differ. A retry must repeat the original request exactly; a new request"
              + " needs a new key.");

  static void assertProblem(IdempotencyResponse r, int status, String body) {
    assertThat(r.status()).isEqualTo(status);
    assertThat(r.headers()).isEqualTo(Map.of("Content-Type", List.of("application/problem+json")));
    assertThat(r.bodyUtf8()).isEqualTo(body);
    assertThat(r.isReplayed()).isFalse();
  }

  @Nested
  class FirstRequestAndReplay {

    @Test
    void firstRequestExecutesAndGetsTheOperationsResponseUnmarked() {
      IdempotencyResponse first = handler.handle(request("k1"), create);

      assertThat(executions).hasValue(1);
      assertThat(first.status()).isEqualTo(201);
      assertThat(first.bodyUtf8()).isEqualTo("{\"id\":1}");
      assertThat(first.header(IdempotencyHandler.REPLAYED_HEADER)).isEmpty();
      assertThat(first.isReplayed()).isFalse();
    }

    @Test
    void duplicateGetsTheIdenticalResponseMarkedAsReplayed() {
      IdempotencyResponse first = handler.handle(request("k1"), create);
      now.addAndGet(60_000);

      IdempotencyResponse again = handler.handle(request("k1"), create);

      assertThat(executions).hasValue(1);
      assertThat(again.status()).isEqualTo(201);
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(List.copyOf(again.headers().keySet()))
          .containsExactly("Location", "Set-Cookie", "Content-Type", "Idempotent-Replayed");
      assertThat(again.headers().get("Location")).containsExactly("/v1/payments/1");
      assertThat(again.headers().get("Set-Cookie")).containsExactly("a=1", "b=2");
      assertThat(again.headers().get("Idempotent-Replayed")).containsExactly("true");
      assertThat(again.isReplayed()).isTrue();
    }

    @Test
    void everyDuplicateGetsTheSameReplay() {
      handler.handle(request("k1"), create);
      IdempotencyResponse second = handler.handle(request("k1"), create);

      for (int i = 0; i < 10; i++) {
        assertThat(handler.handle(request("k1"), create)).isEqualTo(second);
      }
      assertThat(executions).hasValue(1);
    }

    @Test
    void a5xxResponseIsStoredAndReplayedLikeAnyOther() {
      Function<IdempotencyRequest, IdempotencyResponse> unavailable =
          r -> {
            executions.incrementAndGet();
            return IdempotencyResponse.builder(503)
                .withHeader("Retry-After", "5")
                .withBody("upstream down")
                .build();
          };
      handler.handle(request("k1"), unavailable);

      IdempotencyResponse again = handler.handle(request("k1"), unavailable);

      assertThat(executions).hasValue(1);
      assertThat(again.status()).isEqualTo(503);
      assertThat(again.headers())
          .isEqualTo(Map.of("Retry-After", List.of("5"), "Idempotent-Replayed", List.of("true")));
      assertThat(again.bodyUtf8()).isEqualTo("upstream down");
    }

    @Test
    void aBinaryBodyAndAnEmptyBodyReplayByteForByte() {
      byte[] binary = {0, (byte) 0xFF, 0x7F, (byte) 0x80};
      handler.handle(
          request("bin"), r -> IdempotencyResponse.builder(200).withBody(binary).build());
      handler.handle(request("empty"), r -> IdempotencyResponse.builder(204).build());

      assertThat(handler.handle(request("bin"), create).body()).isEqualTo(binary);
      IdempotencyResponse empty = handler.handle(request("empty"), create);
      assertThat(empty.status()).isEqualTo(204);
      assertThat(empty.body()).isEmpty();
      assertThat(executions).hasValue(0);
    }

    @Test
    void aStoredHeaderNamedLikeTheMarkerIsReplacedByTheMarker() {
      IdempotencyResponse first =
          handler.handle(
              request("k1"),
              r ->
                  IdempotencyResponse.builder(200)
                      .withHeader("idempotent-replayed", "false")
                      .build());

      IdempotencyResponse again = handler.handle(request("k1"), create);

      assertThat(first.headers()).isEqualTo(Map.of("idempotent-replayed", List.of("false")));
      assertThat(again.headers()).isEqualTo(Map.of("Idempotent-Replayed", List.of("true")));
    }

    @Test
    void quotedAndBareFormsNameTheSameKey() {
      handler.handle(request("\"8e03978e-40d5-43e8-bc93-6894a57f9324\""), create);

      IdempotencyResponse bare =
          handler.handle(request("8e03978e-40d5-43e8-bc93-6894a57f9324"), create);
      IdempotencyResponse spaced =
          handler.handle(request(" \t\"8e03978e-40d5-43e8-bc93-6894a57f9324\" "), create);

      assertThat(executions).hasValue(1);
      assertThat(bare.isReplayed()).isTrue();
      assertThat(spaced.isReplayed()).isTrue();
    }

    @Test
    void escapesInAQuotedKeyAreUndone() {
      handler.handle(request("\"a\\\"b\\\\c\""), create);

      Optional<IdempotencyRecord> record =
          store.find(Digests.scope("tenant-a"), "a\"b\\c", now.get());

      assertThat(record).isPresent();
      assertThat(record.get().isInFlight()).isFalse();
    }

    @Test
    void theOperationSeesTheRequestItWasGiven() {
      IdempotencyRequest request = request("k1");
      IdempotencyRequest[] seen = new IdempotencyRequest[1];

      handler.handle(
          request,
          r -> {
            seen[0] = r;
            return create.apply(r);
          });

      assertThat(seen[0]).isSameAs(request);
    }
  }

  @Nested
  class InFlight {

    @Test
    void aDuplicateWhileTheFirstStillRunsGets409() {
      IdempotencyResponse[] inner = new IdempotencyResponse[1];

      IdempotencyResponse first =
          handler.handle(
              request("k1"),
              r -> {
                inner[0] = handler.handle(request("k1"), create);
                return create.apply(r);
              });

      assertProblem(inner[0], 409, IN_FLIGHT_BODY);
      assertThat(first.status()).isEqualTo(201);
      assertThat(executions).hasValue(1);
      assertThat(handler.handle(request("k1"), create).isReplayed()).isTrue();
    }

    @Test
    void aMismatchWhileTheFirstStillRunsGets422Not409() {
      IdempotencyResponse[] inner = new IdempotencyResponse[1];

      handler.handle(
          request("k1"),
          r -> {
            inner[0] = handler.handle(post("k1").withPath("/v1/refunds").build(), create);
            return create.apply(r);
          });

      assertProblem(inner[0], 422, REUSED_BODY);
    }

    @Test
    void aClaimOlderThanTheInFlightTimeoutIsTakenOver() {
      // Default in-flight timeout: 1 h. The first request never finishes on its own (its process
      // died, or it is merely slow).
      java.util.concurrent.CompletableFuture<IdempotencyResponse> stuck =
          new java.util.concurrent.CompletableFuture<>();
      java.util.concurrent.CompletionStage<IdempotencyResponse> first =
          handler.handleAsync(request("k1"), r -> stuck);

      now.addAndGet(3_600_000L - 1);
      assertProblem(handler.handle(request("k1"), create), 409, IN_FLIGHT_BODY);
      now.incrementAndGet();
      IdempotencyResponse takeover = handler.handle(request("k1"), create);

      assertThat(takeover.status()).isEqualTo(201);
      assertThat(takeover.isReplayed()).isFalse();
      assertThat(executions).hasValue(1);

      // The late first response reaches its own caller but does not replace the new record.
      stuck.complete(IdempotencyResponse.builder(200).withBody("late").build());
      assertThat(first.toCompletableFuture().join().bodyUtf8()).isEqualTo("late");
      assertThat(handler.handle(request("k1"), create).bodyUtf8()).isEqualTo("{\"id\":1}");
    }
  }

  @Nested
  class Mismatch {

    @ParameterizedTest
    @ValueSource(strings = {"method", "path", "body", "empty body"})
    void theSameKeyWithADifferentRequestGets422(String what) {
      handler.handle(request("k1"), create);
      IdempotencyRequest.Builder changed = post("k1");
      switch (what) {
        case "method":
          changed.withMethod("PUT");
          break;
        case "path":
          changed.withPath("/v1/payments/2");
          break;
        case "body":
          changed.withBody("{\"amount\":101}".getBytes(StandardCharsets.UTF_8));
          break;
        default:
          changed.withBody(new byte[0]);
      }

      IdempotencyResponse r = handler.handle(changed.build(), create);

      assertProblem(r, 422, REUSED_BODY);
      assertThat(executions).hasValue(1);
      // The original request still gets its replay.
      assertThat(handler.handle(request("k1"), create).isReplayed()).isTrue();
    }

    @Test
    void methodCaseMatters() {
      handler.handle(request("k1"), create);

      assertThat(handler.handle(post("k1").withMethod("post").build(), create).status())
          .isEqualTo(422);
    }

    @Test
    void theFingerprintIsSha256OfMethodPathAndBodyDigest() {
      assertThat(Digests.fingerprint(request("k1")))
          .isEqualTo("d131efe469f948b209d1f4889d18b5fe861951dc86bf058a3f52bdac6b067a84");
      assertThat(Digests.fingerprint(post("k1").withBody(new byte[0]).build()))
          .isEqualTo("cb1396cc55a1b9a50210c05db3fcac592000c44dc1afb9660bca92384c6df320");
    }

    @Test
    void methodAndPathBoundariesAreNotAmbiguous() {
      IdempotencyRequest a = post("k").withMethod("POS").withPath("T/x").build();
      IdempotencyRequest b = post("k").withMethod("POST").withPath("/x").build();
      IdempotencyRequest c = post("k").withMethod("POST").withPath("/x").build();

      assertThat(Digests.fingerprint(a)).isNotEqualTo(Digests.fingerprint(b));
      assertThat(Digests.fingerprint(b)).isEqualTo(Digests.fingerprint(c));
    }
  }

  @Nested
  class MissingKey {

    @Test
    void aRequiredKeyThatIsMissingGets400AndTheOperationDoesNotRun() {
      IdempotencyHandler strict =
          IdempotencyHandler.builder(handler.config()).withKeyRequired(true).build();

      IdempotencyResponse r = strict.handle(request(null), create);

      assertProblem(
          r,
          400,
          problem(
              "idempotency-key-missing",
              "Idempotency-Key is missing",
              400,
              "This endpoint requires an Idempotency-Key request header. Generate one random key"
                  + " (a UUID) per operation, send it as Idempotency-Key:"
                  + " \\\"8e03978e-40d5-43e8-bc93-6894a57f9324\\\", and reuse it for every retry"
                  + " of that operation."));
      assertThat(executions).hasValue(0);
      assertThat(store.size()).isZero();
    }

    @Test
    void withoutARequiredKeyTheRequestPassesThroughUnprotected() {
      IdempotencyResponse first = handler.handle(request(null), create);
      IdempotencyResponse second = handler.handle(request(null), create);

      assertThat(first.bodyUtf8()).isEqualTo("{\"id\":1}");
      assertThat(second.bodyUtf8()).isEqualTo("{\"id\":2}");
      assertThat(second.isReplayed()).isFalse();
      assertThat(executions).hasValue(2);
      assertThat(store.size()).isZero();
    }

    @Test
    void aPassThroughOperationReturningNullIsAnError() {
      assertThatThrownBy(() -> handler.handle(request(null), r -> null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("operation returned null");
    }
  }

  @Nested
  class Scope {

    @Test
    void twoCallersWithTheSameKeyEachExecuteAndSeeOnlyTheirOwnResponse() {
      IdempotencyRequest a = post("shared-key").withScope("tenant-a").build();
      IdempotencyRequest b = post("shared-key").withScope("tenant-b").build();

      assertThat(handler.handle(a, create).bodyUtf8()).isEqualTo("{\"id\":1}");
      assertThat(handler.handle(b, create).bodyUtf8()).isEqualTo("{\"id\":2}");
      assertThat(handler.handle(a, create).bodyUtf8()).isEqualTo("{\"id\":1}");
      assertThat(handler.handle(b, create).bodyUtf8()).isEqualTo("{\"id\":2}");
      assertThat(executions).hasValue(2);
    }

    @Test
    void aSecondCallerCannotEvenSeeThatAKeyIsInFlight() {
      IdempotencyResponse[] other = new IdempotencyResponse[1];

      handler.handle(
          request("k1"),
          r -> {
            other[0] = handler.handle(post("k1").withScope("tenant-b").build(), create);
            return create.apply(r);
          });

      assertThat(other[0].status()).isEqualTo(201);
      assertThat(executions).hasValue(2);
    }

    @Test
    void theStoreKeepsTheScopesDigestNeverTheScope() {
      String credential = "Bearer sk_live_51Habc";
      handler.handle(post("k1").withScope(credential).build(), create);

      String digest = Digests.scope(credential);
      assertThat(store.find(credential, "k1", now.get())).isEmpty();
      assertThat(store.find(digest, "k1", now.get())).isPresent();
      assertThat(digest).hasSize(64).doesNotContain("sk_live");
      assertThat(Digests.scope("tenant-a"))
          .isEqualTo("80a707af7dc77ee1228f9127180f3964835e5beb4c4ab0d812f0fe7593579b3a");
    }

    @Test
    void problemResponsesNeverEchoTheScopeOrKey() {
      String credential = "Bearer sk_live_51Habc";
      IdempotencyHandler strict =
          IdempotencyHandler.builder(handler.config()).withKeyRequired(true).build();
      handler.handle(post("my-secret-key").withScope(credential).build(), create);

      List<IdempotencyResponse> problems =
          List.of(
              strict.handle(post(null).withScope(credential).build(), create),
              handler.handle(post("my-secret-key\u00e9").withScope(credential).build(), create),
              handler.handle(
                  post("my-secret-key").withScope(credential).withMethod("PUT").build(), create));

      for (IdempotencyResponse p : problems) {
        assertThat(p.status()).isIn(400, 422);
        assertThat(p.bodyUtf8()).doesNotContain("sk_live", "Bearer", "my-secret-key");
        assertThat(p.toString()).doesNotContain("sk_live", "my-secret-key");
      }
    }
  }

  @Nested
  class Expiry {

    @Test
    void aStoredResponseIsReplayedFor24HoursThenTheKeyExecutesAgain() {
      handler.handle(request("k1"), create);

      now.set(T0 + DAY - 1);
      assertThat(handler.handle(request("k1"), create).bodyUtf8()).isEqualTo("{\"id\":1}");
      now.set(T0 + DAY);
      IdempotencyResponse fresh = handler.handle(request("k1"), create);

      assertThat(fresh.bodyUtf8()).isEqualTo("{\"id\":2}");
      assertThat(fresh.isReplayed()).isFalse();
      assertThat(handler.handle(request("k1"), create).bodyUtf8()).isEqualTo("{\"id\":2}");
    }

    @Test
    void expiryCountsFromWhenTheResponseWasStored() {
      handler.handle(
          request("k1"),
          r -> {
            now.addAndGet(5_000);
            return create.apply(r);
          });

      now.set(T0 + 5_000 + DAY - 1);
      assertThat(handler.handle(request("k1"), create).isReplayed()).isTrue();
      now.set(T0 + 5_000 + DAY);
      assertThat(handler.handle(request("k1"), create).isReplayed()).isFalse();
      assertThat(executions).hasValue(2);
    }

    @Test
    void aCustomExpiryApplies() {
      IdempotencyHandler tenMinutes =
          IdempotencyHandler.builder(handler.config()).withExpiry(Duration.ofMinutes(10)).build();
      tenMinutes.handle(request("k1"), create);

      now.set(T0 + 599_999);
      assertThat(tenMinutes.handle(request("k1"), create).isReplayed()).isTrue();
      now.set(T0 + 600_000);
      assertThat(tenMinutes.handle(request("k1"), create).isReplayed()).isFalse();
    }

    @Test
    void aMismatchedRequestAfterExpiryExecutes() {
      handler.handle(request("k1"), create);
      now.set(T0 + DAY);

      IdempotencyResponse r = handler.handle(post("k1").withMethod("PUT").build(), create);

      assertThat(r.status()).isEqualTo(201);
      assertThat(executions).hasValue(2);
    }

    @Test
    void aClockThatStepsBackStillGivesARecordThatExpiresAfterItWasCreated() {
      IdempotencyHandler shortLived =
          IdempotencyHandler.builder(handler.config()).withExpiry(Duration.ofMillis(10)).build();

      shortLived.handle(
          request("k1"),
          r -> {
            now.addAndGet(-1_000);
            return create.apply(r);
          });

      IdempotencyRecord record = store.find(Digests.scope("tenant-a"), "k1", T0 - 1_000).get();
      assertThat(record.createdAtMillis()).isEqualTo(T0);
      assertThat(record.expiresAtMillis()).isEqualTo(T0 + 1);
    }

    @Test
    void purgeExpiredDeletesWhatHasExpiredAtTheClocksTime() {
      handler.handle(request("k1"), create);
      now.set(T0 + 1_000);
      handler.handle(request("k2"), create);

      now.set(T0 + DAY);
      assertThat(handler.purgeExpired()).isEqualTo(1);
      assertThat(store.size()).isEqualTo(1);
      now.set(T0 + DAY + 1_000);
      assertThat(handler.purgeExpired()).isEqualTo(1);
      assertThat(store.size()).isZero();
    }
  }

  @Nested
  class Failures {

    @Test
    void anOperationThatThrowsReleasesTheKeySoARetryExecutes() {
      IllegalStateException boom = new IllegalStateException("database down");

      assertThatThrownBy(
              () ->
                  handler.handle(
                      request("k1"),
                      r -> {
                        executions.incrementAndGet();
                        throw boom;
                      }))
          .isSameAs(boom);
      assertThat(store.size()).isZero();

      IdempotencyResponse retry = handler.handle(request("k1"), create);
      assertThat(retry.status()).isEqualTo(201);
      assertThat(retry.isReplayed()).isFalse();
      assertThat(executions).hasValue(2);
    }

    @Test
    void anErrorAlsoReleasesTheKey() {
      LinkageError error = new LinkageError("class missing");

      assertThatThrownBy(
              () ->
                  handler.handle(
                      request("k1"),
                      r -> {
                        throw error;
                      }))
          .isSameAs(error);
      assertThat(store.size()).isZero();
    }

    @Test
    void anOperationReturningNullReleasesTheKey() {
      assertThatThrownBy(() -> handler.handle(request("k1"), r -> null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("operation returned null");
      assertThat(store.size()).isZero();
    }

    @Test
    void aStoreFailureOnReleaseIsAttachedToTheOperationsFailure() {
      FailingStore failing = new FailingStore(store);
      failing.failRelease = true;
      IdempotencyHandler h =
          IdempotencyHandler.builder().withStore(failing).withClock(now::get).build();
      IllegalStateException boom = new IllegalStateException("boom");

      assertThatThrownBy(
              () ->
                  h.handle(
                      request("k1"),
                      r -> {
                        throw boom;
                      }))
          .isSameAs(boom);
      assertThat(boom.getSuppressed()).hasSize(1);
      assertThat(boom.getSuppressed()[0]).hasMessage("release failed");
    }

    @Test
    void aStoreFailureOnBeginPropagatesAndTheOperationDoesNotRun() {
      FailingStore failing = new FailingStore(store);
      failing.failBegin = true;
      IdempotencyHandler h =
          IdempotencyHandler.builder().withStore(failing).withClock(now::get).build();

      assertThatThrownBy(() -> h.handle(request("k1"), create)).hasMessage("begin failed");
      assertThat(executions).hasValue(0);
    }

    @Test
    void aStoreFailureOnCompletePropagatesAfterTheOperationRan() {
      FailingStore failing = new FailingStore(store);
      failing.failComplete = true;
      IdempotencyHandler h =
          IdempotencyHandler.builder().withStore(failing).withClock(now::get).build();

      assertThatThrownBy(() -> h.handle(request("k1"), create)).hasMessage("complete failed");
      assertThat(executions).hasValue(1);
    }

    @Test
    void nullArgumentsAreRejected() {
      assertThatThrownBy(() -> handler.handle(null, create))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("request cannot be null");
      assertThatThrownBy(() -> handler.handle(request("k"), null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("operation cannot be null");
      assertThatThrownBy(() -> handler.handleAsync(null, r -> null))
          .hasMessage("request cannot be null");
      assertThatThrownBy(() -> handler.handleAsync(request("k"), null))
          .hasMessage("operation cannot be null");
    }
  }

  /** Delegates to a real store and fails the chosen operation. */
  static final class FailingStore implements IdempotencyStore {
    final IdempotencyStore delegate;
    boolean failBegin;
    boolean failComplete;
    boolean failRelease;

    FailingStore(IdempotencyStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public Optional<IdempotencyRecord> begin(IdempotencyRecord inFlight, long nowMillis) {
      if (failBegin) {
        throw new IllegalStateException("begin failed");
      }
      return delegate.begin(inFlight, nowMillis);
    }

    @Override
    public boolean complete(IdempotencyRecord completed) {
      if (failComplete) {
        throw new IllegalStateException("complete failed");
      }
      return delegate.complete(completed);
    }

    @Override
    public boolean release(IdempotencyRecord inFlight) {
      if (failRelease) {
        throw new IllegalStateException("release failed");
      }
      return delegate.release(inFlight);
    }

    @Override
    public Optional<IdempotencyRecord> find(String scope, String key, long nowMillis) {
      return delegate.find(scope, key, nowMillis);
    }

    @Override
    public long purgeExpired(long nowMillis) {
      return delegate.purgeExpired(nowMillis);
    }
  }
}
