package dev.relent.httpclient5;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.ResponseAccess;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;

/**
 * {@link ResponseAccess} for Apache HttpClient 5 responses, classic and async. A response carries
 * no link to its request, so the method, URI, key and table come from the {@link HttpCall} of the
 * {@link Tracked} response the handlers make of every attempt's response; any other response counts
 * as an unkeyed request of unknown method (so it is never re-sent after it may have reached the
 * server).
 */
final class Hc5Access implements ResponseAccess<HttpResponse> {
  static final Hc5Access INSTANCE = new Hc5Access();

  private Hc5Access() {}

  /** A response the handlers made, with the call it answered. */
  interface Tracked {
    HttpCall call();
  }

  private static HttpCall call(HttpResponse response) {
    return response instanceof Tracked ? ((Tracked) response).call() : null;
  }

  @Override
  public String method(HttpResponse response) {
    HttpCall call = call(response);
    return call != null ? call.method() : "-";
  }

  @Override
  public String uri(HttpResponse response) {
    HttpCall call = call(response);
    return call != null ? call.uri() : "-";
  }

  @Override
  public boolean keyed(HttpResponse response) {
    HttpCall call = call(response);
    return call != null && call.key() != null;
  }

  @Override
  public int status(HttpResponse response) {
    return response.getCode();
  }

  @Override
  public HeaderLookup headers(HttpResponse response) {
    return new HeaderLookup() {
      @Override
      public String first(String name) {
        Header h = response.getFirstHeader(name);
        return h == null ? null : h.getValue();
      }

      @Override
      public List<String> all(String name) {
        List<String> out = new ArrayList<>();
        for (Header h : response.getHeaders(name)) {
          out.add(h.getValue());
        }
        return out;
      }
    };
  }

  @Override
  public DecisionTable table(HttpResponse response) {
    HttpCall call = call(response);
    return call != null ? call.table() : null;
  }
}
