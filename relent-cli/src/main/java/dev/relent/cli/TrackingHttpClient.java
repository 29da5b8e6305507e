package dev.relent.cli;

import dev.relent.time.Ticker;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A JDK {@link HttpClient} that tells when each network attempt starts and ends: the batch's view
 * of what is really on the wire. {@code RelentHttpClient} sends every attempt through {@link
 * #sendAsync(HttpRequest, HttpResponse.BodyHandler)}, on the thread of the caller of {@code send},
 * after the concurrency limit and the pacer let it go; so the start times seen here are the
 * attempts' real starts (their spacing is the pacing achieved), and the attempts not yet completed
 * are the concurrency achieved.
 *
 * <p>The future handed back is the JDK's own, so that cancelling it (an attempt timeout) cancels
 * the exchange. Thread-safe.
 */
final class TrackingHttpClient extends HttpClient {

  /** Told on the calling thread when an attempt starts. */
  interface StartListener {
    void started(HttpRequest request, long startNanos);
  }

  private final HttpClient delegate;
  private final Ticker ticker;
  private final StartListener listener;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final LongAdder completed = new LongAdder();
  private final LongAdder busyNanos = new LongAdder();

  TrackingHttpClient(HttpClient delegate, Ticker ticker, StartListener listener) {
    this.delegate = delegate;
    this.ticker = ticker;
    this.listener = listener;
  }

  /** Attempts started and not yet completed. */
  int inFlight() {
    return inFlight.get();
  }

  /** The most attempts in flight at once. */
  int peakInFlight() {
    return peak.get();
  }

  /** Mean attempt duration in nanoseconds, or -1 before the first completes. */
  long meanAttemptNanos() {
    long n = completed.sum();
    return n == 0 ? -1 : busyNanos.sum() / n;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    long start = ticker.read();
    int now = inFlight.incrementAndGet();
    peak.accumulateAndGet(now, Math::max);
    listener.started(request, start);
    CompletableFuture<HttpResponse<T>> sent;
    try {
      sent = delegate.sendAsync(request, handler);
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      throw e;
    }
    sent.whenComplete(
        (r, e) -> {
          inFlight.decrementAndGet();
          completed.increment();
          busyNanos.add(Math.max(0L, ticker.read() - start));
        });
    return sent;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> push) {
    return sendAsync(request, handler);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    // RelentHttpClient only uses sendAsync; a synchronous send is counted the same way.
    try {
      return sendAsync(request, handler).get();
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException) {
        throw (IOException) c;
      }
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new IOException(c);
    }
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }
}
