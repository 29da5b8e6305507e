package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.http.DecisionTable.Rule;
import org.junit.jupiter.api.Test;

/** What relent-http offers the other adapters: key resolution and the table for one-shot bodies. */
class AdapterSupportTest {

  @Test
  void keyForFollowsOneOrderOfPrecedence() {
    CallOptions defaults = CallOptions.ofDefaults();
    assertThat(defaults.keyFor("POST", "k-1", false)).isEqualTo("k-1");
    assertThat(defaults.keyFor("POST", null, false)).isNull();
    assertThat(defaults.keyFor("GET", null, true)).isNull();
    assertThat(defaults.keyFor("POST", null, true)).matches("[0-9a-f-]{36}");
    assertThat(defaults.keyFor("PATCH", null, true)).matches("[0-9a-f-]{36}");

    CallOptions given = CallOptions.builder().withIdempotencyKey("order-4711").build();
    assertThat(given.keyFor("GET", null, false)).isEqualTo("order-4711");
    assertThat(given.keyFor("POST", "k-1", false)).isEqualTo("k-1");

    CallOptions generate = CallOptions.builder().withIdempotencyKey().build();
    String first = generate.keyFor("POST", null, false);
    assertThat(first).matches("[0-9a-f-]{36}");
    assertThat(generate.keyFor("POST", null, false)).isNotEqualTo(first);

    CallOptions none = CallOptions.builder().withoutIdempotencyKey().build();
    assertThat(none.keyFor("POST", null, true)).isNull();
    assertThat(none.keyFor("POST", "k-1", true)).isEqualTo("k-1");

    assertThatThrownBy(() -> defaults.keyFor(null, null, false))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("method cannot be null");
  }

  @Test
  void withoutResendsKeepsOnlyWhatSentNothing() {
    DecisionTable once = DecisionTable.ofDefaults().withoutResends();
    for (int status : new int[] {408, 413, 429, 500, 502, 503, 504}) {
      assertThat(once.rule(status)).as("%d", status).isEqualTo(Rule.NEVER);
      assertThat(once.decide("GET", false, status, name -> "1").isRetry()).isFalse();
    }
    assertThat(once.rule(200)).isEqualTo(Rule.SUCCESS);
    assertThat(once.rule(404)).isEqualTo(Rule.NEVER);
    for (Fault fault : Fault.values()) {
      Rule expected =
          fault == Fault.CONNECT_REFUSED || fault == Fault.CONNECT_TIMEOUT
              ? Rule.RETRY_ANY_METHOD
              : Rule.NEVER;
      assertThat(once.rule(fault)).as("%s", fault).isEqualTo(expected);
    }
    assertThat(once.decide("PUT", true, Fault.CONNECT_REFUSED).isRetry()).isTrue();
    assertThat(once.decide("PUT", true, Fault.RESET).isRetry()).isFalse();
    // A status rule that retries any method re-sends the body too.
    DecisionTable trusting = DecisionTable.ofDefaults().with(503, Rule.RETRY_ANY_METHOD);
    assertThat(trusting.withoutResends().rule(503)).isEqualTo(Rule.NEVER);
    assertThat(trusting.withoutResends().withoutResends()).isEqualTo(trusting.withoutResends());
    DecisionTable already = once.withoutResends();
    assertThat(already).isSameAs(once);
  }
}
