package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void aPolicyListsItsSettingsAsItsConfigurationDoesUnderItsOwnName() {
    RetryPolicy defaults = RetryPolicy.ofDefaults();

    assertThat(defaults)
        .hasToString(
            "RetryPolicy[maxRetries=5, backoff=Backoff[base=500 ms, cap=30 s, jitter=FULL],"
                + " deadline=30 s, attemptTimeout=10 s, maxServerWait=deadline,"
                + " serverWaitSpread=0.1]");
    assertThat(defaults.config())
        .hasToString(
            "RetryPolicyConfig[maxRetries=5, backoff=Backoff[base=500 ms, cap=30 s, jitter=FULL],"
                + " deadline=30 s, attemptTimeout=10 s, maxServerWait=deadline,"
                + " serverWaitSpread=0.1]");
    assertThat(RetryPolicy.builder().withMaxServerWait(Duration.ofSeconds(2)).build())
        .hasToString(
            "RetryPolicy[maxRetries=5, backoff=Backoff[base=500 ms, cap=30 s, jitter=FULL],"
                + " deadline=30 s, attemptTimeout=10 s, maxServerWait=2 s,"
                + " serverWaitSpread=0.1]");
  }

  @Test
  void theDefaultPolicyIsSharedAndEqualToOneBuiltWithTheDefaults() {
    assertThat(RetryPolicy.ofDefaults()).isSameAs(RetryPolicy.ofDefaults());
    assertThat(RetryPolicy.builder().build())
        .isEqualTo(RetryPolicy.ofDefaults())
        .hasSameHashCodeAs(RetryPolicy.ofDefaults());
    assertThat(RetryPolicy.builder().withMaxRetries(2).build())
        .isNotEqualTo(RetryPolicy.ofDefaults());
  }
}
