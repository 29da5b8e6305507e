package dev.relent.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The headers that belong to one connection and never pass a proxy (RFC 9110 section 7.6.1): {@code
 * Connection} and every header it names, {@code Keep-Alive}, {@code Proxy-Connection}, {@code
 * Proxy-Authenticate}, {@code Proxy-Authorization}, {@code TE}, {@code Trailer}, {@code
 * Transfer-Encoding} (the proxy frames each side itself) and {@code Upgrade}; and the proxy's own
 * request headers ({@code X-Relent-Deadline}), which are for the proxy, not the upstream.
 */
final class HopByHop {
  /** The caller's deadline for one request, read and removed by the proxy. */
  static final String DEADLINE = "X-Relent-Deadline";

  private static final Set<String> NAMES =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private HopByHop() {}

  /** Removes the hop-by-hop headers from {@code headers}, in place. */
  static void strip(HttpHeaders headers) {
    List<String> named = new ArrayList<>();
    for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
      for (String token : value.split(",")) {
        String t = token.strip();
        if (!t.isEmpty()) {
          named.add(t);
        }
      }
    }
    for (String n : named) {
      headers.remove(n);
    }
    List<String> present = new ArrayList<>();
    for (String name : headers.names()) {
      if (NAMES.contains(name.toLowerCase(Locale.ROOT))) {
        present.add(name);
      }
    }
    for (String n : present) {
      headers.remove(n);
    }
  }
}
