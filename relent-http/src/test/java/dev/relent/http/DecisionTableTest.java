package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Verdict;
import dev.relent.http.DecisionTable.Rule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DecisionTableTest {
  private static final DecisionTable TABLE = DecisionTable.ofDefaults();
  private static final HeaderLookup NO_HEADERS = HeaderLookup.NONE;
  private static final HeaderLookup RETRY_AFTER =
      HeaderLookup.of(Map.of("Retry-After", List.of("5")));

  /** status, then the verdict for GET, keyed POST and unkeyed POST. */
  private static final Object[][] STATUS_ROWS = {
    {200, "success: http-2xx", "success: http-2xx", "success: http-2xx"},
    {204, "success: http-2xx", "success: http-2xx", "success: http-2xx"},
    {101, "success: http-1xx", "success: http-1xx", "success: http-1xx"},
    {304, "success: http-3xx", "success: http-3xx", "success: http-3xx"},
    {400, "abort: http-400", "abort: http-400", "abort: http-400"},
    {401, "abort: http-401", "abort: http-401", "abort: http-401"},
    {403, "abort: http-403", "abort: http-403", "abort: http-403"},
    {404, "abort: http-404", "abort: http-404", "abort: http-404"},
    {405, "abort: http-405", "abort: http-405", "abort: http-405"},
    {408, "retry: http-408", "retry: http-408", "abort: http-408-unkeyed-write"},
    {409, "abort: http-409", "abort: http-409", "abort: http-409"},
    {410, "abort: http-410", "abort: http-410", "abort: http-410"},
    {413, "abort: http-413", "abort: http-413", "abort: http-413"},
    {418, "abort: http-4xx", "abort: http-4xx", "abort: http-4xx"},
    {422, "abort: http-422", "abort: http-422", "abort: http-422"},
    {429, "retry: http-429", "retry: http-429", "abort: http-429-unkeyed-write"},
    {500, "retry: http-500", "retry: http-500", "abort: http-500-unkeyed-write"},
    {501, "abort: http-5xx", "abort: http-5xx", "abort: http-5xx"},
    {502, "retry: http-502", "retry: http-502", "abort: http-502-unkeyed-write"},
    {503, "retry: http-503", "retry: http-503", "abort: http-503-unkeyed-write"},
    {504, "retry: http-504", "retry: http-504", "abort: http-504-unkeyed-write"},
    {505, "abort: http-5xx", "abort: http-5xx", "abort: http-5xx"},
  };

  @Test
  void everyStatusRowForGetKeyedPostAndUnkeyedPost() {
    for (Object[] row : STATUS_ROWS) {
      int status = (Integer) row[0];
      assertThat(TABLE.decide("GET", false, status, NO_HEADERS).verdict())
          .as("GET %d", status)
          .hasToString((String) row[1]);
      assertThat(TABLE.decide("POST", true, status, NO_HEADERS).verdict())
          .as("keyed POST %d", status)
          .hasToString((String) row[2]);
      assertThat(TABLE.decide("POST", false, status, NO_HEADERS).verdict())
          .as("unkeyed POST %d", status)
          .hasToString((String) row[3]);
    }
  }

  @Test
  void idempotentMethodsRetryAndWritesDoNot() {
    for (String method : List.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "get")) {
      assertThat(TABLE.decide(method, false, 503, NO_HEADERS).isRetry()).as(method).isTrue();
    }
    for (String method : List.of("POST", "PATCH", "CONNECT", "PROPFIND", "")) {
      Decision d = TABLE.decide(method, false, 503, NO_HEADERS);
      assertThat(d.isRetry()).as(method).isFalse();
      assertThat(d.notResent()).as(method).isTrue();
    }
    assertThat(TABLE.decide(null, false, 503, NO_HEADERS).notResent()).isTrue();
  }

  @Test
  void unkeyedWriteAbortCountsAgainstTheDownstreamButA404DoesNot() {
    assertThat(TABLE.decide("POST", false, 503, NO_HEADERS).verdict().isDownstreamFailure())
        .isTrue();
    assertThat(TABLE.decide("GET", false, 404, NO_HEADERS).verdict().isDownstreamFailure())
        .isFalse();
    assertThat(TABLE.decide("GET", false, 501, NO_HEADERS).verdict().isDownstreamFailure())
        .isTrue();
  }

  @Test
  void payloadTooLargeIsRetriedOnlyWithRetryAfter() {
    assertThat(TABLE.decide("GET", false, 413, RETRY_AFTER).verdict())
        .hasToString("retry: http-413-retry-after");
    assertThat(TABLE.decide("POST", true, 413, RETRY_AFTER).verdict())
        .hasToString("retry: http-413-retry-after");
    assertThat(TABLE.decide("POST", false, 413, RETRY_AFTER).verdict())
        .hasToString("abort: http-413-retry-after-unkeyed-write");
    HeaderLookup garbage = HeaderLookup.of(Map.of("Retry-After", List.of("soon")));
    assertThat(TABLE.decide("GET", false, 413, garbage).verdict()).hasToString("abort: http-413");
    assertThat(TABLE.decide("GET", false, 413, null).verdict()).hasToString("abort: http-413");
  }

  @Test
  void everyFaultRow() {
    Object[][] rows = {
      {Fault.CONNECT_REFUSED, "retry: io-connect-refused", "retry: io-connect-refused"},
      {Fault.CONNECT_TIMEOUT, "retry: io-connect-timeout", "retry: io-connect-timeout"},
      {Fault.UNKNOWN_HOST, "abort: io-unknown-host", "abort: io-unknown-host"},
      {Fault.TLS, "abort: io-tls", "abort: io-tls"},
      {Fault.RESET, "retry: io-reset", "abort: io-reset-unkeyed-write"},
      {Fault.CLOSED, "retry: io-closed", "abort: io-closed-unkeyed-write"},
      {Fault.READ_TIMEOUT, "retry: io-read-timeout", "abort: io-read-timeout-unkeyed-write"},
      {Fault.TRUNCATED, "retry: io-truncated", "abort: io-truncated-unkeyed-write"},
      {Fault.OTHER, "retry: io-other", "abort: io-other-unkeyed-write"},
    };
    assertThat(rows.length).isEqualTo(Fault.values().length);
    for (Object[] row : rows) {
      Fault fault = (Fault) row[0];
      assertThat(TABLE.decide("GET", false, fault).verdict())
          .as("GET %s", fault)
          .hasToString((String) row[1]);
      assertThat(TABLE.decide("PATCH", true, fault).verdict())
          .as("keyed %s", fault)
          .hasToString((String) row[1]);
      assertThat(TABLE.decide("PATCH", false, fault).verdict())
          .as("unkeyed %s", fault)
          .hasToString((String) row[2]);
    }
  }

  @Test
  void aFailureThatIsNotTheNetworksIsPassedOn() {
    Decision d = TABLE.decide("GET", false, new IllegalStateException("bug"));
    assertThat(d.verdict()).isEqualTo(Verdict.abort("not-a-network-fault"));
    assertThat(d.tableRule()).isNull();
    assertThat(TABLE.decide("GET", false, new java.net.ConnectException("refused")).rule())
        .isEqualTo("io-connect-refused");
  }

  @Test
  void rowsCanBeOverriddenAndTablesStayImmutable() {
    DecisionTable strict =
        TABLE
            .with(503, Rule.NEVER)
            .with(Fault.UNKNOWN_HOST, Rule.RETRY_ANY_METHOD)
            .with(418, Rule.RETRY)
            .withStatusClass(5, Rule.RETRY);
    assertThat(strict.decide("GET", false, 503, NO_HEADERS).verdict())
        .isEqualTo(Verdict.abortFailure("http-503"));
    assertThat(strict.decide("POST", false, Fault.UNKNOWN_HOST).verdict())
        .isEqualTo(Verdict.retry("io-unknown-host"));
    assertThat(strict.decide("GET", false, 418, NO_HEADERS).verdict())
        .hasToString("retry: http-418");
    assertThat(strict.decide("GET", false, 507, NO_HEADERS).verdict())
        .hasToString("retry: http-5xx");
    assertThat(strict.rule(503)).isEqualTo(Rule.NEVER);
    assertThat(strict.rule(599)).isEqualTo(Rule.RETRY);
    assertThat(TABLE.rule(503)).isEqualTo(Rule.RETRY);
    assertThat(TABLE.decide("GET", false, 503, NO_HEADERS).isRetry()).isTrue();
    assertThat(strict)
        .isNotEqualTo(TABLE)
        .isEqualTo(
            TABLE
                .with(503, Rule.NEVER)
                .with(Fault.UNKNOWN_HOST, Rule.RETRY_ANY_METHOD)
                .with(418, Rule.RETRY)
                .withStatusClass(5, Rule.RETRY));
  }

  @Test
  void retryAnyMethodReSendsAnUnkeyedWrite() {
    DecisionTable trusting = TABLE.with(503, Rule.RETRY_ANY_METHOD);
    Decision d = trusting.decide("POST", false, 503, NO_HEADERS);
    assertThat(d.verdict()).hasToString("retry: http-503");
    assertThat(d.notResent()).isFalse();
  }

  @Test
  void successOnAFaultIsReadAsNever() {
    assertThat(TABLE.with(Fault.RESET, Rule.SUCCESS).decide("GET", false, Fault.RESET).verdict())
        .isEqualTo(Verdict.abortFailure("io-reset"));
  }

  @Test
  void invalidStatusesAreNotRetried() {
    assertThat(TABLE.decide("GET", false, 99, NO_HEADERS).verdict())
        .hasToString("abort: http-invalid-status");
    assertThat(TABLE.decide("GET", false, 600, NO_HEADERS).verdict())
        .hasToString("abort: http-invalid-status");
  }

  @Test
  void validation() {
    assertThatThrownBy(() -> TABLE.with(600, Rule.NEVER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status must be 100 to 599: 600");
    assertThatThrownBy(() -> TABLE.with(99, Rule.NEVER))
        .hasMessage("status must be 100 to 599: 99");
    assertThatThrownBy(() -> TABLE.withStatusClass(6, Rule.NEVER))
        .hasMessage("statusClass must be 1 to 5: 6");
    assertThatThrownBy(() -> TABLE.with(503, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("rule cannot be null");
    assertThatThrownBy(() -> TABLE.with((Fault) null, Rule.NEVER))
        .hasMessage("fault cannot be null");
    assertThatThrownBy(() -> TABLE.rule(1000)).hasMessage("status must be 100 to 599: 1000");
  }

  @Test
  void rowsListEveryRuleInOrder() {
    assertThat(TABLE.rows().keySet())
        .containsExactly(
            "http-400",
            "http-401",
            "http-403",
            "http-404",
            "http-405",
            "http-408",
            "http-409",
            "http-410",
            "http-413",
            "http-422",
            "http-429",
            "http-500",
            "http-502",
            "http-503",
            "http-504",
            "http-1xx",
            "http-2xx",
            "http-3xx",
            "http-4xx",
            "http-5xx",
            "io-connect-refused",
            "io-connect-timeout",
            "io-unknown-host",
            "io-tls",
            "io-reset",
            "io-closed",
            "io-read-timeout",
            "io-truncated",
            "io-other");
    assertThat(TABLE.rows().get("http-413")).isEqualTo(Rule.RETRY_WITH_RETRY_AFTER);
  }

  @Test
  void decidingReturnsSharedDecisions() {
    assertThat(TABLE.decide("GET", false, 503, NO_HEADERS))
        .isSameAs(TABLE.decide("DELETE", true, 503, NO_HEADERS));
    assertThat(TABLE.decide("GET", false, 418, NO_HEADERS))
        .isSameAs(TABLE.decide("GET", false, 499, NO_HEADERS));
  }
}
