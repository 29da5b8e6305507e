package dev.relent.spring;

import dev.relent.opentelemetry.RelentTracing;
import dev.relent.time.TimeSource;
import io.opentelemetry.api.OpenTelemetry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration of the named clients of {@code relent.clients.*}: {@link RelentClients}
 * always; {@link RelentRestClients} with Spring Web, {@link RelentWebClients} with WebFlux; {@link
 * RelentClientMetrics} with Micrometer and a {@code MeterRegistry}; tracing with
 * relent-opentelemetry and an {@code OpenTelemetry} bean; the {@code relent} health contributor and
 * endpoint with the actuator. Each bean backs off when the application declares its own. A {@link
 * TimeSource} bean, if any, is every client's time source (tests give relent-testing's {@code
 * FakeTime}).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration",
      "org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"
    })
@EnableConfigurationProperties(RelentProperties.class)
public class RelentAutoConfiguration {

  /** Created by Spring. */
  public RelentAutoConfiguration() {}

  /**
   * The named clients, built and checked at start-up.
   *
   * @param properties the bound properties
   * @param environment where {@code relent.defaults} and each client's keys are bound from
   * @param time a time source bean, if any
   * @param customizers every customizer bean, in order
   * @return the clients
   */
  @Bean
  @ConditionalOnMissingBean
  public RelentClients relentClients(
      RelentProperties properties,
      Environment environment,
      ObjectProvider<TimeSource> time,
      ObjectProvider<RelentClientCustomizer> customizers) {
    TimeSource source = time.getIfAvailable(TimeSource::system);
    RelentClient.checkDefaults(properties.getDefaults(), source);
    return new RelentClients(
        withDefaults(properties, Binder.get(environment)),
        source,
        customizers.orderedStream().toList());
  }

  /**
   * Each client as {@code relent.defaults} and then its own keys set it: both are bound onto one
   * new instance, so that a key the client leaves out keeps the default's value.
   */
  static RelentProperties withDefaults(RelentProperties properties, Binder binder) {
    Map<String, RelentProperties.Client> resolved = new LinkedHashMap<>();
    ConfigurationPropertyName clients = ConfigurationPropertyName.of("relent.clients");
    for (Map.Entry<String, RelentProperties.Client> e : properties.getClients().entrySet()) {
      RelentProperties.Client client = new RelentProperties.Client();
      binder.bind("relent.defaults", Bindable.ofInstance(client));
      binder.bind(clients.append("[" + e.getKey() + "]"), Bindable.ofInstance(client));
      resolved.put(e.getKey(), client);
    }
    RelentProperties effective = new RelentProperties();
    binder.bind("relent.defaults", Bindable.ofInstance(effective.getDefaults()));
    effective.setClients(resolved);
    return effective;
  }

  /** RestClient and RestTemplate, with Spring Web. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClient.class)
  static class Rest {
    @Bean
    @ConditionalOnMissingBean
    RelentRestClients relentRestClients(
        RelentClients clients, ObjectProvider<RestClient.Builder> builders) {
      return new RelentRestClients(clients, new BootBuilders(builders));
    }
  }

  /**
   * Spring Boot's {@code RestClient.Builder} when there is one, else {@code RestClient.builder()};
   * which of the two is said once, when the first RestClient is built (an application that builds
   * none, a WebFlux one, hears nothing). Boot makes the bean with spring-boot-restclient, which the
   * starter depends on, in a servlet or non-web application, never in a reactive one.
   */
  static final class BootBuilders implements Supplier<RestClient.Builder> {
    private static final Logger LOG = LoggerFactory.getLogger("dev.relent.spring");

    private final ObjectProvider<RestClient.Builder> builders;
    private final AtomicBoolean told = new AtomicBoolean();

    BootBuilders(ObjectProvider<RestClient.Builder> builders) {
      this.builders = builders;
    }

    @Override
    public RestClient.Builder get() {
      RestClient.Builder boot = builders.getIfAvailable();
      if (told.compareAndSet(false, true)) {
        if (boot != null) {
          LOG.info(
              "Relent RestClients are built from Spring Boot's RestClient.Builder (its message"
                  + " converters, RestClientCustomizers and http.client.requests observations)");
        } else {
          LOG.warn(
              "Relent RestClients are built from RestClient.builder(): there is no"
                  + " RestClient.Builder bean, so they get no http.client.requests observations"
                  + " and no RestClientCustomizer. Spring Boot 4 makes one with"
                  + " spring-boot-restclient (org.springframework.boot:"
                  + "spring-boot-starter-restclient), in a servlet or non-web application; a"
                  + " reactive one gets none: declare a RestClient.Builder bean, or use"
                  + " relent.customizer(name) on a builder of your own");
        }
      }
      return boot != null ? boot : RestClient.builder();
    }
  }

  /** WebClient, with WebFlux. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(WebClient.class)
  static class Web {
    @Bean
    @ConditionalOnMissingBean
    RelentWebClients relentWebClients(
        RelentClients clients, ObjectProvider<WebClient.Builder> builders) {
      return new RelentWebClients(clients, () -> builders.getIfAvailable(WebClient::builder));
    }
  }

  /** Meters, with Micrometer, relent-micrometer and a registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"dev.relent.micrometer.RelentMetrics", "io.micrometer.core.instrument.MeterRegistry"})
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    RelentClientMetrics relentClientMetrics(ObjectProvider<RelentClients> clients) {
      return new RelentClientMetrics(clients::getObject);
    }
  }

  /** Spans, with relent-opentelemetry and an OpenTelemetry bean. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"dev.relent.opentelemetry.RelentTracing", "io.opentelemetry.api.OpenTelemetry"})
  @ConditionalOnBean(type = "io.opentelemetry.api.OpenTelemetry")
  static class Tracing {
    @Bean
    @ConditionalOnMissingBean(name = "relentTracingCustomizer")
    RelentClientCustomizer relentTracingCustomizer(OpenTelemetry openTelemetry) {
      RelentTracing tracing = RelentTracing.of(openTelemetry);
      return new RelentClientCustomizer() {
        @Override
        public <R> void customize(String name, dev.relent.http.adapter.HttpAdapterBuilder<R, ?> b) {
          b.withCallObserver(tracing);
        }
      };
    }
  }

  /**
   * The health contributor, with the actuator's health support; the switch is read in a nested
   * class, which is not parsed when spring-boot-health is missing (its condition class with it).
   * Both keys are described in additional-spring-configuration-metadata.json.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthContributor {
    /** Whether the contributor's status is the worst client's; by default it is UP. */
    static final String AFFECTS_STATUS = "management.health.relent.affects-status";

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("relent")
    static class Enabled {
      @Bean
      @ConditionalOnMissingBean
      RelentHealthIndicator relentHealthIndicator(RelentClients clients, Environment environment) {
        boolean affectsStatus =
            Binder.get(environment).bind(AFFECTS_STATUS, Boolean.class).orElse(false);
        return new RelentHealthIndicator(clients, affectsStatus);
      }
    }
  }

  /** The {@code relent} endpoint, with the actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
      })
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    RelentEndpoint relentEndpoint(RelentClients clients) {
      return new RelentEndpoint(clients);
    }
  }
}
