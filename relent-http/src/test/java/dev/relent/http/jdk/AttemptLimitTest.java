package dev.relent.http.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * The body's share of a synchronous attempt's time limit, driven by hand: {@link
 * AttemptLimit#expire} is what its timer calls when the time runs out. The end-to-end case (a body
 * that stalls on a real connection) is {@code RelentHttpClientTest}'s.
 */
class AttemptLimitTest {
  private static final long FIVE_SECONDS = Duration.ofSeconds(5).toNanos();

  private static final HttpResponse.ResponseInfo OK =
      new HttpResponse.ResponseInfo() {
        @Override
        public int statusCode() {
          return 200;
        }

        @Override
        public HttpHeaders headers() {
          return HttpHeaders.of(Map.of(), (a, b) -> true);
        }

        @Override
        public HttpClient.Version version() {
          return HttpClient.Version.HTTP_1_1;
        }
      };

  /** The client's side of a body: what the subscriber asked for, whether it cancelled. */
  private static final class Upstream implements Flow.Subscription {
    volatile boolean cancelled;
    volatile long requested;

    @Override
    public void request(long n) {
      requested += n;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  private static List<ByteBuffer> bytes(String s) {
    return List.of(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aBodyStillComingWhenTheTimeRunsOutIsCutOffAndItsStageFails() {
    AttemptLimit limit = AttemptLimit.start(FIVE_SECONDS);
    BodySubscriber<String> body = limit.bound(BodyHandlers.ofString()).apply(OK);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    body.onNext(bytes("ab"));

    limit.expire();

    assertThat(upstream.cancelled).isTrue();
    Throwable failure = catchThrowable(() -> body.getBody().toCompletableFuture().join());
    assertThat(failure)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessage("no complete response within 5 s");
    // What the client still delivers after the cancel reaches nobody.
    body.onNext(bytes("cd"));
    body.onComplete();
    assertThat(body.getBody().toCompletableFuture().isCompletedExceptionally()).isTrue();
    limit.finish();
  }

  @Test
  void aBodyCompleteBeforeTheTimeRunsOutIsKept() {
    AttemptLimit limit = AttemptLimit.start(FIVE_SECONDS);
    BodySubscriber<String> body = limit.bound(BodyHandlers.ofString()).apply(OK);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    body.onNext(bytes("ok"));
    body.onComplete();
    limit.finish();

    limit.expire();

    assertThat(upstream.cancelled).isFalse();
    assertThat(body.getBody().toCompletableFuture().join()).isEqualTo("ok");
  }

  @Test
  void aStreamHandedToTheCallerIsTheCallersToReadWhateverTheTime() throws Exception {
    AttemptLimit limit = AttemptLimit.start(FIVE_SECONDS);
    BodySubscriber<InputStream> body = limit.bound(BodyHandlers.ofInputStream()).apply(OK);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    // ofInputStream's stage is complete at once: HttpClient.send returns with the headers.
    InputStream in = body.getBody().toCompletableFuture().getNow(null);
    assertThat(in).isNotNull();
    limit.finish();

    limit.expire();

    assertThat(upstream.cancelled).isFalse();
    body.onNext(bytes("late"));
    body.onComplete();
    assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("late");
  }

  @Test
  void aTimeRunOutBeforeTheHeadersCutsTheBodyOffAsItBegins() {
    AttemptLimit limit = AttemptLimit.start(FIVE_SECONDS);
    limit.expire();

    BodySubscriber<String> body = limit.bound(BodyHandlers.ofString()).apply(OK);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);

    assertThat(upstream.cancelled).isTrue();
    assertThat(upstream.requested).isZero();
    assertThat(catchThrowable(() -> body.getBody().toCompletableFuture().join()))
        .cause()
        .isInstanceOf(HttpTimeoutException.class);
    limit.finish();
  }

  @Test
  void theTimerCutsOffAStalledBodyOnItsOwn() {
    // A limit of 1 ms that nobody finishes: the JDK's delay thread fires it.
    AttemptLimit limit = AttemptLimit.start(Duration.ofMillis(1).toNanos());
    BodySubscriber<String> body = limit.bound(BodyHandlers.ofString()).apply(OK);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);

    Throwable failure = catchThrowable(() -> body.getBody().toCompletableFuture().join());

    assertThat(failure).cause().isInstanceOf(HttpTimeoutException.class);
    assertThat(upstream.cancelled).isTrue();
  }
}
