package dev.relent.spring;

import dev.relent.time.TimeSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every named client of {@code relent.clients.*}, built and checked at start-up: the bean the
 * RestClient and WebClient helpers ({@link RelentRestClients}, {@link RelentWebClients}), the
 * health contributor and the {@code relent} endpoint read.
 *
 * <p>Immutable and thread-safe.
 */
public final class RelentClients {
  private final Map<String, RelentClient> clients;

  /**
   * Builds every client of the properties.
   *
   * @param properties the bound {@code relent.*} properties: each client's settings, and the
   *     defaults they started from (a refusal of two settings together says which gave each)
   * @param time the time source of every client
   * @param customizers what every adapter of every client gets after its properties
   * @throws RelentPropertyException if a property is refused, naming it
   * @throws NullPointerException if an argument is null
   */
  public RelentClients(
      RelentProperties properties, TimeSource time, List<RelentClientCustomizer> customizers) {
    Objects.requireNonNull(properties, "properties cannot be null");
    Map<String, RelentClient> built = new LinkedHashMap<>();
    properties
        .getClients()
        .forEach(
            (name, p) ->
                built.put(
                    name, RelentClient.of(name, p, properties.getDefaults(), time, customizers)));
    this.clients = Collections.unmodifiableMap(built);
  }

  /**
   * Returns the client of a name.
   *
   * @param name the key under {@code relent.clients}
   * @return the client
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if no client has that name; the message lists those that do
   */
  public RelentClient client(String name) {
    Objects.requireNonNull(name, "name cannot be null");
    RelentClient client = clients.get(name);
    if (client == null) {
      throw new IllegalArgumentException(
          "no Relent client named \""
              + name
              + "\": the clients are "
              + clients.keySet()
              + "; add one with relent.clients."
              + name
              + ".base-url=...");
    }
    return client;
  }

  /**
   * Returns the names of the clients, in the order of the properties.
   *
   * @return the names, unmodifiable
   */
  public Set<String> names() {
    return clients.keySet();
  }

  /**
   * Returns every client by name.
   *
   * @return name to client, unmodifiable, in the order of the properties
   */
  public Map<String, RelentClient> all() {
    return clients;
  }

  @Override
  public String toString() {
    return "RelentClients" + clients.keySet();
  }
}
