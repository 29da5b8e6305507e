package dev.relent.spring;

import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.micrometer.RelentMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Relent's meters for every named client, auto-configured when Micrometer and relent-micrometer are
 * on the class path and a {@code MeterRegistry} bean exists: one {@link RelentMetrics} per client,
 * tagged {@code name} with the client's name, whose listener every adapter of the client gets and
 * whose gauges read the client's guards. Spring Boot binds it to the registry as it binds every
 * {@link MeterBinder}; the meters are those docs/micrometer.md lists.
 *
 * <p>Thread-safe.
 */
public final class RelentClientMetrics implements MeterBinder, RelentClientCustomizer {
  private final Supplier<RelentClients> clients;
  private final Map<String, RelentMetrics> metrics = new ConcurrentHashMap<>();
  private final Map<String, Boolean> gauged = new ConcurrentHashMap<>();

  /**
   * Creates the metrics.
   *
   * @param clients the named clients, asked for when binding (they are built with this object as
   *     one of their customizers)
   * @throws NullPointerException if {@code clients} is null
   */
  public RelentClientMetrics(Supplier<RelentClients> clients) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
  }

  /**
   * Returns the metrics of a named client.
   *
   * @param name the key under {@code relent.clients}
   * @return its metrics, the same object every time
   */
  public RelentMetrics metrics(String name) {
    return metrics.computeIfAbsent(name, RelentMetrics::of);
  }

  @Override
  public <R> void customize(String name, HttpAdapterBuilder<R, ?> builder) {
    RelentMetrics m = metrics(name);
    builder.withExecutor(x -> x.onEvent(m.<R>listener()));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (RelentClient client : clients.get().all().values()) {
      RelentMetrics m = metrics(client.name());
      if (gauged.putIfAbsent(client.name(), Boolean.TRUE) == null) {
        m.withGuardsOf(client.guards());
      }
      m.bindTo(registry);
    }
  }
}
