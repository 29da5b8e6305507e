package dev.relent.testing;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.MockServerStats;
import java.util.Map;
import java.util.Objects;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a running mock server's counters: concurrency seen and resources created.
 *
 * <pre>{@code
 * assertThat(server).createdExactlyOnePerKey("payments").hadAtMostConcurrent(3);
 * }</pre>
 */
public final class MockServerAssert extends AbstractAssert<MockServerAssert, MockServer> {

  MockServerAssert(MockServer server) {
    super(server, MockServerAssert.class);
  }

  /**
   * Checks the most requests the server answered at once.
   *
   * @param max the allowed peak
   * @return this
   */
  public MockServerAssert hadAtMostConcurrent(int max) {
    isNotNull();
    int peak = actual.stats().peakActive();
    if (peak > max) {
      failWithMessage("expected at most %d concurrent requests but the server saw %d", max, peak);
    }
    return this;
  }

  /**
   * Checks that the resource endpoint created exactly one resource for every idempotency key it
   * saw, and none without a key: nothing was created twice.
   *
   * @param endpoint the resource's name in the scenario
   * @return this
   */
  public MockServerAssert createdExactlyOnePerKey(String endpoint) {
    isNotNull();
    Objects.requireNonNull(endpoint, "endpoint cannot be null");
    MockServerStats stats = actual.stats();
    Map<String, Long> perKey = stats.resourcesCreatedPerKey(endpoint);
    if (perKey.isEmpty()) {
      failWithMessage("%s created nothing", endpoint);
    }
    for (Map.Entry<String, Long> e : perKey.entrySet()) {
      if (e.getKey().isEmpty()) {
        failWithMessage(
            "%s created %d resources for requests without a key", endpoint, e.getValue());
      }
      if (e.getValue() != 1) {
        failWithMessage(
            "%s created %d resources for one idempotency key; expected exactly one",
            endpoint, e.getValue());
      }
    }
    return this;
  }

  /**
   * Checks the total number of resources the endpoint created.
   *
   * @param endpoint the resource's name in the scenario
   * @param expected the count
   * @return this
   */
  public MockServerAssert createdResources(String endpoint, long expected) {
    isNotNull();
    long created = actual.stats().resourcesCreated(endpoint);
    if (created != expected) {
      failWithMessage(
          "expected %s to create %d resources but it created %d", endpoint, expected, created);
    }
    return this;
  }

  /**
   * Returns assertions on the server's journal.
   *
   * @return a journal assertion
   */
  public JournalAssert journal() {
    isNotNull();
    return new JournalAssert(actual.journal());
  }
}
