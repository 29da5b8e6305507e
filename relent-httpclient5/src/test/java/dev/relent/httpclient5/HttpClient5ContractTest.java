package dev.relent.httpclient5;

import dev.relent.http.CallResult;
import dev.relent.http.contract.HttpClientContract;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/** The shared behaviour for {@link RelentExecChainHandler}, installed as documented. */
class HttpClient5ContractTest extends HttpClientContract {

  static RelentExecChainHandler handler(Settings settings) {
    RelentExecChainHandler.Builder builder =
        RelentExecChainHandler.builder().withPolicy(settings.policy()).withTime(settings.time());
    settings.observers().forEach(builder::withCallObserver);
    return builder.build();
  }

  static Client client(CloseableHttpClient http) {
    return new Client() {
      @Override
      public Reply send(TestRequest request) throws Exception {
        ClassicRequestBuilder b =
            ClassicRequestBuilder.create(request.method()).setUri(request.uri());
        request.headers().forEach(b::setHeader);
        if (request.body() != null) {
          b.setEntity(
              request.body(),
              ContentType.parse(request.headers().getOrDefault("Content-Type", "text/plain")));
        }
        ClassicHttpRequest built = b.build();
        HttpClientContext context = HttpClientContext.create();
        RelentExecChainHandler.setOptions(context, request.options());
        return http.execute(
            built,
            context,
            response -> {
              CallResult result = RelentExecChainHandler.callResult(context).orElseThrow();
              return new Reply(
                  response.getCode(),
                  response.getEntity() == null
                      ? ""
                      : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8),
                  result.attempts(),
                  result.idempotencyKey().orElse(null),
                  result.attemptRecords());
            });
      }

      @Override
      public void close() throws java.io.IOException {
        http.close();
      }
    };
  }

  @Override
  protected Client newClient(Settings settings) {
    return client(handler(settings).install(HttpClients.custom()).build());
  }

  @Override
  protected int hiddenResendsOfResetGet() {
    return 0;
  }
}
