package dev.relent.idempotency;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.WallClock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The {@link IdempotencyHandler}.
 *
 * <p>Design: a key's life is the store's record. {@code begin} claims it atomically (one winner
 * among any number of simultaneous duplicates); the winner runs the operation and then either
 * {@code complete}s the record with the response or, if no response came (exception, failed stage,
 * null), {@code release}s it. Losers look at the record they got back: different fingerprint → 422,
 * in flight → 409, completed → replay. complete and release match the owner token, so a winner
 * whose claim expired (in-flight timeout) and was taken by another request cannot overwrite or
 * delete the new owner's record. The handler keeps no state of its own.
 */
final class DefaultIdempotencyHandler implements IdempotencyHandler {

  private static final List<String> TRUE = List.of("true");

  private final IdempotencyConfig config;
  private final IdempotencyStore store;
  private final WallClock clock;
  private final long expiryMillis;
  private final long inFlightMillis;

  DefaultIdempotencyHandler(IdempotencyConfig config) {
    this.config = config;
    this.store = config.store();
    this.clock = config.clock();
    this.expiryMillis = config.expiry().toMillis();
    this.inFlightMillis = config.inFlightTimeout().toMillis();
  }

  @Override
  public IdempotencyConfig config() {
    return config;
  }

  @Override
  public IdempotencyResponse handle(
      IdempotencyRequest request,
      Function<? super IdempotencyRequest, ? extends IdempotencyResponse> operation) {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(operation, "operation cannot be null");
    Claim claim = claim(request);
    if (claim.answer() != null) {
      return claim.answer();
    }
    if (claim.record() == null) {
      return Objects.requireNonNull(operation.apply(request), "operation returned null");
    }
    IdempotencyResponse response;
    try {
      response = Objects.requireNonNull(operation.apply(request), "operation returned null");
    } catch (Throwable t) {
      release(claim.record(), t);
      throw t;
    }
    store(claim.record(), response);
    return response;
  }

  @Override
  public CompletionStage<IdempotencyResponse> handleAsync(
      IdempotencyRequest request,
      Function<? super IdempotencyRequest, ? extends CompletionStage<IdempotencyResponse>>
          operation) {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(operation, "operation cannot be null");
    Claim claim;
    try {
      claim = claim(request);
    } catch (RuntimeException | Error e) {
      return CompletableFuture.failedFuture(e);
    }
    if (claim.answer() != null) {
      return CompletableFuture.completedFuture(claim.answer());
    }
    CompletionStage<IdempotencyResponse> stage;
    try {
      stage = Objects.requireNonNull(operation.apply(request), "operation returned a null stage");
    } catch (Throwable t) {
      if (claim.record() != null) {
        release(claim.record(), t);
      }
      return CompletableFuture.failedFuture(t);
    }
    if (claim.record() == null) {
      return stage;
    }
    IdempotencyRecord mine = claim.record();
    CompletableFuture<IdempotencyResponse> result = new CompletableFuture<>();
    stage.whenComplete(
        (response, failure) -> {
          Throwable t =
              failure != null || response != null
                  ? failure
                  : new NullPointerException("operation completed with null");
          if (t != null) {
            release(mine, t);
            result.completeExceptionally(t);
            return;
          }
          try {
            store(mine, response);
            result.complete(response);
          } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  @Override
  public long purgeExpired() {
    return store.purgeExpired(clock.millis());
  }

  @Override
  public String toString() {
    return "IdempotencyHandler{" + config + '}';
  }

  /**
   * What to do with a request: answer it now ({@code answer}), run the operation unprotected
   * (neither set), or run it as the owner of {@code record}.
   */
  private record Claim(IdempotencyResponse answer, IdempotencyRecord record) {
    static final Claim PASS_THROUGH = new Claim(null, null);
  }

  private Claim claim(IdempotencyRequest request) {
    String raw = request.key();
    if (raw == null) {
      if (config.keyRequired()) {
        return new Claim(
            IdempotencyProblem.KEY_MISSING.toResponse(
                "This endpoint requires an Idempotency-Key request header. Generate one random"
                    + " key (a UUID) per operation, send it as Idempotency-Key:"
                    + " \"8e03978e-40d5-43e8-bc93-6894a57f9324\", and reuse it for every retry of"
                    + " that operation."),
            null);
      }
      return Claim.PASS_THROUGH;
    }
    IdempotencyKeys.Parsed parsed = IdempotencyKeys.parse(raw, config.maxKeyLength());
    if (parsed.error() != null) {
      return new Claim(IdempotencyProblem.KEY_INVALID.toResponse(parsed.error()), null);
    }
    long now = clock.millis();
    IdempotencyRecord mine =
        IdempotencyRecord.inFlight(
            Digests.scope(request.scope()),
            parsed.key(),
            Digests.fingerprint(request),
            UUID.randomUUID().toString(),
            now,
            plus(now, inFlightMillis));
    Optional<IdempotencyRecord> existing = store.begin(mine, now);
    if (existing.isEmpty()) {
      return new Claim(null, mine);
    }
    return new Claim(answerDuplicate(existing.get(), mine.fingerprint()), null);
  }

  private static IdempotencyResponse answerDuplicate(IdempotencyRecord first, String fingerprint) {
    // Mismatch before in-flight: a 409 would invite a retry that can only fail with 422.
    if (!first.fingerprint().equals(fingerprint)) {
      return IdempotencyProblem.KEY_REUSED.toResponse(
          "This Idempotency-Key was first used with a different request: the method, path or"
              + " body differ. A retry must repeat the original request exactly; a new request"
              + " needs a new key.");
    }
    if (first.isInFlight()) {
      return IdempotencyProblem.KEY_IN_FLIGHT.toResponse(
          "A request with the same Idempotency-Key is still being processed. Do not change the"
              + " request: send it again with the same key later to receive its result.");
    }
    return replay(first);
  }

  private static IdempotencyResponse replay(IdempotencyRecord record) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : record.headers().entrySet()) {
      // Our marker wins over a stored header of the same name in any case.
      if (!e.getKey().equalsIgnoreCase(REPLAYED_HEADER)) {
        headers.put(e.getKey(), e.getValue());
      }
    }
    headers.put(REPLAYED_HEADER, TRUE);
    return IdempotencyResponse.ofTrusted(
        record.status(), Collections.unmodifiableMap(headers), record.body());
  }

  private void store(IdempotencyRecord mine, IdempotencyResponse response) {
    long done = clock.millis();
    // A wall clock may step back; a record must still expire after it was created.
    long expiresAt = Math.max(plus(done, expiryMillis), plus(mine.createdAtMillis(), 1));
    store.complete(
        mine.complete(response.status(), response.headers(), response.bodyUnsafe(), expiresAt));
  }

  private void release(IdempotencyRecord mine, Throwable cause) {
    try {
      store.release(mine);
    } catch (RuntimeException | Error e) {
      // The operation's failure is the news; the store's comes along with it.
      cause.addSuppressed(e);
    }
  }

  private static long plus(long a, long b) {
    // b >= 0 always (durations of at least 1 ms); saturate instead of wrapping to the past.
    return a > 0 && b > Long.MAX_VALUE - a ? Long.MAX_VALUE : a + b;
  }
}
