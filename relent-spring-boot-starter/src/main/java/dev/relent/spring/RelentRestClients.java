package dev.relent.spring;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.DefaultUriBuilderFactory;

/**
 * {@code RestClient} and {@code RestTemplate} for the named clients of {@code relent.clients.*}:
 * one line per client.
 *
 * <pre>{@code
 * @Bean
 * RestClient payments(RelentRestClients relent) {
 *   return relent.restClient("payments");
 * }
 * }</pre>
 *
 * <p>{@link #restClient(String)} starts from Spring Boot's {@code RestClient.Builder} (its message
 * converters and observations) and sets the client's base URL, the Relent interceptor and a JDK
 * request factory that bounds each attempt by its time limit. To keep a request factory of your own
 * (its SSL settings, its pool), apply {@link #interceptor(String)} alone: {@code
 * builder.requestInterceptor(relent.interceptor("payments"))}; attempts are then bounded by that
 * factory's timeouts, and the deadline between attempts.
 *
 * <p>Every interceptor of one name shares the client's guards with the WebClient filter of that
 * name. Thread-safe.
 */
public final class RelentRestClients {
  private final RelentClients clients;
  private final Supplier<RestClient.Builder> builders;
  private final PerClient<RelentRestInterceptor> interceptors;
  private final PerClient<ClientHttpRequestFactory> factories;

  /**
   * Builds the interceptor of every client now, so that a refused customization fails at start-up.
   *
   * @param clients the named clients
   * @param builders where new {@code RestClient.Builder}s come from (Spring Boot's, or {@code
   *     RestClient::builder})
   * @throws NullPointerException if an argument is null
   */
  public RelentRestClients(RelentClients clients, Supplier<RestClient.Builder> builders) {
    this.clients = Objects.requireNonNull(clients, "clients cannot be null");
    this.builders = Objects.requireNonNull(builders, "builders cannot be null");
    this.interceptors =
        new PerClient<>(
            clients,
            c ->
                c.configure(
                        RelentRestInterceptor.builder().withAttemptBodyLimit(c.attemptBodyLimit()))
                    .build());
    this.factories = new PerClient<>(clients, RelentRestClients::requestFactory);
  }

  /** The JDK client's factory, connecting within the client's attempt timeout. */
  private static ClientHttpRequestFactory requestFactory(RelentClient client) {
    Duration connect = client.policy().config().attemptTimeout();
    return RelentRestInterceptor.requestFactory(
        HttpClient.newBuilder().connectTimeout(connect).build());
  }

  /**
   * Returns the interceptor of a named client, shared by every RestClient and RestTemplate of it.
   *
   * @param name the key under {@code relent.clients}
   * @return the interceptor
   * @throws IllegalArgumentException if no client has that name
   */
  public RelentRestInterceptor interceptor(String name) {
    return interceptors.get(name);
  }

  /**
   * Returns what sets a named client on a {@code RestClient.Builder}: its base URL (if set), its
   * attempt-bounded request factory and its interceptor. For {@code
   * RestClient.builder().apply(relent.customizer("payments"))}.
   *
   * @param name the key under {@code relent.clients}
   * @return the customizer
   * @throws IllegalArgumentException if no client has that name
   */
  public Consumer<RestClient.Builder> customizer(String name) {
    RelentClient client = clients.client(name);
    RelentRestInterceptor interceptor = interceptors.get(name);
    ClientHttpRequestFactory factory = factories.get(name);
    return builder -> {
      client.baseUrl().ifPresent(builder::baseUrl);
      builder.requestFactory(factory).requestInterceptor(interceptor);
    };
  }

  /**
   * Returns a new {@code RestClient} of a named client, from a new {@code RestClient.Builder}.
   *
   * @param name the key under {@code relent.clients}
   * @return the client
   * @throws IllegalArgumentException if no client has that name
   */
  public RestClient restClient(String name) {
    return builders.get().apply(customizer(name)).build();
  }

  /**
   * Returns a new {@code RestTemplate} of a named client: the attempt-bounded request factory, the
   * interceptor, and the base URL for relative URI templates.
   *
   * @param name the key under {@code relent.clients}
   * @return the template
   * @throws IllegalArgumentException if no client has that name
   */
  public RestTemplate restTemplate(String name) {
    RelentClient client = clients.client(name);
    RestTemplate template = new RestTemplate(factories.get(name));
    template.getInterceptors().add(interceptors.get(name));
    client
        .baseUrl()
        .ifPresent(
            base -> template.setUriTemplateHandler(new DefaultUriBuilderFactory(base.toString())));
    return template;
  }
}
