package dev.relent.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** A Lua script with the SHA-1 that {@code EVALSHA} names it by. Immutable. */
record Script(String name, byte[] source, String sha) {

  /** A number as a script's argument: its decimal digits, as Lua's {@code tonumber} reads them. */
  static byte[] number(long value) {
    return bytes(Long.toString(value));
  }

  /** A text as a script's key or argument: its UTF-8 bytes. */
  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Script of(String name, String lua) {
    byte[] source = lua.getBytes(StandardCharsets.UTF_8);
    return new Script(name, source, sha1(source));
  }

  private static String sha1(byte[] source) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(source);
      StringBuilder hex = new StringBuilder(40);
      for (byte b : digest) {
        hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }
}
