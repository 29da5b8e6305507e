package dev.relent.spring;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * {@code WebClient}s for the named clients of {@code relent.clients.*}: one line per client.
 *
 * <pre>{@code
 * @Bean
 * WebClient payments(RelentWebClients relent) {
 *   return relent.webClient("payments");
 * }
 * }</pre>
 *
 * <p>{@link #webClient(String)} starts from Spring Boot's {@code WebClient.Builder} (its codecs,
 * connector and observations) and sets the client's base URL and the Relent filter; {@link
 * #filter(String)} alone goes on a builder of your own. Every filter of one name shares the
 * client's guards with the RestClient interceptor of that name. Thread-safe.
 */
public final class RelentWebClients {
  private final RelentClients clients;
  private final Supplier<WebClient.Builder> builders;
  private final PerClient<RelentWebClientFilter> filters;

  /**
   * Builds the filter of every client now, so that a refused customization fails at start-up.
   *
   * @param clients the named clients
   * @param builders where new {@code WebClient.Builder}s come from (Spring Boot's, or {@code
   *     WebClient::builder})
   * @throws NullPointerException if an argument is null
   */
  public RelentWebClients(RelentClients clients, Supplier<WebClient.Builder> builders) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
    this.builders = Objects.requireNonNull(builders, "builders cannot be null");
    this.filters =
        new PerClient<>(clients, c -> c.configure(RelentWebClientFilter.builder()).build());
  }

  /**
   * Returns the filter of a named client, shared by every WebClient of it.
   *
   * @param name the key under {@code relent.clients}
   * @return the filter
   * @throws IllegalArgumentException if no client has that name
   */
  public RelentWebClientFilter filter(String name) {
    return filters.get(name);
  }

  /**
   * Returns what sets a named client on a {@code WebClient.Builder}: its base URL (if set) and its
   * filter. For {@code WebClient.builder().apply(relent.customizer("payments"))}.
   *
   * @param name the key under {@code relent.clients}
   * @return the customizer
   * @throws IllegalArgumentException if no client has that name
   */
  public Consumer<WebClient.Builder> customizer(String name) {
    RelentClient client = clients.client(name);
    RelentWebClientFilter filter = filters.get(name);
    return builder -> {
      client.baseUrl().ifPresent(base -> builder.baseUrl(base.toString()));
      builder.filter(filter);
    };
  }

  /**
   * Returns a new {@code WebClient} of a named client, from a new {@code WebClient.Builder}.
   *
   * @param name the key under {@code relent.clients}
   * @return the client
   * @throws IllegalArgumentException if no client has that name
   */
  public WebClient webClient(String name) {
    return builders.get().apply(customizer(name)).build();
  }
}
