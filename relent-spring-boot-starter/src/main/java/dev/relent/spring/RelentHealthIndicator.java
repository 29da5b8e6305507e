package dev.relent.spring;

import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code relent} health contributor: {@code DOWN} while a client's circuit breaker is open,
 * {@code OUT_OF_SERVICE} while a client's pacer or one of its scopes is paused (a 429, a {@code
 * Retry-After}, an exhausted quota), {@code UP} otherwise; the details give each client's guards
 * (breaker state and when it probes, budget, pacer, concurrency, paused scopes with when they
 * resume and why), never a secret. Turn it off with {@code management.health.relent.enabled=false},
 * or leave it out of the readiness group, when a downstream's trouble should not take the
 * application out of its load balancer.
 *
 * <p>Thread-safe.
 */
public final class RelentHealthIndicator implements HealthIndicator {
  private final RelentClients clients;

  /**
   * Creates the contributor.
   *
   * @param clients the named clients
   * @throws NullPointerException if {@code clients} is null
   */
  public RelentHealthIndicator(RelentClients clients) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
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
    return health.status(status(worst)).build();
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
