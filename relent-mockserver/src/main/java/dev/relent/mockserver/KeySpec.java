package dev.relent.mockserver;

import java.util.Locale;

/**
 * Which part of a request identifies "the caller" for a rate limit, quota, per-key step sequence or
 * resource scope: {@code ip}, {@code token} (the credentials of {@code Authorization}), {@code
 * header:NAME} or {@code global} (everyone shares one key). Immutable.
 */
final class KeySpec {

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

  private KeySpec(Kind kind, String header, String text) {
    this.kind = kind;
    this.header = header;
    this.text = text;
  }

  /** The spec written {@code text}, or null if it is not one. */
  private static KeySpec parse(String text) {
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
          name + " must be ip, token, global or header:<name>: " + JsonText.quote(text));
    }
    return k;
  }

  /**
   * The caller's key in {@code ex}: its IP, the credentials of its {@code Authorization} (after the
   * scheme), the value of the header (empty when missing), or the empty key for {@code global}.
   */
  String callerOf(ServerExchange ex) {
    switch (kind) {
      case IP:
        return ex.ip;
      case TOKEN:
        String auth = ex.request.headers().get("Authorization");
        if (auth == null) {
          return "";
        }
        int space = auth.indexOf(' ');
        return space < 0 ? auth : auth.substring(space + 1).trim();
      case HEADER:
        String v = ex.request.headers().get(header);
        return v == null ? "" : v;
      default:
        return "";
    }
  }

  @Override
  public String toString() {
    return text;
  }
}
