package dev.relent.okhttp;

import dev.relent.http.CallOptions;
import dev.relent.http.CallResult;
import dev.relent.http.contract.HttpClientContract;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** The shared behaviour for {@link RelentInterceptor}, installed as documented. */
class OkHttpContractTest extends HttpClientContract {

  static RelentInterceptor interceptor(Settings settings) {
    RelentInterceptor.Builder builder =
        RelentInterceptor.builder().withPolicy(settings.policy()).withTime(settings.time());
    settings.observers().forEach(builder::withCallObserver);
    return builder.build();
  }

  static Client client(OkHttpClient ok) {
    return new Client() {
      @Override
      public Reply send(TestRequest request) throws Exception {
        Request.Builder b = new Request.Builder().url(request.uri().toString());
        request.headers().forEach(b::header);
        String type = request.headers().getOrDefault("Content-Type", "text/plain");
        b.method(
            request.method(),
            request.body() == null
                ? null
                : RequestBody.create(request.body(), MediaType.get(type)));
        b.tag(CallOptions.class, request.options());
        try (Response response = ok.newCall(b.build()).execute()) {
          CallResult result = RelentInterceptor.callResult(response).orElseThrow();
          return new Reply(
              response.code(),
              response.body().string(),
              result.attempts(),
              result.idempotencyKey().orElse(null),
              result.attemptRecords());
        }
      }

      @Override
      public void close() {
        ok.dispatcher().executorService().shutdown();
        ok.connectionPool().evictAll();
      }
    };
  }

  @Override
  protected Client newClient(Settings settings) {
    OkHttpClient ok =
        interceptor(settings)
            .install(new OkHttpClient.Builder())
            .connectionPool(new ConnectionPool(5, 1, TimeUnit.MINUTES))
            .build();
    return client(ok);
  }

  @Override
  protected int hiddenResendsOfResetGet() {
    return 0;
  }
}
