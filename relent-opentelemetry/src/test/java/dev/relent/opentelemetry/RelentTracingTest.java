package dev.relent.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentException;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.guard.Pacer;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.Scheduler;
import dev.relent.time.TimeSource;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spans of Relent calls, exported to memory by the OpenTelemetry SDK, against the mock server:
 * one call span, a client span per physical request beneath it with its resend count, status and
 * error type, the waits and decisions as events, {@code traceparent} per request as the server saw
 * it, and no secret in any attribute or event. Waits run on {@link FakeTime}: none is real.
 */
class RelentTracingTest {
  private static final HttpClient JDK =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final String TOKEN = "sk_live_bearer_0123";
  private static final String API_KEY = "sk_query_4567";
  private static final String PASSWORD = "hunter2pw";

  private final FakeTime time = new FakeTime();
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(provider)
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/flaky")
                  .steps(Step.status(503), Step.status(503), Step.ok("ok"))
                  .route("/limited")
                  .steps(Step.status(429).withHeader("Retry-After", "2"), Step.ok("ok"))
                  .route("/down")
                  .steps(Step.status(503))
                  .route("/ok")
                  .steps(Step.ok("ok"))
                  .build())
          .withClock(time);

  @AfterEach
  void closeSdk() {
    provider.close();
  }

  private static RetryPolicy policy(int maxRetries) {
    // No jitter: the waits are exactly 500 ms, then 1 s.
    return RetryPolicy.builder()
        .withMaxRetries(maxRetries)
        .withBackoff(
            Backoff.builder().withBase(Duration.ofMillis(500)).withJitter(Jitter.NONE).build())
        .build();
  }

  private RelentHttpClient client(int maxRetries) {
    return RelentHttpClient.builder(JDK)
        .withPolicy(policy(maxRetries))
        .withTime(time)
        .withoutLogging()
        .withCallObserver(RelentTracing.of(otel))
        .build();
  }

  /** A GET with every kind of secret: user-info, an API key parameter, a bearer token. */
  private static HttpRequest secretGet(MockServer server, String path) {
    URI plain = server.uri(path);
    URI uri =
        URI.create(
            "http://alice:"
                + PASSWORD
                + "@"
                + plain.getHost()
                + ":"
                + plain.getPort()
                + path
                + "?api_key="
                + API_KEY
                + "&page=2");
    return HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + TOKEN).GET().build();
  }

  private List<SpanData> spans() {
    List<SpanData> all = new ArrayList<>(exporter.getFinishedSpanItems());
    all.sort(Comparator.comparingLong(SpanData::getStartEpochNanos));
    return all;
  }

  private static SpanData callSpan(List<SpanData> spans) {
    List<SpanData> internal =
        spans.stream()
            .filter(s -> s.getKind() == SpanKind.INTERNAL)
            .filter(
                s ->
                    s.getInstrumentationScopeInfo()
                        .getName()
                        .equals(RelentTracing.INSTRUMENTATION_NAME))
            .collect(Collectors.toList());
    assertThat(internal).hasSize(1);
    return internal.get(0);
  }

  private static List<SpanData> clientSpans(List<SpanData> spans) {
    return spans.stream().filter(s -> s.getKind() == SpanKind.CLIENT).collect(Collectors.toList());
  }

  private static <T> List<T> each(List<SpanData> spans, AttributeKey<T> key) {
    return spans.stream().map(s -> s.getAttributes().get(key)).collect(Collectors.toList());
  }

  private static List<EventData> events(SpanData span, String name) {
    return span.getEvents().stream()
        .filter(e -> e.getName().equals(name))
        .collect(Collectors.toList());
  }

  /** Every attribute value of every span and event, as text. */
  private static List<String> everyValue(List<SpanData> spans) {
    List<String> values = new ArrayList<>();
    for (SpanData s : spans) {
      values.add(s.getName());
      addValues(values, s.getAttributes());
      for (EventData e : s.getEvents()) {
        values.add(e.getName());
        addValues(values, e.getAttributes());
      }
      values.add(String.valueOf(s.getStatus().getDescription()));
    }
    return values;
  }

  private static void addValues(List<String> values, Attributes attributes) {
    attributes.forEach((key, value) -> values.add(key.getKey() + "=" + value));
  }

  private static void assertNoSecret(List<SpanData> spans) {
    assertThat(everyValue(spans))
        .isNotEmpty()
        .noneMatch(v -> v.contains(TOKEN))
        .noneMatch(v -> v.contains(API_KEY))
        .noneMatch(v -> v.contains(PASSWORD))
        .noneMatch(v -> v.contains("alice"))
        .noneMatch(v -> v.contains("Bearer"));
  }

  private static List<String> traceparents(MockServer server, String path) {
    return server.journal().stream()
        .filter(e -> e.target().startsWith(path))
        .map(e -> e.header("traceparent"))
        .collect(Collectors.toList());
  }

  private static String traceparent(SpanData span) {
    return "00-"
        + span.getTraceId()
        + "-"
        + span.getSpanId()
        + "-"
        + span.getSpanContext().getTraceFlags().asHex();
  }

  @Test
  void aRetriedCallIsOneSpanOverAClientSpanPerRequest(MockServer server) throws Exception {
    Span caller = otel.getTracer("test").spanBuilder("caller").startSpan();
    RelentHttpResponse<String> response;
    Scope scope = caller.makeCurrent();
    try {
      response = client(3).send(secretGet(server, "/flaky"), BodyHandlers.ofString());
    } finally {
      scope.close();
      caller.end();
    }
    assertThat(response.statusCode()).isEqualTo(200);

    List<SpanData> spans = spans();
    SpanData call = callSpan(spans);
    List<SpanData> requests = clientSpans(spans);
    assertThat(spans).hasSize(5); // the caller's, the call's, three requests'

    // The call's span is the caller's child; every request's span is the call's child.
    assertThat(call.getName()).isEqualTo("relent GET");
    assertThat(call.getParentSpanId()).isEqualTo(caller.getSpanContext().getSpanId());
    assertThat(call.getTraceId()).isEqualTo(caller.getSpanContext().getTraceId());
    assertThat(requests).hasSize(3);
    assertThat(requests)
        .allSatisfy(
            r -> {
              assertThat(r.getName()).isEqualTo("GET");
              assertThat(r.getParentSpanId()).isEqualTo(call.getSpanId());
              assertThat(r.getTraceId()).isEqualTo(call.getTraceId());
              assertThat(r.getAttributes().get(TracedCall.METHOD)).isEqualTo("GET");
              assertThat(r.getAttributes().get(TracedCall.SERVER_ADDRESS)).isEqualTo("127.0.0.1");
              assertThat(r.getAttributes().get(TracedCall.SERVER_PORT))
                  .isEqualTo((long) server.port());
              assertThat(r.getAttributes().get(TracedCall.URL_FULL))
                  .isEqualTo(
                      "http://REDACTED@127.0.0.1:"
                          + server.port()
                          + "/flaky?api_key=REDACTED&page=2");
            });
    assertThat(each(requests, TracedCall.RESEND_COUNT)).containsExactly(null, 1L, 2L);
    assertThat(each(requests, TracedCall.STATUS)).containsExactly(503L, 503L, 200L);
    assertThat(each(requests, TracedCall.ERROR_TYPE)).containsExactly("503", "503", null);
    assertThat(requests.stream().map(r -> r.getStatus().getStatusCode()))
        .containsExactly(StatusCode.ERROR, StatusCode.ERROR, StatusCode.UNSET);

    // The call: its final answer, its attempts, and the two retries with the waits chosen.
    assertThat(call.getAttributes().get(TracedCall.STATUS)).isEqualTo(200L);
    assertThat(call.getAttributes().get(TracedCall.ATTEMPTS)).isEqualTo(3L);
    assertThat(call.getAttributes().get(TracedCall.ERROR_TYPE)).isNull();
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    List<EventData> retries = events(call, TracedCall.RETRY_EVENT);
    assertThat(retries).hasSize(2);
    assertThat(retries.stream().map(e -> e.getAttributes().get(TracedCall.ATTEMPT)))
        .containsExactly(1L, 2L);
    assertThat(retries.stream().map(e -> e.getAttributes().get(TracedCall.RULE)))
        .containsExactly("http-503", "http-503");
    assertThat(retries.stream().map(e -> e.getAttributes().get(TracedCall.WAIT_MS)))
        .containsExactly(500L, 1000L);
    assertThat(time.sleeper().waits())
        .containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1));
    assertThat(retries)
        .allSatisfy(e -> assertThat(e.getAttributes().get(TracedCall.HINT)).isNull());

    // The server saw, on each request, that request's own span as its parent.
    assertThat(traceparents(server, "/flaky"))
        .containsExactly(
            traceparent(requests.get(0)),
            traceparent(requests.get(1)),
            traceparent(requests.get(2)));
    // The secrets did reach the server (the journal shows them redacted), and no span has one.
    assertThat(server.journal().get(0).header("Authorization")).isEqualTo(JournalEntry.REDACTED);
    assertNoSecret(spans);
  }

  @Test
  void aRetryAfterIsTheServersHintOnTheRetryEvent(MockServer server) throws Exception {
    RelentHttpResponse<String> response =
        client(3).send(secretGet(server, "/limited"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);

    List<SpanData> spans = spans();
    SpanData call = callSpan(spans);
    List<SpanData> requests = clientSpans(spans);
    assertThat(each(requests, TracedCall.STATUS)).containsExactly(429L, 200L);
    assertThat(each(requests, TracedCall.ERROR_TYPE)).containsExactly("429", null);
    assertThat(each(requests, TracedCall.RESEND_COUNT)).containsExactly(null, 1L);
    List<EventData> retries = events(call, TracedCall.RETRY_EVENT);
    assertThat(retries).hasSize(1);
    Attributes retry = retries.get(0).getAttributes();
    assertThat(retry.get(TracedCall.ATTEMPT)).isEqualTo(1L);
    assertThat(retry.get(TracedCall.RULE)).isEqualTo("http-429");
    assertThat(retry.get(TracedCall.HINT)).contains("Retry-After").contains("2");
    assertThat(retry.get(TracedCall.HINT_WAIT_MS)).isEqualTo(2000L);
    // The server's 2 s is longer than the 500 ms backoff: the server chose the wait.
    assertThat(retry.get(TracedCall.WAIT_SOURCE)).isEqualTo("server");
    // The wait chosen is the server's 2 s plus a spread, and is the wait actually made.
    long waited = time.sleeper().waits().get(0).toMillis();
    assertThat(retry.get(TracedCall.WAIT_MS)).isEqualTo(waited).isGreaterThanOrEqualTo(2000L);
    assertThat(traceparents(server, "/limited"))
        .containsExactly(traceparent(requests.get(0)), traceparent(requests.get(1)));
    assertNoSecret(spans);
  }

  @Test
  void aGiveUpEndsTheCallSpanInErrorWithTheReason(MockServer server) {
    Throwable thrown =
        catchThrowable(() -> client(2).send(secretGet(server, "/down"), BodyHandlers.ofString()));
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);

    List<SpanData> spans = spans();
    SpanData call = callSpan(spans);
    List<SpanData> requests = clientSpans(spans);
    assertThat(requests).hasSize(3);
    assertThat(each(requests, TracedCall.RESEND_COUNT)).containsExactly(null, 1L, 2L);
    assertThat(each(requests, TracedCall.ERROR_TYPE)).containsExactly("503", "503", "503");
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(call.getAttributes().get(TracedCall.ERROR_TYPE))
        .isEqualTo(RetriesExhaustedException.class.getName());
    assertThat(call.getAttributes().get(TracedCall.STATUS)).isEqualTo(503L);
    assertThat(call.getAttributes().get(TracedCall.ATTEMPTS)).isEqualTo(3L);
    assertThat(events(call, TracedCall.RETRY_EVENT)).hasSize(2);
    List<EventData> giveUps = events(call, TracedCall.GIVE_UP_EVENT);
    assertThat(giveUps).hasSize(1);
    Attributes giveUp = giveUps.get(0).getAttributes();
    // Spelled as the meters' reason tag spells it: the reason's slug.
    assertThat(giveUp.get(TracedCall.REASON))
        .isEqualTo(RelentException.Reason.RETRIES_EXHAUSTED.slug())
        .isEqualTo("retries-exhausted");
    assertThat(events(call, TracedCall.RETRY_EVENT))
        .extracting(e -> e.getAttributes().get(TracedCall.WAIT_SOURCE))
        .containsExactly("backoff", "backoff");
    assertThat(giveUp.get(TracedCall.ATTEMPT)).isEqualTo(3L);
    assertThat(giveUp.get(TracedCall.RULE)).isEqualTo("http-503");
    assertThat(giveUp.get(TracedCall.MESSAGE))
        .startsWith("gave up after 3 attempts")
        .contains("api_key=REDACTED");
    assertThat(traceparents(server, "/down")).hasSize(3).doesNotHaveDuplicates();
    assertNoSecret(spans);
  }

  @Test
  void aHeldBackWriteIsAGiveUpWithTheReasonTheMetersCount(MockServer server) {
    HttpRequest post =
        HttpRequest.newBuilder(server.uri("/down"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
            .build();
    Throwable thrown = catchThrowable(() -> client(2).send(post, BodyHandlers.ofString()));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);

    SpanData call = callSpan(spans());
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(call.getAttributes().get(TracedCall.STATUS)).isNull();
    List<EventData> giveUps = events(call, TracedCall.GIVE_UP_EVENT);
    assertThat(giveUps).hasSize(1);
    assertThat(giveUps.get(0).getAttributes().get(TracedCall.REASON)).isEqualTo("not-retryable");
    assertThat(giveUps.get(0).getAttributes().get(TracedCall.RULE))
        .isEqualTo("http-503-unkeyed-write");
  }

  @Test
  void aNetworkFaultIsTheClientExceptionsClassName() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed at once: nothing listens there
    }
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x")).GET().build();
    Throwable thrown = catchThrowable(() -> client(1).send(request, BodyHandlers.ofString()));
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);

    List<SpanData> spans = spans();
    List<SpanData> requests = clientSpans(spans);
    assertThat(requests).hasSize(2);
    assertThat(each(requests, TracedCall.ERROR_TYPE))
        .containsExactly(ConnectException.class.getName(), ConnectException.class.getName());
    assertThat(each(requests, TracedCall.STATUS)).containsExactly(null, null);
    assertThat(requests.stream().map(r -> r.getStatus().getStatusCode()))
        .containsOnly(StatusCode.ERROR);
    SpanData call = callSpan(spans);
    assertThat(call.getAttributes().get(TracedCall.STATUS)).isNull();
    assertThat(events(call, TracedCall.RETRY_EVENT).get(0).getAttributes().get(TracedCall.RULE))
        .isEqualTo("io-connect-refused");
  }

  @Test
  void anAsynchronousCallHasTheSameTree(MockServer server) throws Exception {
    // Backoffs move the fake time at once, on a thread of their own; nothing waits for real.
    ScheduledExecutorService waiting = Executors.newSingleThreadScheduledExecutor();
    try {
      // The default policy's 10 s per attempt is the one delay that is no backoff.
      long attemptTimeout = Duration.ofSeconds(10).toNanos();
      Scheduler sleeping =
          (task, delayNanos) ->
              delayNanos == attemptTimeout
                  ? waiting.schedule(task, delayNanos, TimeUnit.NANOSECONDS)
                  : waiting.submit(
                      () -> {
                        try {
                          time.sleeper().sleep(delayNanos);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                          return;
                        }
                        task.run();
                      });
      RelentHttpClient http =
          RelentHttpClient.builder(JDK)
              .withPolicy(policy(3))
              .withTime(
                  TimeSource.of(
                      time.ticker(), time.clock(), time.sleeper(), sleeping, time.random()))
              .withoutLogging()
              .withCallObserver(RelentTracing.of(otel))
              .build();
      RelentHttpResponse<String> response =
          http.sendAsync(secretGet(server, "/flaky"), BodyHandlers.ofString())
              .get(10, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);
    } finally {
      waiting.shutdownNow();
    }
    List<SpanData> spans = spans();
    SpanData call = callSpan(spans);
    List<SpanData> requests = clientSpans(spans);
    assertThat(requests).hasSize(3).allMatch(r -> r.getParentSpanId().equals(call.getSpanId()));
    assertThat(each(requests, TracedCall.RESEND_COUNT)).containsExactly(null, 1L, 2L);
    assertThat(each(requests, TracedCall.STATUS)).containsExactly(503L, 503L, 200L);
    assertThat(
            events(call, TracedCall.RETRY_EVENT).stream()
                .map(e -> e.getAttributes().get(TracedCall.WAIT_MS)))
        .containsExactly(500L, 1000L);
    assertThat(call.getAttributes().get(TracedCall.STATUS)).isEqualTo(200L);
    assertThat(traceparents(server, "/flaky"))
        .containsExactly(
            traceparent(requests.get(0)),
            traceparent(requests.get(1)),
            traceparent(requests.get(2)));
    assertNoSecret(spans);
  }

  @Test
  void aPacerWaitIsAnEventOnTheCallThatWaited(MockServer server) throws Exception {
    RelentHttpClient http =
        RelentHttpClient.builder(JDK)
            .withPolicy(policy(3))
            .withTime(time)
            .withoutLogging()
            .withExecutor(x -> x.withPacer(Pacer.of(1, Duration.ofSeconds(2))))
            .withCallObserver(RelentTracing.of(otel))
            .build();
    http.send(secretGet(server, "/ok"), BodyHandlers.ofString());
    http.send(secretGet(server, "/ok"), BodyHandlers.ofString());

    List<SpanData> calls =
        spans().stream().filter(s -> s.getName().equals("relent GET")).collect(Collectors.toList());
    assertThat(calls).hasSize(2);
    assertThat(events(calls.get(0), TracedCall.PACED_EVENT)).isEmpty();
    List<EventData> paced = events(calls.get(1), TracedCall.PACED_EVENT);
    assertThat(paced).hasSize(1);
    assertThat(paced.get(0).getAttributes().get(TracedCall.ATTEMPT)).isEqualTo(1L);
    // The second start waited for the pacer's next permit: the wait made is the one reported.
    assertThat(time.sleeper().waits()).hasSize(1);
    assertThat(paced.get(0).getAttributes().get(TracedCall.WAIT_MS))
        .isEqualTo(time.sleeper().waits().get(0).toMillis())
        .isPositive();
    assertNoSecret(spans());
  }

  @Test
  void aRouteNamesTheSpans(MockServer server) throws Exception {
    RelentHttpClient http =
        RelentHttpClient.builder(JDK)
            .withPolicy(policy(3))
            .withTime(time)
            .withoutLogging()
            .withCallObserver(RelentTracing.builder(otel).withRoute(c -> "/{name}").build())
            .build();
    http.send(secretGet(server, "/limited"), BodyHandlers.ofString());
    List<SpanData> spans = spans();
    assertThat(callSpan(spans).getName()).isEqualTo("relent GET /{name}");
    assertThat(clientSpans(spans))
        .hasSize(2)
        .allSatisfy(
            r -> {
              assertThat(r.getName()).isEqualTo("GET /{name}");
              assertThat(r.getAttributes().get(TracedCall.URL_TEMPLATE)).isEqualTo("/{name}");
            });
  }

  @Test
  void badArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> RelentTracing.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("openTelemetry cannot be null");
    assertThatThrownBy(() -> RelentTracing.builder(otel).withRoute(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("route cannot be null");
  }
}
