package dev.relent.idempotency;

import static dev.relent.idempotency.IdempotencyHandlerTest.IN_FLIGHT_BODY;
import static dev.relent.idempotency.IdempotencyHandlerTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * 1000 real threads, released together, send the same request with the same key: the operation runs
 * exactly once. No sleeping: threads are released by a latch, and the blocking variant's operation
 * waits on a latch that the other threads count down.
 */
class IdempotencyConcurrencyTest {

  static final int THREADS = 1000;

  final AtomicLong now = new AtomicLong(IdempotencyHandlerTest.T0);
  final IdempotencyHandler handler =
      IdempotencyHandler.builder()
          .withStore(new InMemoryIdempotencyStore())
          .withClock(now::get)
          .build();
  final AtomicInteger executions = new AtomicInteger();

  /** Runs {@code call} on THREADS threads released together; returns the results by thread. */
  static <T> List<T> race(Function<Integer, T> call) throws InterruptedException {
    CountDownLatch ready = new CountDownLatch(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReferenceArray<T> results = new AtomicReferenceArray<>(THREADS);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      int id = i;
      Thread t =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  if (!go.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("start gate never opened");
                  }
                  results.set(id, call.apply(id));
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "duplicate-" + i);
      threads.add(t);
      t.start();
    }
    assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
    go.countDown();
    for (Thread t : threads) {
      t.join(60_000);
      assertThat(t.isAlive()).as(t.getName()).isFalse();
    }
    assertThat(failures).isEmpty();
    List<T> out = new ArrayList<>(THREADS);
    for (int i = 0; i < THREADS; i++) {
      out.add(results.get(i));
    }
    return out;
  }

  @Test
  void whileTheFirstRunsEveryDuplicateGets409() throws Exception {
    CountDownLatch othersAnswered = new CountDownLatch(THREADS - 1);
    Function<IdempotencyRequest, IdempotencyResponse> slow =
        r -> {
          executions.incrementAndGet();
          // Finish only after every other thread has its answer, so all of them met the claim.
          try {
            if (!othersAnswered.await(30, TimeUnit.SECONDS)) {
              throw new AssertionError("the other threads never answered");
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
          return IdempotencyResponse.builder(201).withBody("created").build();
        };

    List<IdempotencyResponse> responses =
        race(
            id -> {
              IdempotencyResponse r = handler.handle(request("same-key"), slow);
              if (r.status() == 409) {
                othersAnswered.countDown();
              }
              return r;
            });

    assertThat(executions).hasValue(1);
    assertThat(responses.stream().filter(r -> r.status() == 201).count()).isEqualTo(1);
    List<IdempotencyResponse> conflicts =
        responses.stream()
            .filter(r -> r.status() == 409)
            .collect(java.util.stream.Collectors.toList());
    assertThat(conflicts).hasSize(THREADS - 1);
    conflicts.forEach(r -> assertThat(r.bodyUtf8()).isEqualTo(IN_FLIGHT_BODY));
  }

  @Test
  void aFastOperationRunsOnceAndEveryoneElseGets409OrTheReplay() throws Exception {
    Function<IdempotencyRequest, IdempotencyResponse> fast =
        r -> {
          int n = executions.incrementAndGet();
          return IdempotencyResponse.builder(201).withBody("created " + n).build();
        };

    List<IdempotencyResponse> responses = race(id -> handler.handle(request("same-key"), fast));

    assertThat(executions).hasValue(1);
    int originals = 0;
    for (IdempotencyResponse r : responses) {
      if (r.status() == 409) {
        assertThat(r.bodyUtf8()).isEqualTo(IN_FLIGHT_BODY);
      } else if (r.isReplayed()) {
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.bodyUtf8()).isEqualTo("created 1");
      } else {
        assertThat(r.bodyUtf8()).isEqualTo("created 1");
        originals++;
      }
    }
    assertThat(originals).isEqualTo(1);
  }

  @Test
  void asyncDuplicatesStartTheOperationOnce() throws Exception {
    CompletableFuture<IdempotencyResponse> pending = new CompletableFuture<>();
    Function<IdempotencyRequest, CompletionStage<IdempotencyResponse>> later =
        r -> {
          executions.incrementAndGet();
          return pending;
        };

    List<CompletableFuture<IdempotencyResponse>> stages =
        race(id -> handler.handleAsync(request("same-key"), later).toCompletableFuture());

    assertThat(executions).hasValue(1);
    assertThat(stages.stream().filter(CompletableFuture::isDone).count()).isEqualTo(THREADS - 1);
    stages.stream()
        .filter(CompletableFuture::isDone)
        .forEach(s -> assertThat(s.join().status()).isEqualTo(409));

    pending.complete(IdempotencyResponse.builder(201).withBody("done").build());

    assertThat(stages.stream().filter(s -> s.join().status() == 201).count()).isEqualTo(1);
    assertThat(
            handler
                .handleAsync(request("same-key"), later)
                .toCompletableFuture()
                .join()
                .isReplayed())
        .isTrue();
  }

  @Test
  void distinctKeysAllExecute() throws Exception {
    Function<IdempotencyRequest, IdempotencyResponse> fast =
        r -> {
          executions.incrementAndGet();
          return IdempotencyResponse.builder(200).build();
        };

    List<IdempotencyResponse> responses = race(id -> handler.handle(request("key-" + id), fast));

    assertThat(executions).hasValue(THREADS);
    assertThat(responses).allSatisfy(r -> assertThat(r.isReplayed()).isFalse());
  }
}
