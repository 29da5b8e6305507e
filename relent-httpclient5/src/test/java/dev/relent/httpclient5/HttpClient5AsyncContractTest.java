package dev.relent.httpclient5;

import dev.relent.http.CallResult;
import dev.relent.http.contract.HttpClientContract;
import dev.relent.time.FakeTime;
import dev.relent.time.Scheduler;
import dev.relent.time.TimeSource;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.io.CloseMode;

/**
 * The shared behaviour for {@link RelentAsyncExecChainHandler}, installed as documented. The
 * executor waits through a scheduler that sleeps on the suite's recording sleeper on a thread of
 * its own, so that the waits are recorded and the fake time moves as for the synchronous clients.
 */
class HttpClient5AsyncContractTest extends HttpClientContract {

  @Override
  protected Client newClient(Settings settings) {
    FakeTime fake = settings.time();
    ScheduledExecutorService waiting = Executors.newSingleThreadScheduledExecutor();
    long attemptTimeout = settings.attemptTimeout().toNanos();
    Scheduler sleeping =
        (task, delayNanos) ->
            delayNanos == attemptTimeout
                ? waiting.schedule(task, delayNanos, TimeUnit.NANOSECONDS)
                : waiting.submit(
                    () -> {
                      try {
                        fake.sleeper().sleep(delayNanos);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                      }
                      task.run();
                    });
    TimeSource time =
        TimeSource.of(fake.ticker(), fake.clock(), fake.sleeper(), sleeping, fake.random());
    RelentAsyncExecChainHandler.Builder builder =
        RelentAsyncExecChainHandler.builder().withPolicy(settings.policy()).withTime(time);
    settings.observers().forEach(builder::withCallObserver);
    RelentAsyncExecChainHandler relent = builder.build();
    PoolingAsyncClientConnectionManager pool =
        PoolingAsyncClientConnectionManagerBuilder.create().build();
    CloseableHttpAsyncClient http =
        relent.install(HttpAsyncClients.custom().setConnectionManager(pool)).build();
    http.start();
    return new Client() {
      @Override
      public Reply send(TestRequest request) throws Exception {
        SimpleRequestBuilder b =
            SimpleRequestBuilder.create(request.method()).setUri(request.uri());
        request.headers().forEach(b::setHeader);
        if (request.body() != null) {
          b.setBody(
              request.body(),
              ContentType.parse(request.headers().getOrDefault("Content-Type", "text/plain")));
        }
        HttpClientContext context = HttpClientContext.create();
        RelentExecChainHandler.setOptions(context, request.options());
        Future<SimpleHttpResponse> future = http.execute(b.build(), context, null);
        SimpleHttpResponse response;
        try {
          response = future.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
        awaitReleased(pool);
        CallResult result = RelentExecChainHandler.callResult(context).orElseThrow();
        return new Reply(
            response.getCode(),
            response.getBodyText() == null ? "" : response.getBodyText(),
            result.attempts(),
            result.idempotencyKey().orElse(null),
            result.attemptRecords());
      }

      @Override
      public void close() {
        http.close(CloseMode.IMMEDIATE);
        waiting.shutdownNow();
      }
    };
  }

  /**
   * The async client completes the response before it hands the connection back to its pool, on an
   * I/O thread of its own; the next call of a test that means to reuse it waits for that here.
   */
  private static void awaitReleased(PoolingAsyncClientConnectionManager pool)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (pool.getTotalStats().getLeased() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
  }

  @Override
  protected int hiddenResendsOfResetGet() {
    return 0;
  }
}
