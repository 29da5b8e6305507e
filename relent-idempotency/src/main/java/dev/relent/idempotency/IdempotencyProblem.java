package dev.relent.idempotency;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The errors the handler answers itself, as in the IETF {@code Idempotency-Key} draft. Each is an
 * RFC 9457 problem: status, {@code Content-Type: application/problem+json} and a JSON body with
 * {@code type}, {@code title}, {@code status} and {@code detail}. The detail says what was wrong
 * and what to do; it never contains the scope, the key or the body.
 *
 * <p>Clients must not retry a 400 or 422 unchanged; a 409 needs no change, only time.
 */
public enum IdempotencyProblem {
  /** 400: the endpoint requires an {@code Idempotency-Key} and the request had none. */
  KEY_MISSING(400, "idempotency-key-missing", "Idempotency-Key is missing"),
  /** 400: the {@code Idempotency-Key} value breaks the key rules (length, characters, quoting). */
  KEY_INVALID(400, "idempotency-key-invalid", "Idempotency-Key is invalid"),
  /** 409: a request with the same key is still being processed. */
  KEY_IN_FLIGHT(
      409, "idempotency-key-in-flight", "A request with this Idempotency-Key is outstanding"),
  /** 422: the key was first used with a different request (method, path or body). */
  KEY_REUSED(422, "idempotency-key-reused", "Idempotency-Key is already used");

  /** The media type of problem bodies. */
  public static final String CONTENT_TYPE = "application/problem+json";

  private static final String HEX = "0123456789abcdef";
  private static final String TYPE_BASE = "https://relent.dev/problems/";

  private final int status;
  private final URI type;
  private final String title;

  IdempotencyProblem(int status, String slug, String title) {
    this.status = status;
    this.type = URI.create(TYPE_BASE + slug);
    this.title = title;
  }

  /**
   * Returns the HTTP status of this problem.
   *
   * @return 400, 409 or 422
   */
  public int status() {
    return status;
  }

  /**
   * Returns the problem type, an identifier for programs.
   *
   * @return the type URI, e.g. {@code https://relent.dev/problems/idempotency-key-reused}
   */
  public URI type() {
    return type;
  }

  /**
   * Returns the short human-readable summary, the same for every occurrence.
   *
   * @return the title
   */
  public String title() {
    return title;
  }

  /**
   * Returns this problem as a response.
   *
   * @param detail what was wrong in this request and what to do about it
   * @return a response with the status, {@code Content-Type: application/problem+json} and the JSON
   *     body
   */
  IdempotencyResponse toResponse(String detail) {
    String json =
        "{\"type\":\""
            + escape(type.toString())
            + "\",\"title\":\""
            + escape(title)
            + "\",\"status\":"
            + status
            + ",\"detail\":\""
            + escape(detail)
            + "\"}";
    return IdempotencyResponse.ofTrusted(
        status,
        Map.of("Content-Type", List.of(CONTENT_TYPE)),
        json.getBytes(StandardCharsets.UTF_8));
  }

  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c < 0x20) {
        out.append("\\u00").append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xF));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
