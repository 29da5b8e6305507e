package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The default normaliser walks the path without a split or a regular expression, since it runs for
 * every request; it must name every path as the plain rules do: split on {@code /}, drop empty
 * segments, and replace a segment that is longer than 24 characters, a UUID, all digits, three
 * digits or more, or 12 hex digits or more with a digit among them.
 */
class HttpScopesRouteTest {
  private static final Pattern UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{12,}");
  private static final String ALPHABET = "/abcdefXYZ0123456789-_.~%٣";

  /** The rules written plainly: the reference. */
  private static String plainRoute(String path) {
    List<String> segments = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        segments.add(s);
      }
    }
    StringBuilder b = new StringBuilder();
    for (String s : segments) {
      b.append('/').append(plainId(s) ? "{id}" : s);
    }
    if (b.length() == 0 || path.endsWith("/")) {
      b.append('/');
    }
    return b.toString();
  }

  private static boolean plainId(String s) {
    if (s.length() > 24 || UUID.matcher(s).matches()) {
      return true;
    }
    long digits = s.chars().filter(Character::isDigit).count();
    return digits == s.length() || digits >= 3 || (digits > 0 && HEX.matcher(s).matches());
  }

  private static String randomSegment(Random random) {
    switch (random.nextInt(6)) {
      case 0:
        return java.util.UUID.randomUUID().toString();
      case 1:
        return Long.toHexString(random.nextLong());
      case 2:
        return Integer.toString(random.nextInt(100_000));
      default:
        StringBuilder b = new StringBuilder();
        for (int i = random.nextInt(30); i > 0; i--) {
          b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }
  }

  @Test
  void everyPathIsNamedAsThePlainRulesNameIt() {
    Random random = new Random(42);
    HttpScopes scopes = HttpScopes.ofDefaults();
    for (int i = 0; i < 20_000; i++) {
      StringBuilder path = new StringBuilder();
      for (int n = random.nextInt(6); n > 0; n--) {
        path.append('/').append(randomSegment(random));
      }
      if (random.nextInt(4) == 0) {
        path.append('/');
      }
      URI uri = URI.create("https://h" + path.toString().replace("%", "%25"));
      assertThat(scopes.route(uri))
          .as(uri.toString())
          .isEqualTo(plainRoute(uri.getRawPath().isEmpty() ? "/" : uri.getRawPath()));
    }
  }
}
