package dev.relent.http.jdk;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.Idempotency;
import dev.relent.http.adapter.ResponseAccess;
import java.net.http.HttpResponse;

/** {@link ResponseAccess} for the JDK client, aware of {@link TrackedResponse}'s call context. */
final class JdkAccess implements ResponseAccess<HttpResponse<?>> {
  static final JdkAccess INSTANCE = new JdkAccess();

  private JdkAccess() {}

  @Override
  public String method(HttpResponse<?> response) {
    if (response instanceof TrackedResponse) {
      return ((TrackedResponse<?>) response).call.method();
    }
    return response.request().method();
  }

  @Override
  public String uri(HttpResponse<?> response) {
    if (response instanceof TrackedResponse) {
      return ((TrackedResponse<?>) response).call.uri();
    }
    return String.valueOf(response.request().uri());
  }

  @Override
  public boolean keyed(HttpResponse<?> response) {
    if (response instanceof TrackedResponse) {
      return ((TrackedResponse<?>) response).call.key() != null;
    }
    return response.request().headers().firstValue(Idempotency.HEADER).isPresent();
  }

  @Override
  public int status(HttpResponse<?> response) {
    return response.statusCode();
  }

  @Override
  public HeaderLookup headers(HttpResponse<?> response) {
    if (response instanceof TrackedResponse) {
      return ((TrackedResponse<?>) response).headerLookup();
    }
    return HeaderLookup.of(response.headers());
  }

  @Override
  public DecisionTable table(HttpResponse<?> response) {
    if (response instanceof TrackedResponse) {
      return ((TrackedResponse<?>) response).call.table();
    }
    return null;
  }
}
