package dev.relent.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One object per named client (an adapter, a request factory), all made at start-up so that a
 * refused customization fails then, and handed out by the client's name. Immutable once made;
 * thread-safe.
 *
 * @param <T> what is made per client
 */
final class PerClient<T> {
  private final RelentClients clients;
  private final Map<String, T> byName = new LinkedHashMap<>();

  PerClient(RelentClients clients, Function<RelentClient, T> make) {
    this.clients = clients;
    for (RelentClient client : clients.all().values()) {
      byName.put(client.name(), make.apply(client));
    }
  }

  /**
   * Returns what was made for a client.
   *
   * @throws IllegalArgumentException if no client has that name
   */
  T get(String name) {
    clients.client(name);
    return byName.get(name);
  }
}
