package dev.relent.httpclient5;

import dev.relent.http.Decision;
import java.util.Objects;
import java.util.Optional;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * What {@link RelentExecChainHandler} did for the last call made with a context: how many attempts
 * it made, the {@code Idempotency-Key} the call carried, and the decision about the final response.
 * The handler stores it in the call's context; read it with {@link #of(HttpContext)}.
 *
 * <pre>{@code
 * HttpClientContext context = HttpClientContext.create();
 * client.execute(request, context, response -> EntityUtils.toString(response.getEntity()));
 * int attempts = CallResult.of(context).map(CallResult::attempts).orElse(1);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CallResult {
  /** The context attribute the handler stores the result under. */
  public static final String ATTRIBUTE = "dev.relent.httpclient5.result";

  private final int attempts;
  private final String idempotencyKey;
  private final Decision decision;

  CallResult(int attempts, String idempotencyKey, Decision decision) {
    this.attempts = attempts;
    this.idempotencyKey = idempotencyKey;
    this.decision = decision;
  }

  /**
   * Returns what the handler did for the last call made with a context.
   *
   * @param context the context passed to {@code execute}
   * @return the result, or empty when no call through the handler used the context
   * @throws NullPointerException if {@code context} is null
   */
  public static Optional<CallResult> of(HttpContext context) {
    Objects.requireNonNull(context, "context cannot be null");
    Object value = context.getAttribute(ATTRIBUTE);
    return value instanceof CallResult ? Optional.of((CallResult) value) : Optional.empty();
  }

  /**
   * Returns the attempts made: requests handed down the chain, the final one included.
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
