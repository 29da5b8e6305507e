package dev.relent.http.adapter;

import dev.relent.RelentCounters;
import dev.relent.RelentExecutor;
import java.util.Objects;

/**
 * What every Relent HTTP adapter offers besides its client's own interface: the executor its calls
 * share, the HTTP semantics it judges them by, and the counters. An adapter extends it with the
 * {@link HttpCallLoop} its builder made.
 *
 * <p>Immutable and thread-safe, as the loop is.
 *
 * @param <R> the client's response type
 */
public abstract class HttpAdapter<R> {
  private final HttpCallLoop<R> loop;

  /**
   * Creates the adapter around its loop.
   *
   * @param loop the loop from {@link HttpAdapterBuilder#buildLoop}
   * @throws NullPointerException if {@code loop} is null
   */
  protected HttpAdapter(HttpCallLoop<R> loop) {
    this.loop = Objects.requireNonNull(loop, "loop cannot be null");
  }

  /**
   * Returns the loop every call runs through.
   *
   * @return the loop
   */
  protected final HttpCallLoop<R> loop() {
    return loop;
  }

  /**
   * Returns the executor every call runs under, shared by all calls of this adapter.
   *
   * @return the executor
   */
  public final RelentExecutor<R> executor() {
    return loop.executor();
  }

  /**
   * Returns the HTTP semantics this adapter uses: its table, hint reader and redactor.
   *
   * @return the outcomes
   */
  public final HttpOutcomes<R> outcomes() {
    return loop.outcomes();
  }

  /**
   * Returns a snapshot of the counters: first attempts, retries, successes, final failures.
   *
   * @return a new snapshot
   */
  public final RelentCounters counters() {
    return loop.executor().counters();
  }
}
