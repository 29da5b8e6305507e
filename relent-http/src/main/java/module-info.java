/**
 * HTTP semantics shared by every client adapter. {@code dev.relent.http} is for callers: the
 * decision table, idempotent methods and the {@code Idempotency-Key}, server hints ({@code
 * Retry-After}, {@code RateLimit*}, {@code Date}), quota and origin detection, log redaction,
 * per-call options, attempt records and the exceptions a call throws. {@code dev.relent.http.jdk}
 * is the {@code java.net.http.HttpClient} integration ({@link
 * dev.relent.http.jdk.RelentHttpClient}). {@code dev.relent.http.adapter} is for adapter writers:
 * the one attempt loop every adapter runs its calls through, the response access it reads responses
 * with, and the builder every adapter's builder extends.
 */
module dev.relent.http {
  requires transitive dev.relent.core;
  requires transitive java.net.http;
  requires transitive org.slf4j;

  exports dev.relent.http;
  exports dev.relent.http.adapter;
  exports dev.relent.http.jdk;
}
