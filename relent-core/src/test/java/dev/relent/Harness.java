package dev.relent;

import dev.relent.guard.Scope;
import dev.relent.time.FakeTime;
import dev.relent.time.ManualScheduler;
import dev.relent.time.RecordingSleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * Runs one executor script in either mode on fake time, so that a single test body checks that
 * synchronous and asynchronous executions behave the same: same attempts at the same instants, same
 * waits, same outcome.
 */
final class Harness<R> {
  /** How the operation is run. */
  enum Mode {
    SYNC,
    ASYNC
  }

  /** One scripted attempt: returns a result or throws. */
  @FunctionalInterface
  interface Script<R> {
    R attempt(AttemptContext context) throws Exception;
  }

  final Mode mode;
  final FakeTime time;
  final RecordingSleeper sleeper;
  final ManualScheduler scheduler;
  final List<Long> attemptTimes = Collections.synchronizedList(new ArrayList<>());
  final List<RelentEvent<R>> events = Collections.synchronizedList(new ArrayList<>());
  final RelentExecutor<R> executor;

  Harness(Mode mode, RetryPolicy policy) {
    this(mode, policy, b -> b);
  }

  Harness(Mode mode, RetryPolicy policy, UnaryOperator<RelentExecutor.Builder<R>> customize) {
    this(mode, policy, new FakeTime(), customize);
  }

  Harness(
      Mode mode,
      RetryPolicy policy,
      FakeTime time,
      UnaryOperator<RelentExecutor.Builder<R>> customize) {
    this.mode = mode;
    this.time = time;
    this.sleeper = time.sleeper();
    this.scheduler = time.scheduler();
    RelentExecutor.Builder<R> builder =
        RelentExecutor.<R>builder(policy).withTime(time).onEvent(events::add);
    this.executor = customize.apply(builder).build();
  }

  /** Runs the script to completion; returns the result or throws what the call threw. */
  R run(Script<R> script) {
    return run(List.of(), script);
  }

  /** Runs the script under the given scopes, as {@link #run(Script)} does. */
  R run(List<Scope> scopes, Script<R> script) {
    if (!scopes.isEmpty()) {
      if (mode == Mode.SYNC) {
        return executor.get(
            scopes,
            ctx -> {
              attemptTimes.add(time.read());
              return script.attempt(ctx);
            },
            null);
      }
      return join(start(scopes, script));
    }
    if (mode == Mode.SYNC) {
      return executor.get(
          (AttemptContext ctx) -> {
            attemptTimes.add(time.read());
            return script.attempt(ctx);
          });
    }
    return join(start(script));
  }

  private R join(CompletableFuture<R> future) {
    scheduler.runUntilIdle();
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw e;
    }
  }

  /** Starts the script asynchronously without driving the scheduler. */
  CompletableFuture<R> start(Script<R> script) {
    return executor.getAsync(
        ctx -> {
          attemptTimes.add(time.read());
          try {
            return CompletableFuture.completedFuture(script.attempt(ctx));
          } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
          }
        });
  }

  /** Starts the script asynchronously under the given scopes without driving the scheduler. */
  CompletableFuture<R> start(List<Scope> scopes, Script<R> script) {
    return executor.getAsync(
        scopes,
        ctx -> {
          attemptTimes.add(time.read());
          try {
            return CompletableFuture.completedFuture(script.attempt(ctx));
          } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
          }
        },
        null);
  }

  /** The waits chosen before each retry, as the executor reported them. */
  List<Duration> retryWaits() {
    List<Duration> waits = new ArrayList<>();
    synchronized (events) {
      for (RelentEvent<R> e : events) {
        if (e.type() == RelentEvent.Type.RETRY) {
          waits.add(e.waitTime().orElseThrow());
        }
      }
    }
    return waits;
  }

  /** The gaps between consecutive attempt starts. */
  List<Duration> gaps() {
    List<Duration> gaps = new ArrayList<>();
    synchronized (attemptTimes) {
      for (int i = 1; i < attemptTimes.size(); i++) {
        gaps.add(Duration.ofNanos(attemptTimes.get(i) - attemptTimes.get(i - 1)));
      }
    }
    return gaps;
  }

  /** A script that answers the given results in turn, the last one repeating. */
  @SafeVarargs
  static <R> Script<R> answers(R... results) {
    int[] next = {0};
    return ctx -> results[Math.min(next[0]++, results.length - 1)];
  }
}
