package dev.relent.mockserver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Keeps credentials out of the journal: header values and query parameters whose names look like
 * credentials become {@value JournalEntry#REDACTED}. Bodies are kept only as their SHA-256, and
 * caller keys (a token, an API key header) are never shown anywhere.
 */
final class Redaction {

  private static final String[] SECRET_HEADER_PARTS = {
    "authorization",
    "cookie",
    "api-key",
    "apikey",
    "api_key",
    "token",
    "secret",
    "password",
    "passwd",
    "session",
    "signature",
    "credential"
  };

  private static final String[] SECRET_PARAM_PARTS = {
    "key", "token", "secret", "password", "passwd", "sig", "auth", "session", "credential"
  };

  private Redaction() {}

  static boolean isSecretHeader(String name) {
    return containsAny(name, SECRET_HEADER_PARTS);
  }

  static boolean isSecretParam(String name) {
    return containsAny(name, SECRET_PARAM_PARTS);
  }

  private static boolean containsAny(String name, String[] parts) {
    String n = name.toLowerCase(Locale.ROOT);
    for (String part : parts) {
      if (n.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /** The request target with the values of credential-like query parameters redacted. */
  static String redactUri(String uri) {
    int q = uri.indexOf('?');
    if (q < 0) {
      return uri;
    }
    int hash = uri.indexOf('#', q);
    String query = hash < 0 ? uri.substring(q + 1) : uri.substring(q + 1, hash);
    StringJoiner pairs = new StringJoiner("&", uri.substring(0, q + 1), "");
    // -1 keeps empty pairs (a trailing or doubled '&'), so only values change
    for (String pair : query.split("&", -1)) {
      int eq = pair.indexOf('=');
      boolean secret = eq >= 0 && isSecretParam(decode(pair.substring(0, eq)));
      pairs.add(secret ? pair.substring(0, eq + 1) + JournalEntry.REDACTED : pair);
    }
    return hash < 0 ? pairs.toString() : pairs + uri.substring(hash);
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
