package dev.relent.http.jdk;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a body that will probably be retried fully into memory, up to a limit, before the response
 * is handed on, so that its connection is free before the executor waits; then replays the bytes
 * into the caller's own subscriber, so the caller still gets its body type.
 *
 * <p>Design: upstream (the JDK client) pushes into a byte array; on completion the bytes are
 * offered to the downstream subscriber through a one-shot subscription that delivers everything on
 * the first request. Past the limit the upstream is cancelled (the client closes the connection)
 * and the first {@code limit} bytes are delivered. The JDK calls the upstream methods serially, so
 * no lock is needed; {@link #done} publishes the bytes to the replaying thread.
 */
final class BufferedSubscriber<T> implements BodySubscriber<T> {
  private final BodySubscriber<T> downstream;
  private final int limit;
  private final CompletableFuture<byte[]> done = new CompletableFuture<>();
  private final CompletionStage<T> body;
  private byte[] bytes = new byte[256];
  private int size;
  private Flow.Subscription upstream;

  BufferedSubscriber(BodySubscriber<T> downstream, int limit) {
    this.downstream = downstream;
    this.limit = limit;
    // Composed once: the JDK may ask for the body stage more than once, the bytes replay once.
    this.body =
        done.thenCompose(
            bytes -> {
              replay(bytes);
              return downstream.getBody();
            });
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.upstream = subscription;
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (done.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      int n = Math.min(item.remaining(), limit - size);
      if (n > 0) {
        ensure(size + n);
        item.get(bytes, size, n);
        size += n;
      }
      if (item.hasRemaining()) {
        // Over the limit: stop reading; the client closes the connection.
        upstream.cancel();
        finish();
        return;
      }
    }
  }

  @Override
  public void onError(Throwable throwable) {
    if (!done.completeExceptionally(throwable)) {
      return;
    }
    downstream.onSubscribe(NoOp.INSTANCE);
    downstream.onError(throwable);
  }

  @Override
  public void onComplete() {
    finish();
  }

  private void finish() {
    byte[] copy = new byte[size];
    System.arraycopy(bytes, 0, copy, 0, size);
    bytes = null;
    done.complete(copy);
  }

  private void ensure(int capacity) {
    if (capacity > bytes.length) {
      byte[] grown = new byte[Math.min(limit, Math.max(capacity, bytes.length * 2))];
      System.arraycopy(bytes, 0, grown, 0, size);
      bytes = grown;
    }
  }

  private void replay(byte[] received) {
    downstream.onSubscribe(
        new Flow.Subscription() {
          private boolean delivered;

          @Override
          public synchronized void request(long n) {
            if (delivered || n <= 0) {
              return;
            }
            delivered = true;
            if (received.length > 0) {
              downstream.onNext(List.of(ByteBuffer.wrap(received)));
            }
            downstream.onComplete();
          }

          @Override
          public synchronized void cancel() {
            delivered = true;
          }
        });
  }

  /** A subscription that asks for nothing and cancels nothing: for a body that is already over. */
  enum NoOp implements Flow.Subscription {
    INSTANCE;

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}
  }
}
