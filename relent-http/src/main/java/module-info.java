/**
 * HTTP semantics shared by every client adapter: the decision table, idempotent methods and the
 * {@code Idempotency-Key}, server hints ({@code Retry-After}, {@code RateLimit*}, {@code Date}),
 * quota detection, origin detection and log redaction; and the {@code java.net.http.HttpClient}
 * integration ({@link dev.relent.http.RelentHttpClient}).
 */
module dev.relent.http {
  requires transitive dev.relent.core;
  requires transitive java.net.http;
  requires transitive org.slf4j;

  exports dev.relent.http;
}
