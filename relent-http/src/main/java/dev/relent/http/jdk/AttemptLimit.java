package dev.relent.http.jdk;

import dev.relent.time.Durations;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The time limit of one synchronous attempt over the body as well as the headers: the JDK applies
 * {@code HttpRequest.timeout} to the response headers only, so a body that stalls after them would
 * hold the caller's thread for as long as the server likes. This bounds the whole exchange, from
 * the send to the body's end, by the attempt's time.
 *
 * <p>Design. One timer per attempt, started with the send ({@link CompletableFuture#orTimeout}: the
 * JDK's own delay thread, real time like the JDK's header timeout, no thread of a pool woken unless
 * it fires) and cancelled when the send returns ({@link #finish}). When it fires before the body is
 * complete, the body's subscription is cancelled (the client closes the connection), the caller's
 * subscriber is told of the timeout, and the body stage the client waits on fails with an {@link
 * HttpTimeoutException}: {@code HttpClient.send} then throws it. A body type complete before its
 * bytes are read ({@code ofInputStream}, {@code ofPublisher}) is handed over when the headers
 * arrive; from then on the caller reads it in its own time, as from the JDK client itself.
 *
 * <p>Thread-safety: the client calls the subscriber's methods serially, the timer fires on another
 * thread; both go through the subscriber's monitor, so the caller's subscriber never sees two
 * signals at once nor one after its {@code onError}.
 */
final class AttemptLimit {
  private final long timeoutNanos;
  private final CompletableFuture<Void> timer = new CompletableFuture<>();

  /** The body being read, once the headers are in; guarded by this. */
  private Limited<?> body;

  /** Whether the time ran out; guarded by this. */
  private boolean expired;

  private AttemptLimit(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Starts the limit of an attempt now.
   *
   * @param timeoutNanos what the attempt may take, send to the body's end
   * @return the running limit; {@link #finish} it when the send returns or fails
   */
  static AttemptLimit start(long timeoutNanos) {
    AttemptLimit limit = new AttemptLimit(timeoutNanos);
    limit.timer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    limit.timer.whenComplete(
        (ignored, failure) -> {
          if (failure != null) {
            limit.expire();
          }
        });
    return limit;
  }

  /** The body handler of this attempt: the given one, its subscriber bounded by the limit. */
  <T> BodyHandler<T> bound(BodyHandler<T> handler) {
    return info -> {
      Limited<T> limited = new Limited<>(handler.apply(info));
      boolean late;
      synchronized (this) {
        body = limited;
        late = expired;
      }
      if (late) {
        limited.expire(timeout());
      }
      return limited;
    };
  }

  /**
   * Ends the limit: the send returned or failed. Cancels the timer; a body handed over by then (a
   * stream the caller reads) is the caller's, with no limit.
   */
  void finish() {
    timer.complete(null);
  }

  /** The time ran out: cuts off the body, now or when it begins, unless it is complete. */
  void expire() {
    Limited<?> b;
    synchronized (this) {
      expired = true;
      b = body;
    }
    if (b != null) {
      b.expire(timeout());
    }
  }

  /** What a cut-off attempt throws. */
  HttpTimeoutException timeout() {
    return new HttpTimeoutException(
        "no complete response within " + Durations.format(timeoutNanos));
  }

  /** The caller's subscriber, whose body stage also fails when the time runs out. */
  private static final class Limited<T> implements BodySubscriber<T> {
    private final BodySubscriber<T> downstream;
    private final CompletableFuture<T> body = new CompletableFuture<>();
    private Flow.Subscription upstream;
    private boolean subscribed;
    private boolean ended;

    Limited(BodySubscriber<T> downstream) {
      this.downstream = downstream;
      downstream
          .getBody()
          .whenComplete(
              (value, failure) -> {
                if (failure == null) {
                  body.complete(value);
                } else {
                  body.completeExceptionally(failure);
                }
              });
    }

    @Override
    public CompletionStage<T> getBody() {
      return body;
    }

    @Override
    public synchronized void onSubscribe(Flow.Subscription subscription) {
      if (ended) {
        subscription.cancel();
        return;
      }
      upstream = subscription;
      subscribed = true;
      downstream.onSubscribe(subscription);
    }

    @Override
    public synchronized void onNext(List<ByteBuffer> item) {
      if (!ended) {
        downstream.onNext(item);
      }
    }

    @Override
    public synchronized void onError(Throwable throwable) {
      if (!ended) {
        ended = true;
        downstream.onError(throwable);
      }
    }

    @Override
    public synchronized void onComplete() {
      if (!ended) {
        ended = true;
        downstream.onComplete();
      }
    }

    /** The time ran out: unless the body is complete, cut it off. */
    void expire(HttpTimeoutException timeout) {
      Flow.Subscription cut;
      synchronized (this) {
        if (ended || body.isDone()) {
          return;
        }
        ended = true;
        cut = upstream;
      }
      // Outside the monitor: the client's cancel takes locks of its own. The connection is cut
      // before anyone hears of the failure, so that a caller told of it reads nothing more.
      if (cut != null) {
        cut.cancel();
      }
      synchronized (this) {
        // Ended: the client's own signals are dropped from here on, so this is the last one.
        if (!subscribed) {
          downstream.onSubscribe(BufferedSubscriber.NoOp.INSTANCE);
        }
        downstream.onError(timeout);
      }
      body.completeExceptionally(timeout);
    }
  }
}
