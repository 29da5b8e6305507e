package dev.relent.proxy;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.adapter.ResponseAccess;

/** How the attempt loop reads a {@link ProxyResponse}. Stateless and thread-safe. */
enum ProxyAccess implements ResponseAccess<ProxyResponse> {
  INSTANCE;

  @Override
  public String method(ProxyResponse response) {
    return response.method();
  }

  @Override
  public String uri(ProxyResponse response) {
    return response.uri();
  }

  @Override
  public boolean keyed(ProxyResponse response) {
    return response.keyed();
  }

  @Override
  public int status(ProxyResponse response) {
    return response.status();
  }

  @Override
  public HeaderLookup headers(ProxyResponse response) {
    return response.headers();
  }

  @Override
  public DecisionTable table(ProxyResponse response) {
    return response.table();
  }
}
