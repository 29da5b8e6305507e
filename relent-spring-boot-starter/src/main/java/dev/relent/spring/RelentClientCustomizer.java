package dev.relent.spring;

import dev.relent.http.adapter.HttpAdapterBuilder;

/**
 * Adds to every adapter the starter builds for a named client (the RestClient/RestTemplate
 * interceptor, the WebClient filter) what properties cannot say: a call observer, an executor
 * listener, a decision table of the application's own. Declare it as a bean; it runs after the
 * properties are applied, for every client and every adapter, in bean order. The starter's own
 * metrics and tracing are customizers too.
 *
 * <pre>{@code
 * @Bean
 * RelentClientCustomizer auditing(AuditLog log) {
 *   return new RelentClientCustomizer() {
 *     @Override
 *     public <R> void customize(String name, HttpAdapterBuilder<R, ?> builder) {
 *       builder.withExecutor(x -> x.onEvent(event -> log.record(name, event.kind())));
 *     }
 *   };
 * }
 * }</pre>
 *
 * <p>Implementations are called at start-up and whenever an adapter is built, from any thread: they
 * must be thread-safe and must not block.
 */
public interface RelentClientCustomizer {

  /**
   * Customizes one adapter of a named client.
   *
   * @param name the client's name, the key under {@code relent.clients}
   * @param builder the adapter's builder, with the client's properties already set
   * @param <R> the adapter's response type
   */
  <R> void customize(String name, HttpAdapterBuilder<R, ?> builder);
}
