package dev.relent.idempotency;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link IdempotencyStore} in one process's memory, the default. Records are lost when the
 * process stops; several processes that share keys need a shared store (Redis, PostgreSQL).
 *
 * <p>Design: one {@link ConcurrentHashMap} from (scope, key) to record. Every SPI method is a
 * single {@code compute}/{@code computeIfPresent} on one entry, so it is atomic per key without a
 * lock of its own. Expired records are replaced by {@link #begin}, dropped by {@link #find}, and
 * swept by {@link #purgeExpired}, which {@link #begin} also runs once every {@value #SWEEP_EVERY}
 * calls so that a long-running server does not keep every key of the last days.
 *
 * <p>Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

  static final int SWEEP_EVERY = 4096;

  private final ConcurrentHashMap<Id, IdempotencyRecord> records = new ConcurrentHashMap<>();
  private final AtomicLong begins = new AtomicLong();

  /** Creates an empty store. */
  public InMemoryIdempotencyStore() {}

  @Override
  public Optional<IdempotencyRecord> begin(IdempotencyRecord inFlight, long nowMillis) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    if (!inFlight.isInFlight()) {
      throw new IllegalArgumentException("begin needs an in-flight record: " + inFlight);
    }
    if (begins.incrementAndGet() % SWEEP_EVERY == 0) {
      purgeExpired(nowMillis);
    }
    IdempotencyRecord result =
        records.compute(
            new Id(inFlight.scope(), inFlight.key()),
            (id, existing) ->
                existing == null || existing.isExpiredAt(nowMillis) ? inFlight : existing);
    // Identity tells whether our record went in: compute returns the value it left in the map.
    return result == inFlight ? Optional.empty() : Optional.of(result);
  }

  @Override
  public boolean complete(IdempotencyRecord completed) {
    Objects.requireNonNull(completed, "completed cannot be null");
    if (completed.isInFlight()) {
      throw new IllegalArgumentException("complete needs a completed record: " + completed);
    }
    IdempotencyRecord result =
        records.computeIfPresent(
            new Id(completed.scope(), completed.key()),
            (id, existing) -> ownedInFlight(existing, completed) ? completed : existing);
    return result == completed;
  }

  @Override
  public boolean release(IdempotencyRecord inFlight) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    boolean[] released = {false};
    records.computeIfPresent(
        new Id(inFlight.scope(), inFlight.key()),
        (id, existing) -> {
          if (ownedInFlight(existing, inFlight)) {
            released[0] = true;
            return null;
          }
          return existing;
        });
    return released[0];
  }

  @Override
  public Optional<IdempotencyRecord> find(String scope, String key, long nowMillis) {
    Id id = new Id(scope, key);
    IdempotencyRecord record = records.get(id);
    if (record == null) {
      return Optional.empty();
    }
    if (record.isExpiredAt(nowMillis)) {
      // Lazy purge; remove(key, value) leaves a record that replaced it meanwhile alone.
      records.remove(id, record);
      return Optional.empty();
    }
    return Optional.of(record);
  }

  @Override
  public long purgeExpired(long nowMillis) {
    long removed = 0;
    for (Map.Entry<Id, IdempotencyRecord> e : records.entrySet()) {
      if (e.getValue().isExpiredAt(nowMillis) && records.remove(e.getKey(), e.getValue())) {
        removed++;
      }
    }
    return removed;
  }

  /**
   * Returns how many records the store holds, expired ones not yet purged included.
   *
   * @return the number of records
   */
  public int size() {
    return records.size();
  }

  @Override
  public String toString() {
    return "InMemoryIdempotencyStore{records=" + records.size() + '}';
  }

  private static boolean ownedInFlight(IdempotencyRecord existing, IdempotencyRecord mine) {
    return existing.isInFlight() && existing.token().equals(mine.token());
  }

  private record Id(String scope, String key) {
    Id {
      Objects.requireNonNull(scope, "scope cannot be null");
      Objects.requireNonNull(key, "key cannot be null");
    }
  }
}
