package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.Scope;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code relent} health contributor: UP with each client's state in its details while a breaker
 * is open, unless {@code management.health.relent.affects-status=true} asks it to fail; {@code
 * management.health.relent.enabled=false} leaves it out.
 */
class RelentHealthIndicatorTest {
  private final FakeTime time = new FakeTime();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
          .withBean(TimeSource.class, () -> time)
          .withPropertyValues(
              "relent.clients.payments.base-url=https://api.example.com",
              "relent.clients.fragile.base-url=https://fragile.example.com",
              "relent.clients.fragile.breaker.enabled=true",
              "relent.clients.fragile.breaker.minimum-calls=1",
              "relent.clients.fragile.breaker.count-window=1");

  @Test
  void anOpenBreakerShowsInTheDetailsAndTheContributorStaysUp() {
    runner.run(
        context -> {
          openTheBreaker(context);

          Health health = context.getBean(RelentHealthIndicator.class).health();

          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(detail(health, "fragile"))
              .containsEntry("status", "DOWN")
              .hasEntrySatisfying(
                  "circuitBreaker", b -> assertThat(b.toString()).contains("state=open"));
          assertThat(detail(health, "payments")).containsEntry("status", "UP");
        });
  }

  @Test
  void aPausedScopeShowsInTheDetailsAndTheContributorStaysUp() {
    runner
        .withPropertyValues("relent.clients.payments.scopes.enabled=true")
        .run(
            context -> {
              context
                  .getBean(RelentClients.class)
                  .client("payments")
                  .registry()
                  .orElseThrow()
                  .guards(Scope.account("api.example.com"))
                  .pause(Duration.ofMinutes(5), "HTTP 429 from GET https://api.example.com/v1");

              Health health = context.getBean(RelentHealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(detail(health, "payments")).containsEntry("status", "OUT_OF_SERVICE");
            });
  }

  @Test
  void affectsStatusMakesTheContributorTheWorstClients() {
    runner
        .withPropertyValues("management.health.relent.affects-status=true")
        .run(
            context -> {
              RelentHealthIndicator indicator = context.getBean(RelentHealthIndicator.class);
              assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

              openTheBreaker(context);

              assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
            });
  }

  @Test
  void aBadAffectsStatusFailsStartUpNamingTheKey() {
    runner
        .withPropertyValues("management.health.relent.affects-status=sometimes")
        .run(
            context -> {
              assertThat(context).hasFailed();
              StringBuilder messages = new StringBuilder();
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages).contains("management.health.relent.affects-status");
            });
  }

  @Test
  void enabledFalseLeavesTheContributorOut() {
    runner.run(context -> assertThat(context).hasSingleBean(RelentHealthIndicator.class));
    runner
        .withPropertyValues("management.health.relent.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(RelentHealthIndicator.class);
            });
  }

  private void openTheBreaker(AssertableApplicationContext context) {
    CircuitBreaker breaker =
        context.getBean(RelentClients.class).client("fragile").circuitBreaker().orElseThrow();
    long now = time.read();
    assertThat(breaker.tryAcquirePermission(now)).isZero();
    breaker.onFailure(now);
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> detail(Health health, String client) {
    return (Map<String, Object>) health.getDetails().get(client);
  }
}
