package dev.relent.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/** A JDK response with its call's context and attempt number; delegates everything else. */
final class TrackedResponse<T> implements RelentHttpResponse<T> {
  final HttpResponse<T> delegate;
  final Call call;
  final int attempt;
  volatile Decision decision;

  TrackedResponse(HttpResponse<T> delegate, Call call, int attempt) {
    this.delegate = delegate;
    this.call = call;
    this.attempt = attempt;
  }

  @Override
  public int attempts() {
    return attempt;
  }

  @Override
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(call.key);
  }

  @Override
  public Decision decision() {
    return decision;
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
        + call.method
        + " "
        + call.endpoint
        + ") "
        + delegate.statusCode()
        + " attempt "
        + attempt;
  }
}
