package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata the processor writes from {@link RelentProperties}' javadoc, which
 * IDEs complete {@code relent.*} keys from: every key of {@code relent.defaults} with its
 * description and default, the map of named clients, and the health contributor's switches.
 */
class ConfigurationMetadataTest {

  @Test
  void everyKeyHasItsDescriptionAndDefault() throws Exception {
    String json = metadata();
    assertThat(property(json, "relent.defaults.max-retries"))
        .containsEntry("type", "java.lang.Integer")
        .containsEntry("defaultValue", 5)
        .containsEntry(
            "description", "The most retries after the first attempt; 0 turns retries off.");
    assertThat(property(json, "relent.defaults.deadline"))
        .containsEntry("type", "java.time.Duration")
        .containsEntry("defaultValue", "30s");
    assertThat(property(json, "relent.defaults.attempt-timeout"))
        .containsEntry("defaultValue", "10s");
    assertThat(property(json, "relent.defaults.backoff.base"))
        .containsEntry("defaultValue", "500ms");
    assertThat(property(json, "relent.defaults.backoff.jitter"))
        .containsEntry("type", "dev.relent.Jitter");
    assertThat(property(json, "relent.defaults.breaker.enabled"))
        .containsEntry("defaultValue", false);
    assertThat(property(json, "relent.defaults.breaker.failure-rate-threshold"))
        .containsEntry("defaultValue", 50);
    assertThat(property(json, "relent.defaults.budget.ratio")).containsEntry("defaultValue", 0.1);
    assertThat(property(json, "relent.defaults.idempotency-keys"))
        .containsEntry("defaultValue", false)
        .hasEntrySatisfying("description", d -> assertThat((String) d).contains("Idempotency-Key"));
    assertThat(property(json, "relent.defaults.base-url"))
        .hasEntrySatisfying("description", d -> assertThat((String) d).contains("absolute http"));
    assertThat(property(json, "relent.clients"))
        .hasEntrySatisfying("type", t -> assertThat((String) t).contains("RelentProperties$Client"))
        .hasEntrySatisfying("description", d -> assertThat((String) d).contains("relent.defaults"));
  }

  @Test
  void theHealthContributorsKeysAreDescribed() throws Exception {
    String json = metadata();
    assertThat(property(json, "management.health.relent.enabled"))
        .containsEntry("type", "java.lang.Boolean")
        .containsEntry("defaultValue", true)
        .hasEntrySatisfying("description", d -> assertThat((String) d).contains("relent health"));
    assertThat(property(json, "management.health.relent.affects-status"))
        .containsEntry("type", "java.lang.Boolean")
        .containsEntry("defaultValue", false)
        .hasEntrySatisfying("description", d -> assertThat((String) d).contains("stays UP"));
  }

  private static String metadata() throws Exception {
    try (InputStream in =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the processor's output in the jar").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Map<String, Object> property(String json, String name) {
    List<Map<String, Object>> found =
        JsonPath.read(json, "$.properties[?(@.name == '" + name + "')]");
    assertThat(found).as(name).hasSize(1);
    return found.get(0);
  }
}
