package dev.relent.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.guard.Pacer;
import dev.relent.http.CallOptions;
import dev.relent.time.FakeTime;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;

/**
 * The OkHttp example of docs/http.md, verbatim, so that it compiles and says what the page says.
 */
class DocsExamplesTest {

  @Test
  void interceptor() {
    FakeTime time = new FakeTime(); // tests only; production uses the defaults
    RelentInterceptor relent =
        RelentInterceptor.builder()
            .withPolicy(
                RetryPolicy.builder()
                    .withMaxRetries(4)
                    .withDeadline(Duration.ofSeconds(30))
                    .withAttemptTimeout(Duration.ofSeconds(10))
                    .build())
            .withExecutor(x -> x.withPacer(Pacer.of(90, Duration.ofMinutes(1))))
            .withTime(time)
            .build();
    OkHttpClient client = relent.install(new OkHttpClient.Builder()).build();
    Request request =
        new Request.Builder()
            .url("https://api.example.com/v1/payments")
            .post(RequestBody.create("{\"amount\":100}", MediaType.get("application/json")))
            .tag(CallOptions.class, CallOptions.builder().withIdempotencyKey().build())
            .build();
    assertThat(client.retryOnConnectionFailure()).isFalse();
    assertThat(client.interceptors()).containsExactly(relent);
    assertThat(request.tag(CallOptions.class)).isNotNull();
    assertThat(relent.executor().policy().config().maxRetries()).isEqualTo(4);
  }
}
