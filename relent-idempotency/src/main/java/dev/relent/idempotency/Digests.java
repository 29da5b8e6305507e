package dev.relent.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests of the caller's scope and of a request (its fingerprint), as lowercase hex. */
final class Digests {

  private static final HexFormat HEX = HexFormat.of();

  private Digests() {}

  /** The scope digest: stores keep this, never the scope, which may be a credential. */
  static String scope(String scope) {
    return HEX.formatHex(sha256().digest(scope.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The request fingerprint: SHA-256 over the length-prefixed UTF-8 method, the length-prefixed
   * path and the SHA-256 of the body. The length prefixes keep ("AB", "C") and ("A", "BC") apart.
   */
  static String fingerprint(IdempotencyRequest request) {
    byte[] bodyDigest = sha256().digest(request.bodyUnsafe());
    MessageDigest md = sha256();
    updateWithLength(md, request.method().getBytes(StandardCharsets.UTF_8));
    updateWithLength(md, request.path().getBytes(StandardCharsets.UTF_8));
    md.update(bodyDigest);
    return HEX.formatHex(md.digest());
  }

  private static void updateWithLength(MessageDigest md, byte[] bytes) {
    int n = bytes.length;
    md.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    md.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must provide SHA-256 (MessageDigest javadoc).
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
