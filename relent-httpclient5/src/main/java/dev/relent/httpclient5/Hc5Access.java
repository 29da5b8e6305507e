package dev.relent.httpclient5;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.ResponseAccess;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;

/**
 * {@link ResponseAccess} for Apache HttpClient 5 classic responses. A response carries no link to
 * its request, so the method, URI, key and table come from the {@link TrackedResponse} the handler
 * makes of every attempt's response; any other response counts as an unkeyed request of unknown
 * method (so it is never re-sent after it may have reached the server).
 */
final class Hc5Access implements ResponseAccess<ClassicHttpResponse> {
  static final Hc5Access INSTANCE = new Hc5Access();

  private Hc5Access() {}

  @Override
  public String method(ClassicHttpResponse response) {
    return response instanceof TrackedResponse ? ((TrackedResponse) response).call.method : "-";
  }

  @Override
  public String uri(ClassicHttpResponse response) {
    return response instanceof TrackedResponse ? ((TrackedResponse) response).call.uri : "-";
  }

  @Override
  public boolean keyed(ClassicHttpResponse response) {
    return response instanceof TrackedResponse && ((TrackedResponse) response).call.key != null;
  }

  @Override
  public int status(ClassicHttpResponse response) {
    return response.getCode();
  }

  @Override
  public HeaderLookup headers(ClassicHttpResponse response) {
    return name -> {
      Header h = response.getFirstHeader(name);
      return h == null ? null : h.getValue();
    };
  }

  @Override
  public DecisionTable table(ClassicHttpResponse response) {
    return response instanceof TrackedResponse ? ((TrackedResponse) response).call.table : null;
  }
}
