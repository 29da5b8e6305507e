package dev.relent.httpclient5;

import dev.relent.http.CallOptions;
import dev.relent.http.CallResult;
import dev.relent.http.Idempotency;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import java.net.URISyntaxException;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.Timeout;

/**
 * What the classic and the async handler share: a call made from a request and its context's
 * options, the context attributes they read and write, and the request config of one attempt.
 * Stateless.
 */
final class Hc5Calls {
  /** The context attribute that holds a call's {@link CallOptions}. */
  static final String OPTIONS_ATTRIBUTE = "dev.relent.httpclient5.options";

  /** The context attribute the handlers store the last call's {@link CallResult} under. */
  static final String RESULT_ATTRIBUTE = "dev.relent.httpclient5.result";

  private Hc5Calls() {}

  /** Prepares the call; the caller sets {@link Idempotency#HEADER} when the request had none. */
  static HttpCall prepare(
      HttpCallLoop<?> loop, HttpRequest request, HttpContext context, boolean resendable) {
    Object attribute = context.getAttribute(OPTIONS_ATTRIBUTE);
    CallOptions options =
        attribute instanceof CallOptions ? (CallOptions) attribute : CallOptions.ofDefaults();
    Header existing = request.getFirstHeader(Idempotency.HEADER);
    return loop.prepare(
        request.getMethod(),
        uri(request),
        existing == null ? null : existing.getValue(),
        options,
        resendable,
        name -> {
          Header h = request.getFirstHeader(name);
          return h == null ? null : h.getValue();
        });
  }

  static void storeResult(HttpContext context, HttpCall call) {
    context.setAttribute(RESULT_ATTRIBUTE, call.result());
  }

  /**
   * The context's request config with the response and connection-request (pool) timeouts bounded
   * by the attempt's limit; a missing or zero timeout means "none" to HttpClient.
   */
  static RequestConfig bounded(HttpClientContext context, long timeoutNanos) {
    RequestConfig own = context.getRequestConfig();
    RequestConfig base = own != null ? own : RequestConfig.DEFAULT;
    long limit = HttpCallLoop.limitMillis(timeoutNanos);
    return RequestConfig.copy(base)
        .setResponseTimeout(within(base.getResponseTimeout(), limit))
        .setConnectionRequestTimeout(within(base.getConnectionRequestTimeout(), limit))
        .build();
  }

  private static Timeout within(Timeout own, long limitMillis) {
    long ownMillis = own == null || own.isDisabled() ? 0 : own.toMilliseconds();
    long millis = HttpCallLoop.within(ownMillis, limitMillis);
    return millis == ownMillis ? own : Timeout.of(millis, TimeUnit.MILLISECONDS);
  }

  private static String uri(HttpRequest request) {
    try {
      return request.getUri().toString();
    } catch (URISyntaxException e) {
      return request.getRequestUri();
    }
  }
}
