package dev.relent.mockserver;

import java.util.Locale;

/**
 * Which part of a request identifies "the caller" for a rate limit, quota, per-key step sequence or
 * resource scope: {@code ip}, {@code token} (the credentials of {@code Authorization}), {@code
 * header:NAME} or {@code global} (everyone shares one key). Immutable.
 */
final class KeySpec {

  static final String EXPECTED = "expected ip, token, global or header:<name>";

  enum Kind {
    IP,
    TOKEN,
    HEADER,
    GLOBAL
  }

  static final KeySpec IP = new KeySpec(Kind.IP, null, "ip");
  static final KeySpec TOKEN = new KeySpec(Kind.TOKEN, null, "token");
  static final KeySpec GLOBAL = new KeySpec(Kind.GLOBAL, null, "global");

  final Kind kind;
  final String header;
  final String text;
  // Keys taken from credentials are shown as a digest in stats, never as they were sent.
  final boolean secret;

  private KeySpec(Kind kind, String header, String text) {
    this.kind = kind;
    this.header = header;
    this.text = text;
    this.secret = kind == Kind.TOKEN || (header != null && Redaction.isSecretHeader(header));
  }

  /**
   * Parses a key spec.
   *
   * @return the spec, or null if {@code text} is not one
   */
  static KeySpec parse(String text) {
    switch (text) {
      case "ip":
        return IP;
      case "token":
        return TOKEN;
      case "global":
        return GLOBAL;
      default:
        if (text.startsWith("header:") && Http.isToken(text.substring(7))) {
          return new KeySpec(Kind.HEADER, text.substring(7).toLowerCase(Locale.ROOT), text);
        }
        return null;
    }
  }

  /**
   * Parses a key spec for the Java API.
   *
   * @throws NullPointerException if {@code text} is null
   * @throws IllegalArgumentException if it is not a key spec
   */
  static KeySpec of(String name, String text) {
    if (text == null) {
      throw new NullPointerException(name + " cannot be null");
    }
    KeySpec k = parse(text);
    if (k == null) {
      throw new IllegalArgumentException(
          name + " must be ip, token, global or header:<name>: " + Json.quote(text));
    }
    return k;
  }

  @Override
  public String toString() {
    return text;
  }
}
