package dev.relent.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.http.CallOptions;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.junit.jupiter.api.Test;

/** The HttpClient 5 example of docs/http.md, verbatim, so that it compiles. */
class DocsExamplesTest {

  @Test
  void handler() throws Exception {
    RelentExecChainHandler relent =
        RelentExecChainHandler.builder()
            .withPolicy(RetryPolicy.builder().withMaxRetries(4).build())
            .withExecutor(x -> x.withCircuitBreaker(CircuitBreaker.ofDefaults()))
            .build();
    try (CloseableHttpClient client = relent.install(HttpClients.custom()).build()) {
      HttpPost post = new HttpPost("https://api.example.com/v1/payments");
      post.setEntity(new StringEntity("{\"amount\":100}", ContentType.APPLICATION_JSON));
      HttpClientContext context = HttpClientContext.create();
      RelentExecChainHandler.setOptions(
          context, CallOptions.builder().withIdempotencyKey().build());
      // String body = client.execute(post, context, r -> EntityUtils.toString(r.getEntity()));
      // RelentExecChainHandler.callResult(context): attempts, key, decision, attempt records
      assertThat(context.getAttribute(RelentExecChainHandler.OPTIONS_ATTRIBUTE))
          .isInstanceOf(CallOptions.class);
      assertThat(RelentExecChainHandler.callResult(context)).isEmpty();
      assertThat(client).isNotNull();
      assertThat(post.getEntity().isRepeatable()).isTrue();
    }
    assertThat(relent.executor().policy().config().maxRetries()).isEqualTo(4);
  }
}
