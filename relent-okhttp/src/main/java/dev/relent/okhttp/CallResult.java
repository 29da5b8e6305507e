package dev.relent.okhttp;

import dev.relent.http.Decision;
import java.util.Objects;
import java.util.Optional;
import okhttp3.Response;

/**
 * What {@link RelentInterceptor} did for a response it returned: how many attempts it made, the
 * {@code Idempotency-Key} the call carried, and the decision about the final response. Attached to
 * the response's request as a tag; read it with {@link #of(Response)}.
 *
 * <pre>{@code
 * try (Response response = client.newCall(request).execute()) {
 *   int attempts = CallResult.of(response).map(CallResult::attempts).orElse(1);
 * }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CallResult {
  private final int attempts;
  private final String idempotencyKey;
  private final Decision decision;

  CallResult(int attempts, String idempotencyKey, Decision decision) {
    this.attempts = attempts;
    this.idempotencyKey = idempotencyKey;
    this.decision = decision;
  }

  /**
   * Returns what the interceptor did for a response.
   *
   * @param response a response returned through {@link RelentInterceptor}
   * @return the result, or empty when the response did not pass the interceptor
   * @throws NullPointerException if {@code response} is null
   */
  public static Optional<CallResult> of(Response response) {
    Objects.requireNonNull(response, "response cannot be null");
    return Optional.ofNullable(response.request().tag(CallResult.class));
  }

  /**
   * Returns the attempts made: requests handed to OkHttp, this response's included.
   *
   * @return 1 or more
   */
  public int attempts() {
    return attempts;
  }

  /**
   * Returns the {@code Idempotency-Key} every attempt carried.
   *
   * @return the key, or empty when the call had none
   */
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(idempotencyKey);
  }

  /**
   * Returns the decision about the final response, naming the rule that fired.
   *
   * @return the decision
   */
  public Decision decision() {
    return decision;
  }

  @Override
  public String toString() {
    return "CallResult[attempts=" + attempts + ", decision=" + decision.verdict() + "]";
  }
}
