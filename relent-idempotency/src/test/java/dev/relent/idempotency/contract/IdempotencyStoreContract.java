package dev.relent.idempotency.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link IdempotencyStore} must have. A store module tests itself by extending
 * this class (from relent-idempotency's test-jar, {@code <type>test-jar</type>}) and implementing
 * {@link #newStore()}.
 *
 * <p>Times are passed explicitly as {@code base() + offset}; a store that also sets a server-side
 * TTL as a backstop can override {@link #base()} with the real current time so that the backstop
 * does not delete records the test still expects.
 */
public abstract class IdempotencyStoreContract {

  /** 64 hex characters, like a real scope digest. */
  protected static final String SCOPE_A =
      "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3";

  /** A second scope digest. */
  protected static final String SCOPE_B =
      "b3a8e0e1f9ab1bfe3a36f231f676f78bb30a519d2b21e6c530c0eee8ebb4a5d0";

  /** The store under test, new for each test. */
  protected IdempotencyStore store;

  private long t0;

  /** For subclasses. */
  protected IdempotencyStoreContract() {}

  /**
   * Returns a new, empty store; called before each test.
   *
   * @return the store under test
   */
  protected abstract IdempotencyStore newStore();

  /**
   * Returns the time that the test's times are relative to.
   *
   * @return epoch milliseconds; default 2001-09-09T01:46:40Z
   */
  protected long base() {
    return 1_000_000_000_000L;
  }

  @BeforeEach
  void createStore() {
    t0 = base();
    store = newStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    if (store instanceof AutoCloseable) {
      ((AutoCloseable) store).close();
    }
  }

  private IdempotencyRecord inFlight(String scope, String key, String token, long expiresAfter) {
    return IdempotencyRecord.inFlight(scope, key, "fp-" + key, token, t0, t0 + expiresAfter);
  }

  private IdempotencyRecord inFlight(String key, String token) {
    return inFlight(SCOPE_A, key, token, 1_000);
  }

  private static Map<String, List<String>> headers() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("Content-Type", List.of("application/json"));
    h.put("Set-Cookie", List.of("a=1", "b=2"));
    h.put("X-Empty", List.of(""));
    h.put("x-lower", List.of("v"));
    return h;
  }

  private static final byte[] BINARY = {0, 1, (byte) 0x80, (byte) 0xFF, '"', '\\', '\n'};

  @Test
  void beginOnAnEmptyStoreClaimsTheKey() {
    IdempotencyRecord mine = inFlight("k1", "t1");

    assertThat(store.begin(mine, t0)).isEmpty();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(mine);
  }

  @Test
  void secondBeginReturnsTheFirstRecordAndKeepsIt() {
    IdempotencyRecord first = inFlight("k1", "t1");
    store.begin(first, t0);

    assertThat(store.begin(inFlight("k1", "t2"), t0 + 1)).contains(first);
    assertThat(store.find(SCOPE_A, "k1", t0 + 1)).contains(first);
  }

  @Test
  void beginReturnsACompletedRecordWithItsResponse() {
    IdempotencyRecord first = inFlight("k1", "t1");
    store.begin(first, t0);
    IdempotencyRecord done = first.complete(201, headers(), BINARY, t0 + 5_000);
    store.complete(done);

    Optional<IdempotencyRecord> got = store.begin(inFlight("k1", "t2"), t0 + 10);

    assertThat(got).contains(done);
    assertThat(got.get().status()).isEqualTo(201);
    assertThat(got.get().headers()).isEqualTo(headers());
    assertThat(List.copyOf(got.get().headers().keySet()))
        .containsExactly("Content-Type", "Set-Cookie", "X-Empty", "x-lower");
    assertThat(got.get().body()).isEqualTo(BINARY);
    assertThat(got.get().createdAtMillis()).isEqualTo(t0);
    assertThat(got.get().expiresAtMillis()).isEqualTo(t0 + 5_000);
    assertThat(got.get().token()).isEqualTo("t1");
    assertThat(got.get().fingerprint()).isEqualTo("fp-k1");
  }

  @Test
  void beginReplacesARecordFromItsExpiryOn() {
    store.begin(inFlight("k1", "t1"), t0);
    IdempotencyRecord second = inFlight(SCOPE_A, "k1", "t2", 5_000);

    assertThat(store.begin(second, t0 + 999)).isPresent();
    assertThat(store.begin(second, t0 + 1_000)).isEmpty();
    assertThat(store.find(SCOPE_A, "k1", t0 + 1_000)).contains(second);
  }

  @Test
  void beginReplacesAnExpiredCompletedRecord() {
    IdempotencyRecord first = inFlight("k1", "t1");
    store.begin(first, t0);
    store.complete(first.complete(200, Map.of(), new byte[0], t0 + 2_000));
    IdempotencyRecord second = inFlight(SCOPE_A, "k1", "t2", 5_000);

    assertThat(store.begin(second, t0 + 2_000)).isEmpty();
    assertThat(store.find(SCOPE_A, "k1", t0 + 2_000)).contains(second);
  }

  @Test
  void scopesAndKeysAreIndependent() {
    IdempotencyRecord a1 = inFlight(SCOPE_A, "k1", "t1", 1_000);
    IdempotencyRecord b1 = inFlight(SCOPE_B, "k1", "t2", 1_000);
    IdempotencyRecord a2 = inFlight(SCOPE_A, "k2", "t3", 1_000);

    assertThat(store.begin(a1, t0)).isEmpty();
    assertThat(store.begin(b1, t0)).isEmpty();
    assertThat(store.begin(a2, t0)).isEmpty();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(a1);
    assertThat(store.find(SCOPE_B, "k1", t0)).contains(b1);
    assertThat(store.find(SCOPE_A, "k2", t0)).contains(a2);
    assertThat(store.find(SCOPE_B, "k2", t0)).isEmpty();
  }

  @Test
  void keysWithAwkwardCharactersAreKeptExactly() {
    List<String> keys =
        List.of(
            "a b",
            "quote\"d",
            "back\\slash",
            "colon:star*?[x]",
            "%s%n' OR '1'='1",
            "x".repeat(255),
            "~!@#$%^&()_+{}|<>,./;");
    for (String key : keys) {
      IdempotencyRecord r = inFlight(key, "t-" + key.length());
      assertThat(store.begin(r, t0)).as(key).isEmpty();
      assertThat(store.find(SCOPE_A, key, t0)).as(key).contains(r);
    }
    assertThat(store.find(SCOPE_A, "a", t0)).isEmpty();
    assertThat(store.find(SCOPE_A, "quote", t0)).isEmpty();
  }

  @Test
  void completeReplacesTheOwnInFlightRecord() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);
    IdempotencyRecord done = mine.complete(503, headers(), BINARY, t0 + 86_400_000L);

    assertThat(store.complete(done)).isTrue();
    assertThat(store.find(SCOPE_A, "k1", t0 + 86_399_999L)).contains(done);
    assertThat(store.find(SCOPE_A, "k1", t0 + 86_400_000L)).isEmpty();
  }

  @Test
  void completeKeepsALargeBody() {
    byte[] body = new byte[256 * 1024];
    new SplittableRandom(42).nextBytes(body);
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);

    assertThat(store.complete(mine.complete(200, Map.of(), body, t0 + 1_000))).isTrue();
    assertThat(store.find(SCOPE_A, "k1", t0).orElseThrow().body()).isEqualTo(body);
  }

  @Test
  void completeWithAnotherTokenDoesNothing() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);
    IdempotencyRecord impostor =
        inFlight("k1", "t2").complete(200, Map.of(), new byte[0], t0 + 1_000);

    assertThat(store.complete(impostor)).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(mine);
  }

  @Test
  void completeWithoutARecordDoesNothing() {
    IdempotencyRecord done = inFlight("k1", "t1").complete(200, Map.of(), new byte[0], t0 + 1_000);

    assertThat(store.complete(done)).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0)).isEmpty();
  }

  @Test
  void completeOfACompletedRecordDoesNothing() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);
    IdempotencyRecord first = mine.complete(200, Map.of(), bytes("first"), t0 + 1_000);
    store.complete(first);

    assertThat(store.complete(mine.complete(500, Map.of(), bytes("second"), t0 + 1_000))).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(first);
  }

  @Test
  void aClaimThatExpiredAndWasTakenCannotBeCompletedOrReleased() {
    IdempotencyRecord old = inFlight("k1", "t1");
    store.begin(old, t0);
    IdempotencyRecord taker = inFlight(SCOPE_A, "k1", "t2", 5_000);
    store.begin(taker, t0 + 1_000);

    assertThat(store.complete(old.complete(200, Map.of(), new byte[0], t0 + 9_000))).isFalse();
    assertThat(store.release(old)).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0 + 1_000)).contains(taker);
  }

  @Test
  void releaseDeletesTheOwnInFlightRecordSoTheKeyCanBeClaimedAgain() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);

    assertThat(store.release(mine)).isTrue();
    assertThat(store.find(SCOPE_A, "k1", t0)).isEmpty();
    assertThat(store.begin(inFlight("k1", "t2"), t0)).isEmpty();
  }

  @Test
  void releaseWithAnotherTokenDoesNothing() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);

    assertThat(store.release(inFlight("k1", "t2"))).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(mine);
  }

  @Test
  void releaseLeavesACompletedRecordAlone() {
    IdempotencyRecord mine = inFlight("k1", "t1");
    store.begin(mine, t0);
    IdempotencyRecord done = mine.complete(200, Map.of(), new byte[0], t0 + 1_000);
    store.complete(done);

    assertThat(store.release(mine)).isFalse();
    assertThat(store.find(SCOPE_A, "k1", t0)).contains(done);
  }

  @Test
  void releaseWithoutARecordDoesNothing() {
    assertThat(store.release(inFlight("k1", "t1"))).isFalse();
  }

  @Test
  void findTreatsARecordAsAbsentFromItsExpiryOn() {
    store.begin(inFlight("k1", "t1"), t0);

    assertThat(store.find(SCOPE_A, "k1", t0 + 999)).isPresent();
    assertThat(store.find(SCOPE_A, "k1", t0 + 1_000)).isEmpty();
    assertThat(store.find(SCOPE_A, "nope", t0)).isEmpty();
  }

  @Test
  void purgeExpiredDeletesExactlyTheExpiredRecords() {
    store.begin(inFlight(SCOPE_A, "in-flight-1s", "t1", 1_000), t0);
    IdempotencyRecord c = inFlight(SCOPE_A, "done-2s", "t2", 1_000);
    store.begin(c, t0);
    store.complete(c.complete(200, Map.of(), new byte[0], t0 + 2_000));
    IdempotencyRecord keep = inFlight(SCOPE_B, "in-flight-3s", "t3", 3_000);
    store.begin(keep, t0);

    assertThat(store.purgeExpired(t0 + 999)).isZero();
    assertThat(store.purgeExpired(t0 + 2_000)).isEqualTo(2);
    assertThat(store.purgeExpired(t0 + 2_000)).isZero();
    // Asked at a time before their expiry: gone, not merely hidden.
    assertThat(store.find(SCOPE_A, "in-flight-1s", t0)).isEmpty();
    assertThat(store.find(SCOPE_A, "done-2s", t0)).isEmpty();
    assertThat(store.find(SCOPE_B, "in-flight-3s", t0)).contains(keep);
  }

  @Test
  void purgeExpiredOnAnEmptyStoreDeletesNothing() {
    assertThat(store.purgeExpired(t0)).isZero();
  }

  @Test
  void argumentsAreChecked() {
    IdempotencyRecord inFlight = inFlight("k1", "t1");
    IdempotencyRecord done = inFlight.complete(200, Map.of(), new byte[0], t0 + 1_000);

    assertThatThrownBy(() -> store.begin(null, t0)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.begin(done, t0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.complete(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.complete(inFlight)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.release(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.find(null, "k", t0)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.find(SCOPE_A, null, t0))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void simultaneousBeginsHaveExactlyOneWinner() throws Exception {
    int threads = 32;
    for (int round = 0; round < 20; round++) {
      String key = "race-" + round;
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<Optional<IdempotencyRecord>>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          IdempotencyRecord mine = inFlight(key, "t" + i);
          results.add(
              pool.submit(
                  () -> {
                    start.await(10, TimeUnit.SECONDS);
                    return store.begin(mine, t0);
                  }));
        }
        int winners = 0;
        String winnerToken = null;
        for (int i = 0; i < threads; i++) {
          Optional<IdempotencyRecord> r = results.get(i).get(10, TimeUnit.SECONDS);
          if (r.isEmpty()) {
            winners++;
            winnerToken = "t" + i;
          }
        }
        assertThat(winners).as("round %d", round).isEqualTo(1);
        assertThat(store.find(SCOPE_A, key, t0).orElseThrow().token()).isEqualTo(winnerToken);
        for (Future<Optional<IdempotencyRecord>> f : results) {
          f.get()
              .ifPresent(
                  r ->
                      assertThat(r.token())
                          .isEqualTo(store.find(SCOPE_A, key, t0).orElseThrow().token()));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
