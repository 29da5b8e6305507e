package dev.relent.http.jdk;

import dev.relent.http.AttemptRecord;
import dev.relent.http.Decision;
import dev.relent.http.HeaderLookup;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.adapter.HttpCall;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/** A JDK response with its call's context and attempt number; delegates everything else. */
final class TrackedResponse<T> implements RelentHttpResponse<T> {
  final HttpResponse<T> delegate;
  final HttpCall call;
  final int attempt;
  private final HeaderLookup headerLookup;

  TrackedResponse(HttpResponse<T> delegate, HttpCall call, int attempt) {
    this.delegate = delegate;
    this.call = call;
    this.attempt = attempt;
    this.headerLookup = HeaderLookup.of(delegate.headers());
  }

  /** Its headers as the loop reads them: one view, however often they are asked for. */
  HeaderLookup headerLookup() {
    return headerLookup;
  }

  @Override
  public int attempts() {
    return attempt;
  }

  @Override
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(call.key());
  }

  @Override
  public Decision decision() {
    return call.decision().orElse(null);
  }

  @Override
  public List<AttemptRecord> attemptRecords() {
    return call.attemptRecords();
  }

  @Override
  public int statusCode() {
    return delegate.statusCode();
  }

  @Override
  public HttpRequest request() {
    return delegate.request();
  }

  @Override
  public Optional<HttpResponse<T>> previousResponse() {
    return delegate.previousResponse();
  }

  @Override
  public HttpHeaders headers() {
    return delegate.headers();
  }

  @Override
  public T body() {
    return delegate.body();
  }

  @Override
  public Optional<SSLSession> sslSession() {
    return delegate.sslSession();
  }

  @Override
  public URI uri() {
    return delegate.uri();
  }

  @Override
  public HttpClient.Version version() {
    return delegate.version();
  }

  @Override
  public String toString() {
    return "("
        + call.method()
        + " "
        + call.endpoint()
        + ") "
        + delegate.statusCode()
        + " attempt "
        + attempt;
  }
}
