package dev.relent.http;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;

/**
 * A response returned by {@link dev.relent.http.jdk.RelentHttpClient}: the JDK response, plus how
 * many network attempts it took, the {@code Idempotency-Key} its request carried, and the decision
 * that ended the operation.
 *
 * <p>Every {@link HttpResponse} method delegates to the last attempt's response; {@link #request()}
 * is the request as sent (with its key and timeout). Immutable and thread-safe as the JDK response
 * is.
 *
 * @param <T> the body type
 */
public interface RelentHttpResponse<T> extends HttpResponse<T> {

  /**
   * Returns the number of attempts the operation made, this response's included. The JDK client may
   * add one hidden reconnect within an attempt; see {@link dev.relent.http.jdk.RelentHttpClient}.
   *
   * @return 1 or more
   */
  int attempts();

  /**
   * Returns the {@code Idempotency-Key} every attempt carried.
   *
   * @return the key, or empty for an unkeyed request
   */
  Optional<String> idempotencyKey();

  /**
   * Returns the decision on this response, e.g. {@code success: http-2xx} or {@code abort:
   * http-404}.
   *
   * @return the decision
   */
  Decision decision();

  /**
   * Returns a record of every attempt the operation made, in order, this response's included.
   *
   * @return an immutable list
   */
  List<AttemptRecord> attemptRecords();
}
