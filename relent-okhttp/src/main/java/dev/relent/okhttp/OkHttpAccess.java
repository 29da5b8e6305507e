package dev.relent.okhttp;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.Idempotency;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.ResponseAccess;
import okhttp3.Response;

/**
 * {@link ResponseAccess} for OkHttp: the call's method, URI, key and table come from the {@link
 * HttpCall} tag on the response's request (OkHttp keeps tags across its own follow-ups); responses
 * without one are read from their request as it is.
 */
final class OkHttpAccess implements ResponseAccess<Response> {
  static final OkHttpAccess INSTANCE = new OkHttpAccess();

  private OkHttpAccess() {}

  private static HttpCall call(Response response) {
    return response.request().tag(HttpCall.class);
  }

  @Override
  public String method(Response response) {
    HttpCall call = call(response);
    return call != null ? call.method() : response.request().method();
  }

  @Override
  public String uri(Response response) {
    HttpCall call = call(response);
    return call != null ? call.uri() : response.request().url().toString();
  }

  @Override
  public boolean keyed(Response response) {
    HttpCall call = call(response);
    return call != null
        ? call.key() != null
        : response.request().header(Idempotency.HEADER) != null;
  }

  @Override
  public int status(Response response) {
    return response.code();
  }

  @Override
  public HeaderLookup headers(Response response) {
    // Not Response.header(name), which gives the last value: the lookup promises the first.
    return HeaderLookup.ofValues(response::headers);
  }

  @Override
  public DecisionTable table(Response response) {
    HttpCall call = call(response);
    return call != null ? call.table() : null;
  }
}
