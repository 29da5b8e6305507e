package dev.relent.mockserver;

/** Validation shared by the emulation settings. */
final class Guards {

  private Guards() {}

  static int rejectStatus(int status) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be an integer 400..599: " + status);
    }
    return status;
  }

  static String policyName(String name) {
    if (name == null) {
      throw new NullPointerException("name cannot be null");
    }
    if (!Http.isToken(name)) {
      throw new IllegalArgumentException("name must be an HTTP token: " + Json.quote(name));
    }
    return name;
  }
}
