package dev.relent.cli.batch;

import dev.relent.guard.Scope;
import dev.relent.http.HttpScopes;
import java.util.List;
import java.util.Locale;

/**
 * What {@code --scope-by} and {@code --route} say about the scopes of a batch: which scope a {@code
 * 429} with a wait pauses by default ({@code endpoint}, {@code account}, or {@code header:NAME}:
 * the API key or tenant the request's header names), and the route templates that name endpoints.
 */
final class BatchScopes {
  /** The accepted values of {@code --scope-by}, for help and errors. */
  static final String FORMS = "endpoint, account or header:NAME (e.g. header:X-Api-Key)";

  private BatchScopes() {}

  /**
   * Reads the flags.
   *
   * @param scopeBy the value of {@code --scope-by}
   * @param routes the values of {@code --route}
   * @return how the batch's requests get their scopes
   * @throws IllegalArgumentException saying what was wrong and what is accepted
   */
  static HttpScopes parse(String scopeBy, List<String> routes) {
    HttpScopes.Builder b = HttpScopes.builder();
    String value = scopeBy.trim();
    String lower = value.toLowerCase(Locale.ROOT);
    if (lower.equals("endpoint")) {
      b.withPauseDefault(Scope.Kind.ENDPOINT);
    } else if (lower.equals("account")) {
      b.withPauseDefault(Scope.Kind.ACCOUNT);
    } else if (lower.startsWith("header:")) {
      String header = value.substring("header:".length()).trim();
      if (header.isEmpty()) {
        throw new IllegalArgumentException(
            "--scope-by " + value + ": name the header after the colon; use " + FORMS);
      }
      try {
        b.withKeyHeader(header);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--scope-by " + value + ": " + e.getMessage(), e);
      }
      b.withPauseDefault(Scope.Kind.KEY);
    } else {
      throw new IllegalArgumentException("--scope-by '" + value + "' is not a scope; use " + FORMS);
    }
    for (String route : routes) {
      try {
        b.withRoutes(route);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--route: " + e.getMessage(), e);
      }
    }
    return b.build();
  }
}
