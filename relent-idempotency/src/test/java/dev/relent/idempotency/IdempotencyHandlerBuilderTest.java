package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.WallClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyHandlerBuilderTest {

  @Test
  void defaults() {
    IdempotencyConfig c = IdempotencyHandler.ofDefaults().config();

    assertThat(c.store()).isInstanceOf(InMemoryIdempotencyStore.class);
    assertThat(c.expiry()).isEqualTo(Duration.ofHours(24));
    assertThat(c.inFlightTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(c.clock()).isSameAs(WallClock.system());
    assertThat(c.keyRequired()).isFalse();
    assertThat(c.maxKeyLength()).isEqualTo(255);
  }

  @Test
  void eachDefaultHandlerHasItsOwnStore() {
    assertThat(IdempotencyHandler.ofDefaults().config().store())
        .isNotSameAs(IdempotencyHandler.ofDefaults().config().store());
  }

  @Test
  void settingsAreKeptAndCopiedByBuilderOfConfig() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    WallClock clock = () -> 42L;
    IdempotencyConfig c =
        IdempotencyHandler.builder()
            .withStore(store)
            .withExpiry(Duration.ofMinutes(5))
            .withInFlightTimeout(Duration.ofSeconds(30))
            .withClock(clock)
            .withKeyRequired(true)
            .withMaxKeyLength(64)
            .build()
            .config();

    IdempotencyConfig copy = IdempotencyHandler.builder(c).build().config();

    for (IdempotencyConfig x : new IdempotencyConfig[] {c, copy}) {
      assertThat(x.store()).isSameAs(store);
      assertThat(x.expiry()).isEqualTo(Duration.ofMinutes(5));
      assertThat(x.inFlightTimeout()).isEqualTo(Duration.ofSeconds(30));
      assertThat(x.clock()).isSameAs(clock);
      assertThat(x.keyRequired()).isTrue();
      assertThat(x.maxKeyLength()).isEqualTo(64);
    }
    assertThat(c.toString())
        .isEqualTo(
            "IdempotencyConfig{store=InMemoryIdempotencyStore{records=0}, expiry=PT5M,"
                + " inFlightTimeout=PT30S, keyRequired=true, maxKeyLength=64}");
    assertThat(IdempotencyHandler.builder(c).build().toString())
        .isEqualTo("IdempotencyHandler{" + c + "}");
  }

  @Test
  void durationsMustBeAtLeastOneMillisecond() {
    IdempotencyHandlerBuilder b = IdempotencyHandler.builder();

    assertThatThrownBy(() -> b.withExpiry(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expiry must be >= 1 ms: -5 ms");
    assertThatThrownBy(() -> b.withExpiry(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expiry must be >= 1 ms: 0 ms");
    assertThatThrownBy(() -> b.withExpiry(Duration.ofNanos(500_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expiry must be >= 1 ms: PT0.0005S");
    assertThatThrownBy(() -> b.withInFlightTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("inFlightTimeout must be >= 1 ms: -1000 ms");
    assertThatThrownBy(() -> b.withExpiry(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expiry must be <= 9223372036854775807 ms: 9223372036854775807 s");
    assertThat(b.withExpiry(Duration.ofMillis(1)).build().config().expiry())
        .isEqualTo(Duration.ofMillis(1));
    assertThat(b.withExpiry(Duration.ofMillis(Long.MAX_VALUE)).build().config().expiry())
        .isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
  }

  @Test
  void aHugeExpirySaturatesInsteadOfWrapping() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    IdempotencyHandler h =
        IdempotencyHandler.builder()
            .withStore(store)
            .withClock(() -> 1_000L)
            .withExpiry(Duration.ofMillis(Long.MAX_VALUE))
            .withInFlightTimeout(Duration.ofMillis(Long.MAX_VALUE))
            .build();

    h.handle(IdempotencyHandlerTest.request("k"), r -> IdempotencyResponse.builder(200).build());

    assertThat(store.find(Digests.scope("tenant-a"), "k", 1_000L).get().expiresAtMillis())
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void maxKeyLengthMustBePositive() {
    assertThatThrownBy(() -> IdempotencyHandler.builder().withMaxKeyLength(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxKeyLength must be >= 1: 0 characters");
  }

  @Test
  void nullsAreRejectedWithTheirName() {
    IdempotencyHandlerBuilder b = IdempotencyHandler.builder();

    assertThatThrownBy(() -> b.withStore(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("store cannot be null");
    assertThatThrownBy(() -> b.withExpiry(null)).hasMessage("expiry cannot be null");
    assertThatThrownBy(() -> b.withInFlightTimeout(null))
        .hasMessage("inFlightTimeout cannot be null");
    assertThatThrownBy(() -> b.withClock(null)).hasMessage("clock cannot be null");
    assertThatThrownBy(() -> IdempotencyHandler.builder(null)).hasMessage("config cannot be null");
  }
}
