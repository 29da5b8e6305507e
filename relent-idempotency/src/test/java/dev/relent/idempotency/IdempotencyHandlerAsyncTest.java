package dev.relent.idempotency;

import static dev.relent.idempotency.IdempotencyHandlerTest.IN_FLIGHT_BODY;
import static dev.relent.idempotency.IdempotencyHandlerTest.REUSED_BODY;
import static dev.relent.idempotency.IdempotencyHandlerTest.assertProblem;
import static dev.relent.idempotency.IdempotencyHandlerTest.post;
import static dev.relent.idempotency.IdempotencyHandlerTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The async variant: the operation answers with a stage that the test completes by hand. */
class IdempotencyHandlerAsyncTest {

  final AtomicLong now = new AtomicLong(IdempotencyHandlerTest.T0);
  final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  final IdempotencyHandler handler =
      IdempotencyHandler.builder().withStore(store).withClock(now::get).build();
  final AtomicInteger executions = new AtomicInteger();
  final CompletableFuture<IdempotencyResponse> pending = new CompletableFuture<>();

  /** Counts executions and answers with {@link #pending}, which the test completes. */
  final Function<IdempotencyRequest, CompletionStage<IdempotencyResponse>> later =
      r -> {
        executions.incrementAndGet();
        return pending;
      };

  static IdempotencyResponse created(String body) {
    return IdempotencyResponse.builder(201).withHeader("Location", "/p/1").withBody(body).build();
  }

  static IdempotencyResponse join(CompletionStage<IdempotencyResponse> stage) {
    return stage.toCompletableFuture().join();
  }

  @Test
  void theResultArrivesWhenTheOperationsStageCompletesAndIsThenReplayed() {
    CompletableFuture<IdempotencyResponse> first =
        handler.handleAsync(request("k1"), later).toCompletableFuture();
    assertThat(first).isNotDone();

    pending.complete(created("{\"id\":1}"));

    assertThat(join(first).bodyUtf8()).isEqualTo("{\"id\":1}");
    assertThat(join(first).isReplayed()).isFalse();
    IdempotencyResponse replay = join(handler.handleAsync(request("k1"), later));
    assertThat(replay.isReplayed()).isTrue();
    assertThat(replay.bodyUtf8()).isEqualTo("{\"id\":1}");
    assertThat(replay.header("location")).contains("/p/1");
    assertThat(executions).hasValue(1);
  }

  @Test
  void aDuplicateWhileTheStageIsPendingGets409AtOnce() {
    handler.handleAsync(request("k1"), later);

    CompletableFuture<IdempotencyResponse> dup =
        handler.handleAsync(request("k1"), later).toCompletableFuture();

    assertThat(dup).isDone();
    assertProblem(dup.join(), 409, IN_FLIGHT_BODY);
    assertThat(executions).hasValue(1);
  }

  @Test
  void aMismatchWhileThePendingGets422() {
    handler.handleAsync(request("k1"), later);

    assertProblem(
        join(handler.handleAsync(post("k1").withBody(new byte[] {1}).build(), later)),
        422,
        REUSED_BODY);
  }

  @Test
  void aFailedStageReleasesTheKeyAndFailsTheResult() {
    CompletableFuture<IdempotencyResponse> first =
        handler.handleAsync(request("k1"), later).toCompletableFuture();
    IllegalStateException boom = new IllegalStateException("boom");

    pending.completeExceptionally(boom);

    assertThat(first).isCompletedExceptionally();
    assertThat(first.handle((r, t) -> t).join()).isSameAs(boom);
    assertThat(store.size()).isZero();
    IdempotencyResponse retry =
        join(
            handler.handleAsync(
                request("k1"), r -> CompletableFuture.completedFuture(created("again"))));
    assertThat(retry.bodyUtf8()).isEqualTo("again");
  }

  @Test
  void anOperationThatThrowsInsteadOfReturningAStageReleasesTheKey() {
    IllegalArgumentException boom = new IllegalArgumentException("bad");

    CompletableFuture<IdempotencyResponse> r =
        handler
            .handleAsync(
                request("k1"),
                req -> {
                  throw boom;
                })
            .toCompletableFuture();

    assertThat(r.handle((x, t) -> t).join()).isSameAs(boom);
    assertThat(store.size()).isZero();
  }

  @Test
  void aNullStageOrANullResponseIsAFailureThatReleasesTheKey() {
    CompletableFuture<IdempotencyResponse> nullStage =
        handler.handleAsync(request("k1"), req -> null).toCompletableFuture();
    CompletableFuture<IdempotencyResponse> nullResponse =
        handler
            .handleAsync(request("k2"), req -> CompletableFuture.completedFuture(null))
            .toCompletableFuture();

    assertThat(nullStage.handle((x, t) -> t).join())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("operation returned a null stage");
    assertThat(nullResponse.handle((x, t) -> t).join())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("operation completed with null");
    assertThat(store.size()).isZero();
  }

  @Test
  void problemsComeBackAsCompletedStagesWithoutRunningTheOperation() {
    IdempotencyHandler strict =
        IdempotencyHandler.builder(handler.config()).withKeyRequired(true).build();

    assertThat(join(strict.handleAsync(request(null), later)).status()).isEqualTo(400);
    assertThat(join(handler.handleAsync(request(""), later)).status()).isEqualTo(400);
    assertThat(executions).hasValue(0);
  }

  @Test
  void withoutAKeyTheOperationsOwnStagePassesThrough() {
    CompletionStage<IdempotencyResponse> r = handler.handleAsync(request(null), later);

    assertThat(r).isSameAs(pending);
    assertThat(store.size()).isZero();
  }

  @Test
  void storeFailuresFailTheStage() {
    IdempotencyHandlerTest.FailingStore failing = new IdempotencyHandlerTest.FailingStore(store);
    IdempotencyHandler h =
        IdempotencyHandler.builder().withStore(failing).withClock(now::get).build();

    failing.failBegin = true;
    CompletableFuture<IdempotencyResponse> begin =
        h.handleAsync(request("k1"), later).toCompletableFuture();
    assertThat(begin.handle((x, t) -> t).join()).hasMessage("begin failed");
    assertThat(executions).hasValue(0);

    failing.failBegin = false;
    failing.failComplete = true;
    CompletableFuture<IdempotencyResponse> complete =
        h.handleAsync(request("k1"), later).toCompletableFuture();
    pending.complete(created("x"));
    assertThat(complete.handle((x, t) -> t).join()).hasMessage("complete failed");
  }

  @Test
  void aStageCompletedOnAnotherThreadStoresTheResponse() throws Exception {
    CompletableFuture<IdempotencyResponse> first =
        handler.handleAsync(request("k1"), later).toCompletableFuture();
    Thread completer = new Thread(() -> pending.complete(created("from elsewhere")));
    completer.start();
    completer.join(10_000);

    assertThat(join(first).bodyUtf8()).isEqualTo("from elsewhere");
    assertThat(join(handler.handleAsync(request("k1"), later)).isReplayed()).isTrue();
  }

  @Test
  void joinRethrowsWrapped() {
    CompletableFuture<IdempotencyResponse> first =
        handler.handleAsync(request("k1"), later).toCompletableFuture();
    pending.completeExceptionally(new IllegalStateException("x"));

    org.assertj.core.api.Assertions.assertThatThrownBy(first::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }
}
