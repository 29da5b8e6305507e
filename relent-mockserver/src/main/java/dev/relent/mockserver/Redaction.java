package dev.relent.mockserver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Keeps credentials out of the journal: header values and query parameters whose names look like
 * credentials become {@value JournalEntry#REDACTED}, and so does a fragment (which a client does
 * not send, and where an OAuth implicit grant puts its access token). Idempotency keys stay
 * readable: a key is no secret, and reconciliation needs it. Bodies are kept only as their SHA-256,
 * and caller keys (a token, an API key header) are never shown anywhere.
 */
final class Redaction {

  // "auth" covers Authorization, Proxy-Authorization, X-Auth and X-Auth-Key; "key" covers every
  // API key header but the idempotency keys, which are allowed by name.
  private static final String[] SECRET_HEADER_PARTS = {
    "auth",
    "cookie",
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "session",
    "signature",
    "credential"
  };

  private static final String[] NOT_SECRET_HEADERS = {"idempotency-key", "x-idempotency-key"};

  private static final String[] SECRET_PARAM_PARTS = {
    "key", "token", "secret", "password", "passwd", "sig", "auth", "session", "credential"
  };

  private static final String[] SECRET_PARAMS = {"code", "pwd", "jwt"};

  private Redaction() {}

  static boolean isSecretHeader(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return containsAny(n, SECRET_HEADER_PARTS) && !isAny(n, NOT_SECRET_HEADERS);
  }

  static boolean isSecretParam(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return containsAny(n, SECRET_PARAM_PARTS) || isAny(n, SECRET_PARAMS);
  }

  private static boolean containsAny(String lowerCaseName, String[] parts) {
    for (String part : parts) {
      if (lowerCaseName.contains(part)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAny(String lowerCaseName, String[] names) {
    for (String name : names) {
      if (lowerCaseName.equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The request target with the values of credential-like query parameters redacted, and a
   * fragment, if any, replaced as a whole: everything after the first {@code #} is the fragment,
   * even a {@code ?} in it.
   */
  static String redactUri(String uri) {
    int hash = uri.indexOf('#');
    String fragment = hash < 0 ? "" : "#" + JournalEntry.REDACTED;
    String target = hash < 0 ? uri : uri.substring(0, hash);
    int q = target.indexOf('?');
    if (q < 0) {
      return target + fragment;
    }
    StringJoiner pairs = new StringJoiner("&", target.substring(0, q + 1), "");
    // -1 keeps empty pairs (a trailing or doubled '&'), so only values change
    for (String pair : target.substring(q + 1).split("&", -1)) {
      int eq = pair.indexOf('=');
      boolean secret = eq >= 0 && isSecretParam(decode(pair.substring(0, eq)));
      pairs.add(secret ? pair.substring(0, eq + 1) + JournalEntry.REDACTED : pair);
    }
    return pairs + fragment;
  }

  private static String decode(String s) {
    try {
      return java.net.URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
