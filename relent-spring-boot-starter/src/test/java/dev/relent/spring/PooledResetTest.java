package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentCounters;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * What a named client sends when the server resets a pooled, kept-alive connection. Under a {@code
 * RestClient} the request factory is the JDK client's, so a GET is sent a second time by the JDK
 * inside one Relent attempt (docs/http.md says why no setting of a client stops that), and a keyed
 * POST is two requests in two attempts. Under a {@code WebClient} on Reactor Netty (a webflux
 * application's connector) both are two requests in two attempts. If a JDK, Reactor Netty or the
 * starter's choice of client changes this, the test says so.
 */
class PooledResetTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
          Scenario.parse(
              "{\"routes\":[{\"path\":\"/ping\",\"steps\":[{\"status\":200,\"body\":\"pong\"}]},"
                  + "{\"path\":\"/items\",\"steps\":["
                  + "{\"fault\":\"reset\"},{\"status\":200,\"body\":\"ok\"}]}],"
                  + "\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                  + "\"steps\":[{\"fault\":\"reset\"},{}]}]}"));

  @Test
  void theJdkClientUnderARestClientResendsAResetGetAndNoWrite(MockServer server) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withPropertyValues(
            "relent.clients.shop.base-url=" + server.baseUri(),
            "relent.clients.shop.idempotency-keys=true")
        .run(
            context -> {
              RelentRestClients relent = context.getBean(RelentRestClients.class);
              RestClient shop = relent.restClient("shop");
              assertThat(shop.get().uri("/ping").retrieve().body(String.class)).isEqualTo("pong");

              assertThat(shop.get().uri("/items").retrieve().body(String.class)).isEqualTo("ok");
              List<JournalEntry> items = onPath(server, "/items");
              assertThat(items.get(0).remoteAddress())
                  .isEqualTo(onPath(server, "/ping").get(0).remoteAddress());
              assertThat(items).hasSize(2);
              RelentCounters counters = relent.interceptor("shop").counters();
              assertThat(counters.firstAttempts()).isEqualTo(2);
              assertThat(counters.retries()).isZero();

              shop.post().uri("/payments").body("{\"amount\":100}").retrieve().toBodilessEntity();
              List<JournalEntry> payments = onPath(server, "/payments");
              assertThat(payments.get(0).remoteAddress()).isEqualTo(items.get(1).remoteAddress());
              assertThat(payments).hasSize(2);
              assertThat(relent.interceptor("shop").counters().retries()).isEqualTo(1);
            });
  }

  /**
   * Reactor Netty with one pooled connection, so the reset request is the one that reuses it: every
   * request the server sees is an attempt Relent counted, a GET and a keyed POST alike.
   */
  @Test
  void reactorNettyUnderAWebClientResendsNothingItself(MockServer server) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withPropertyValues(
            "relent.clients.shop.base-url=" + server.baseUri(),
            "relent.clients.shop.idempotency-keys=true")
        .run(
            context -> {
              RelentWebClients relent = context.getBean(RelentWebClients.class);
              WebClient shop =
                  WebClient.builder()
                      .clientConnector(
                          new ReactorClientHttpConnector(
                              HttpClient.create(
                                  ConnectionProvider.builder("one").maxConnections(1).build())))
                      .apply(relent.customizer("shop"))
                      .build();
              assertThat(get(shop, "/ping")).isEqualTo("pong");

              assertThat(get(shop, "/items")).isEqualTo("ok");
              List<JournalEntry> items = onPath(server, "/items");
              assertThat(items.get(0).remoteAddress())
                  .isEqualTo(onPath(server, "/ping").get(0).remoteAddress());
              assertThat(items).hasSize(2);
              RelentCounters counters = relent.filter("shop").counters();
              assertThat(counters.firstAttempts()).isEqualTo(2);
              assertThat(counters.retries()).isEqualTo(1);

              FakeTimeCalls.drive(
                  time,
                  shop.post()
                      .uri("/payments")
                      .bodyValue("{\"amount\":100}")
                      .retrieve()
                      .toBodilessEntity()
                      .toFuture());
              List<JournalEntry> payments = onPath(server, "/payments");
              assertThat(payments.get(0).remoteAddress()).isEqualTo(items.get(1).remoteAddress());
              assertThat(payments).hasSize(2);
              assertThat(relent.filter("shop").counters().retries()).isEqualTo(2);
            });
  }

  private String get(WebClient client, String path) throws Exception {
    return FakeTimeCalls.drive(
        time, client.get().uri(path).retrieve().bodyToMono(String.class).toFuture());
  }

  private static List<JournalEntry> onPath(MockServer server, String path) {
    return server.journal().stream()
        .filter(e -> e.target().equals(path))
        .collect(Collectors.toList());
  }
}
