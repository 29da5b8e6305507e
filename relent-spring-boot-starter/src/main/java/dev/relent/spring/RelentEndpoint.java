package dev.relent.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code relent} actuator endpoint ({@code /actuator/relent} once exposed with {@code
 * management.endpoints.web.exposure.include=relent}): every named client with its status, redacted
 * base URL, policy, idempotency setting and the state of each guard; {@code
 * /actuator/relent/{name}} for one. Never a secret. Read-only.
 *
 * <p>Thread-safe.
 */
@Endpoint(id = "relent")
public final class RelentEndpoint {
  private final RelentClients clients;

  /**
   * Creates the endpoint.
   *
   * @param clients the named clients
   * @throws NullPointerException if {@code clients} is null
   */
  public RelentEndpoint(RelentClients clients) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
  }

  /**
   * Returns every client.
   *
   * @return {@code {"clients": {name: state}}}
   */
  @ReadOperation
  public Map<String, Object> clients() {
    Map<String, Object> all = new LinkedHashMap<>();
    clients.all().forEach((name, client) -> all.put(name, ClientState.describe(client)));
    return Map.of("clients", all);
  }

  /**
   * Returns one client.
   *
   * @param name the key under {@code relent.clients}
   * @return its state, or null (404) when no client has that name
   */
  @ReadOperation
  public Map<String, Object> client(@Selector String name) {
    RelentClient client = clients.all().get(name);
    return client == null ? null : ClientState.describe(client);
  }
}
