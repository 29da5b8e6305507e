package dev.relent.mockserver;

/** Small HTTP syntax checks shared by the parser and the builders. */
final class Http {

  private Http() {}

  /** Whether {@code s} is a non-empty RFC 9110 token (method and header names). */
  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
