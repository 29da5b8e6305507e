package dev.relent.http.contract;

import dev.relent.http.RelentHttpResponse;
import dev.relent.http.jdk.RelentHttpClient;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;

/** The shared behaviour for the JDK client wrapper, {@link RelentHttpClient}. */
class JdkClientContractTest extends HttpClientContract {
  private static final HttpClient JDK =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Override
  protected Client newClient(Settings settings) {
    RelentHttpClient.Builder builder =
        RelentHttpClient.builder(JDK).withPolicy(settings.policy()).withTime(settings.time());
    settings.observers().forEach(builder::withCallObserver);
    RelentHttpClient http = builder.build();
    return request -> {
      HttpRequest.Builder b = HttpRequest.newBuilder(request.uri());
      request.headers().forEach(b::header);
      b.method(
          request.method(),
          request.body() == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(request.body()));
      RelentHttpResponse<String> response =
          http.send(b.build(), BodyHandlers.ofString(), request.options());
      return new Reply(
          response.statusCode(),
          response.body(),
          response.attempts(),
          response.idempotencyKey().orElse(null),
          response.attemptRecords());
    };
  }

  @Override
  protected int hiddenResendsOfResetGet() {
    // JDK 17 re-sends a GET whose connection died before any response byte (docs/http.md).
    return 1;
  }
}
