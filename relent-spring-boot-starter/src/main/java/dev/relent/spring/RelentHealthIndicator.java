package dev.relent.spring;

import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code relent} health contributor: each client's state in the details, and by default {@code
 * UP}, so that a downstream's trouble does not fail the application's health.
 *
 * <p>Each client's detail has its own {@code status}: {@code DOWN} while its circuit breaker is
 * open, {@code OUT_OF_SERVICE} while its pacer or one of its scopes is paused (a 429, a {@code
 * Retry-After}, an exhausted quota), {@code UP} otherwise; and its guards (breaker state and when
 * it probes, budget, pacer, concurrency, paused scopes with when they resume and why), never a
 * secret. The contributor's own status is {@code UP} whatever the clients' are: an application
 * whose downstream fails is still up, and a load balancer or orchestrator that took every instance
 * out at once would turn one downstream's outage into the application's (Spring Boot's
 * documentation warns against letting external systems fail the health checks). Built with {@code
 * failWithClients} ({@code management.health.relent.affects-status=true}), its status is the worst
 * client's instead, which {@code /actuator/health} answers with 503. Off with {@code
 * management.health.relent.enabled=false}.
 *
 * <p>Thread-safe.
 */
public final class RelentHealthIndicator implements HealthIndicator {
  private final RelentClients clients;
  private final boolean failWithClients;

  /**
   * Creates the contributor, {@code UP} whatever the clients' state.
   *
   * @param clients the named clients
   * @throws NullPointerException if {@code clients} is null
   */
  public RelentHealthIndicator(RelentClients clients) {
    this(clients, false);
  }

  /**
   * Creates the contributor.
   *
   * @param clients the named clients
   * @param failWithClients whether its status is the worst client's ({@code DOWN} while a breaker
   *     is open, {@code OUT_OF_SERVICE} while a pacer or scope is paused) rather than always {@code
   *     UP}
   * @throws NullPointerException if {@code clients} is null
   */
  public RelentHealthIndicator(RelentClients clients, boolean failWithClients) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
    this.failWithClients = failWithClients;
  }

  @Override
  public Health health() {
    ClientState.Level worst = ClientState.Level.UP;
    Health.Builder health = Health.unknown();
    for (Map.Entry<String, RelentClient> e : clients.all().entrySet()) {
      ClientState.Level level = ClientState.level(e.getValue());
      if (level.compareTo(worst) > 0) {
        worst = level;
      }
      Map<String, Object> detail = new java.util.LinkedHashMap<>();
      detail.put("status", level.name());
      detail.putAll(ClientState.guards(e.getValue()));
      health.withDetail(e.getKey(), detail);
    }
    return health.status(failWithClients ? status(worst) : Status.UP).build();
  }

  private static Status status(ClientState.Level level) {
    switch (level) {
      case DOWN:
        return Status.DOWN;
      case OUT_OF_SERVICE:
        return Status.OUT_OF_SERVICE;
      default:
        return Status.UP;
    }
  }
}
