package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.relent.CircuitOpenException;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * Every Relent give-up reaches the caller as its Spring client's own exception, with Relent's as
 * the cause and the same message: a {@code RestClientException} from {@code RestClient} and {@code
 * RestTemplate} (so that a {@code @ControllerAdvice} for it catches them all), a {@code
 * WebClientRequestException} from {@code WebClient}.
 */
class GiveUpExceptionsTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("GET", "/v1/down")
                  .steps(Step.status(503))
                  .route("POST", "/v1/charges")
                  .steps(Step.status(503))
                  .build())
          .withClock(time);

  /** One retry, on the fake time. */
  private <B extends HttpAdapterBuilder<?, B>> B retryOnce(B builder) {
    return builder.withTime(time).withPolicy(RetryPolicy.builder().withMaxRetries(1).build());
  }

  /** One retry, and a breaker that one failure opens for a minute. */
  private <B extends HttpAdapterBuilder<?, B>> B withBreaker(B builder) {
    return retryOnce(builder)
        .withExecutor(
            x ->
                x.withCircuitBreaker(
                    CircuitBreaker.builder()
                        .withCountWindow(1)
                        .withMinimumCalls(1)
                        .withOpenDuration(Duration.ofMinutes(1))
                        .withTime(time)
                        .build()));
  }

  private static RestClient restClient(MockServer server, RelentRestInterceptor interceptor) {
    return RestClient.builder()
        .baseUrl(server.baseUri().toString())
        .requestFactory(RelentRestInterceptor.requestFactory(HttpClient.newHttpClient()))
        .requestInterceptor(interceptor)
        .build();
  }

  private static WebClient webClient(MockServer server, RelentWebClientFilter filter) {
    return WebClient.builder().baseUrl(server.baseUri().toString()).filter(filter).build();
  }

  /**
   * Calls until the open breaker refuses a call (the failures that open it come first), checking
   * that every failure is of the expected type; returns the refusal.
   */
  private static Throwable untilTheBreakerRefuses(Class<?> type, ThrowingCallable call) {
    for (int i = 0; i < 4; i++) {
      Throwable failure = catchThrowable(call);
      assertThat(failure).isInstanceOf(type);
      if (failure.getCause() instanceof CircuitOpenException) {
        return failure;
      }
    }
    throw new AssertionError("the breaker did not open");
  }

  @Test
  void aRestClientGivesUpWithARestClientExceptionAroundRelents(MockServer server) {
    RestClient retrying = restClient(server, retryOnce(RelentRestInterceptor.builder()).build());
    RestClient breaking = restClient(server, withBreaker(RelentRestInterceptor.builder()).build());

    Throwable exhausted =
        catchThrowable(() -> retrying.get().uri("/v1/down").retrieve().toBodilessEntity());
    Throwable open =
        untilTheBreakerRefuses(
            RestClientException.class,
            () -> breaking.get().uri("/v1/down").retrieve().toBodilessEntity());

    assertThat(exhausted)
        .isExactlyInstanceOf(RestClientException.class)
        .hasCauseInstanceOf(RetriesExhaustedException.class)
        .hasMessage(exhausted.getCause().getMessage())
        .hasMessageContaining("gave up after 2 attempts")
        .hasMessageContaining("HTTP 503");
    assertThat(open)
        .isExactlyInstanceOf(RestClientException.class)
        .hasMessage(open.getCause().getMessage());
  }

  @Test
  void aRestTemplateGivesUpWithARestClientExceptionToo(MockServer server) {
    RestTemplate retrying = restTemplate(retryOnce(RelentRestInterceptor.builder()).build());
    RestTemplate breaking = restTemplate(withBreaker(RelentRestInterceptor.builder()).build());

    Throwable exhausted =
        catchThrowable(() -> retrying.getForEntity(server.uri("/v1/down"), String.class));
    Throwable open =
        untilTheBreakerRefuses(
            RestClientException.class,
            () -> breaking.getForEntity(server.uri("/v1/down"), String.class));

    assertThat(exhausted)
        .isExactlyInstanceOf(RestClientException.class)
        .hasCauseInstanceOf(RetriesExhaustedException.class)
        .hasMessage(exhausted.getCause().getMessage());
    assertThat(open).isExactlyInstanceOf(RestClientException.class);
  }

  private static RestTemplate restTemplate(RelentRestInterceptor interceptor) {
    RestTemplate template =
        new RestTemplate(RelentRestInterceptor.requestFactory(HttpClient.newHttpClient()));
    template.getInterceptors().add(interceptor);
    return template;
  }

  @Test
  void aHeldBackWriteIsSpringsResourceAccessException(MockServer server) {
    RestClient client = restClient(server, retryOnce(RelentRestInterceptor.builder()).build());

    Throwable held =
        catchThrowable(
            () -> client.post().uri("/v1/charges").body("{}").retrieve().toBodilessEntity());

    assertThat(held)
        .isInstanceOf(ResourceAccessException.class)
        .hasCauseInstanceOf(NotRetriedWriteException.class);
  }

  @Test
  void aControllerAdviceForRestClientExceptionCatchesEveryGiveUp(MockServer server)
      throws Exception {
    RestClient retrying = restClient(server, retryOnce(RelentRestInterceptor.builder()).build());
    RestClient breaking = restClient(server, withBreaker(RelentRestInterceptor.builder()).build());
    MockMvc mvc =
        MockMvcBuilders.standaloneSetup(new Balance(retrying, breaking))
            .setControllerAdvice(new Downstream())
            .build();

    mvc.perform(get("/balance"))
        .andExpect(status().isBadGateway())
        .andExpect(
            content().string(startsWith("RetriesExhaustedException: gave up after 2 attempts")));
    String last = "";
    for (int i = 0; i < 4 && !last.startsWith("CircuitOpenException"); i++) {
      last =
          mvc.perform(get("/balance/guarded"))
              .andExpect(status().isBadGateway())
              .andReturn()
              .getResponse()
              .getContentAsString();
    }
    assertThat(last).startsWith("CircuitOpenException: ");
  }

  @Test
  void anExceptionHandlerForRelentsExceptionMatchesItAsTheCause(MockServer server)
      throws Exception {
    RestClient breaking = restClient(server, withBreaker(RelentRestInterceptor.builder()).build());
    MockMvc mvc =
        MockMvcBuilders.standaloneSetup(new Balance(breaking, breaking))
            .setControllerAdvice(new OpenBreaker())
            .build();

    int status = 0;
    for (int i = 0; i < 4 && status != 503; i++) {
      try {
        status = mvc.perform(get("/balance/guarded")).andReturn().getResponse().getStatus();
      } catch (jakarta.servlet.ServletException notHandled) {
        assertThat(notHandled).hasRootCauseInstanceOf(RetriesExhaustedException.class);
      }
    }
    assertThat(status).isEqualTo(503);
  }

  @Test
  void aWebClientGivesUpWithAWebClientRequestExceptionAroundRelents(MockServer server) {
    WebClient retrying = webClient(server, retryOnce(RelentWebClientFilter.builder()).build());
    WebClient breaking = webClient(server, withBreaker(RelentWebClientFilter.builder()).build());

    Throwable exhausted = catchThrowable(() -> send(retrying.get().uri("/v1/down")));
    Throwable open =
        untilTheBreakerRefuses(
            WebClientRequestException.class, () -> send(breaking.get().uri("/v1/down")));
    Throwable held = catchThrowable(() -> send(retrying.post().uri("/v1/charges").bodyValue("{}")));

    assertThat(exhausted)
        .isInstanceOf(WebClientRequestException.class)
        .hasCauseInstanceOf(RetriesExhaustedException.class)
        .hasMessage(exhausted.getCause().getMessage())
        .hasMessageContaining("gave up after 2 attempts");
    WebClientRequestException request = (WebClientRequestException) exhausted;
    assertThat(request.getMethod()).isEqualTo(HttpMethod.GET);
    assertThat(request.getUri()).isEqualTo(server.uri("/v1/down"));
    assertThat(open).hasMessage(open.getCause().getMessage());
    assertThat(held)
        .isInstanceOf(WebClientRequestException.class)
        .hasCauseInstanceOf(NotRetriedWriteException.class);
  }

  /** Sends a WebClient request, running its backoff on the fake time. */
  private void send(WebClient.RequestHeadersSpec<?> request) throws Exception {
    FakeTimeCalls.drive(time, request.retrieve().toBodilessEntity().toFuture());
  }

  @RestController
  static class Balance {
    private final RestClient retrying;
    private final RestClient guarded;

    Balance(RestClient retrying, RestClient guarded) {
      this.retrying = retrying;
      this.guarded = guarded;
    }

    @GetMapping("/balance")
    String balance() {
      return retrying.get().uri("/v1/down").retrieve().body(String.class);
    }

    @GetMapping("/balance/guarded")
    String guardedBalance() {
      return guarded.get().uri("/v1/down").retrieve().body(String.class);
    }
  }

  /** An advice for the open breaker alone: Spring MVC matches it by the exception's cause. */
  @RestControllerAdvice
  static class OpenBreaker {
    @ExceptionHandler(CircuitOpenException.class)
    ResponseEntity<String> open(CircuitOpenException e) {
      return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(e.getMessage());
    }
  }

  /** The advice an application has for its downstreams: every failure of theirs is a 502. */
  @RestControllerAdvice
  static class Downstream {
    @ExceptionHandler(RestClientException.class)
    ResponseEntity<String> downstreamFailed(RestClientException e) {
      return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
          .body(e.getMostSpecificCause().getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
