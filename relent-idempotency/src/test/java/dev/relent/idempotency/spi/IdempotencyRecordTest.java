package dev.relent.idempotency.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IdempotencyRecordTest {

  private static IdempotencyRecord inFlight() {
    return IdempotencyRecord.inFlight("scope", "key", "fp", "token", 1_000, 2_000);
  }

  @Test
  void inFlightRecordHasNoResponse() {
    IdempotencyRecord r = inFlight();

    assertThat(r.state()).isEqualTo(IdempotencyRecord.State.IN_FLIGHT);
    assertThat(r.isInFlight()).isTrue();
    assertThat(r.status()).isZero();
    assertThat(r.headers()).isEmpty();
    assertThat(r.body()).isEmpty();
    assertThat(r.scope()).isEqualTo("scope");
    assertThat(r.key()).isEqualTo("key");
    assertThat(r.fingerprint()).isEqualTo("fp");
    assertThat(r.token()).isEqualTo("token");
    assertThat(r.createdAtMillis()).isEqualTo(1_000);
    assertThat(r.expiresAtMillis()).isEqualTo(2_000);
  }

  @Test
  void expiresExactlyAtItsExpiry() {
    assertThat(inFlight().isExpiredAt(1_999)).isFalse();
    assertThat(inFlight().isExpiredAt(2_000)).isTrue();
  }

  @Test
  void completeKeepsIdentityAndCopiesTheResponse() {
    Map<String, List<String>> headers = new HashMap<>();
    List<String> values = new ArrayList<>(List.of("1"));
    headers.put("X-A", values);
    byte[] body = {1, 2, 3};

    IdempotencyRecord done = inFlight().complete(201, headers, body, 9_000);
    values.add("2");
    headers.put("X-B", List.of("b"));
    body[0] = 9;

    assertThat(done.state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
    assertThat(done.isInFlight()).isFalse();
    assertThat(done.headers()).isEqualTo(Map.of("X-A", List.of("1")));
    assertThat(done.body()).containsExactly(1, 2, 3);
    assertThat(done.token()).isEqualTo("token");
    assertThat(done.createdAtMillis()).isEqualTo(1_000);
    assertThat(done.expiresAtMillis()).isEqualTo(9_000);
    done.body()[0] = 7;
    assertThat(done.body()).containsExactly(1, 2, 3);
    assertThatThrownBy(() -> done.headers().put("X", List.of()))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> done.headers().get("X-A").add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void completingTwiceIsAnError() {
    IdempotencyRecord done = inFlight().complete(200, Map.of(), new byte[0], 3_000);

    assertThatThrownBy(() -> done.complete(200, Map.of(), new byte[0], 3_000))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("record is already completed");
  }

  @Test
  void validatesItsFields() {
    assertThatThrownBy(() -> IdempotencyRecord.inFlight("s", "k", "f", "t", 2_000, 2_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expiresAtMillis must be > createdAtMillis: 2000 ms <= 2000 ms");
    assertThatThrownBy(() -> IdempotencyRecord.inFlight(null, "k", "f", "t", 1, 2))
        .hasMessage("scope cannot be null");
    assertThatThrownBy(() -> IdempotencyRecord.inFlight("s", null, "f", "t", 1, 2))
        .hasMessage("key cannot be null");
    assertThatThrownBy(() -> IdempotencyRecord.inFlight("s", "k", null, "t", 1, 2))
        .hasMessage("fingerprint cannot be null");
    assertThatThrownBy(() -> IdempotencyRecord.inFlight("s", "k", "f", null, 1, 2))
        .hasMessage("token cannot be null");
    assertThatThrownBy(() -> inFlight().complete(99, Map.of(), new byte[0], 3_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status must be in 100..599: 99");
    assertThatThrownBy(() -> inFlight().complete(600, Map.of(), new byte[0], 3_000))
        .hasMessage("status must be in 100..599: 600");
    assertThatThrownBy(() -> inFlight().complete(200, null, new byte[0], 3_000))
        .hasMessage("headers cannot be null");
    assertThatThrownBy(() -> inFlight().complete(200, Map.of(), null, 3_000))
        .hasMessage("body cannot be null");
    Map<String, List<String>> nullValue = new HashMap<>();
    nullValue.put("X-A", java.util.Arrays.asList("a", null));
    assertThatThrownBy(() -> inFlight().complete(200, nullValue, new byte[0], 3_000))
        .hasMessage("header value cannot be null: X-A");
  }

  @Test
  void equalityCoversEveryField() {
    IdempotencyRecord a =
        IdempotencyRecord.completed("s", "k", "f", "t", 1, 5, 200, Map.of(), new byte[] {1});
    IdempotencyRecord same =
        IdempotencyRecord.completed("s", "k", "f", "t", 1, 5, 200, Map.of(), new byte[] {1});

    assertThat(a).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(a)
        .isNotEqualTo(
            IdempotencyRecord.completed("s", "k", "f", "t", 1, 5, 200, Map.of(), new byte[] {2}))
        .isNotEqualTo(
            IdempotencyRecord.completed("s", "k", "f", "t", 1, 5, 201, Map.of(), new byte[] {1}))
        .isNotEqualTo(
            IdempotencyRecord.completed("s", "k", "f", "u", 1, 5, 200, Map.of(), new byte[] {1}))
        .isNotEqualTo(IdempotencyRecord.inFlight("s", "k", "f", "t", 1, 5));
  }

  @Test
  void toStringShowsNeitherKeyNorBody() {
    IdempotencyRecord r =
        IdempotencyRecord.completed(
            "scope-digest",
            "secret-key",
            "fp",
            "t",
            1,
            5,
            201,
            Map.of("Set-Cookie", List.of("session=abc")),
            "card 4242".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    assertThat(r.toString())
        .isEqualTo(
            "IdempotencyRecord{state=COMPLETED, status=201, headers=1, body=9 bytes,"
                + " createdAtMillis=1, expiresAtMillis=5}");
  }

  @Test
  void systemClockReadsTheWallClock() {
    long before = java.time.Instant.now().toEpochMilli();
    long now = WallClock.system().millis();
    long after = java.time.Instant.now().toEpochMilli();

    assertThat(now).isBetween(before, after);
  }
}
