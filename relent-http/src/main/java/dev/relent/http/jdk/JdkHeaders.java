package dev.relent.http.jdk;

import dev.relent.http.HeaderLookup;
import java.net.http.HttpHeaders;
import java.util.List;

/**
 * The JDK client's headers as a {@link HeaderLookup}, read without a stream: {@link
 * HttpHeaders#firstValue} makes one per call, and a response's headers are looked up a few dozen
 * times (the decision table, the server hints, the attempt record), so that was most of what a
 * successful call allocated here. Case-insensitive as {@link HttpHeaders} is. Thread-safe.
 */
final class JdkHeaders implements HeaderLookup {
  private final HttpHeaders headers;

  JdkHeaders(HttpHeaders headers) {
    this.headers = headers;
  }

  @Override
  public String first(String name) {
    List<String> values = headers.allValues(name);
    return values.isEmpty() ? null : values.get(0);
  }

  @Override
  public List<String> all(String name) {
    return headers.allValues(name);
  }
}
