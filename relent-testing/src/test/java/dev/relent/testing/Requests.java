package dev.relent.testing;

import dev.relent.mockserver.MockServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Requests sent by hand, with no retries, for tests that drive the mock server themselves. */
final class Requests {
  private Requests() {}

  /** Sends a GET with the given header names and values, in pairs; returns the status. */
  static int get(HttpClient client, MockServer server, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(server.uri(path));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
