package dev.relent.mockserver;

import java.util.regex.Pattern;

/** Small HTTP syntax checks shared by the parser and the builders. */
final class Http {

  /** RFC 9110 {@code token}: one or more tchar, ASCII only. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  private Http() {}

  /** Whether {@code s} is a non-empty RFC 9110 token (method and header names). */
  static boolean isToken(String s) {
    return TOKEN.matcher(s).matches();
  }
}
