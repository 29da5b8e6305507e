package dev.relent.mockserver;

/**
 * A failure a {@link Step} injects instead of (or in the middle of) a normal response. Each has the
 * name the scenario file uses, {@link #token()}.
 */
public enum Fault {
  /**
   * Reads the whole request, then resets the connection (TCP RST: {@code SO_LINGER} 0, then close).
   * The client sees "connection reset" and no response.
   */
  RESET("reset"),
  /**
   * Resets the connection as soon as the request line and headers arrive, before the body is read:
   * a client still sending its body sees the reset while writing.
   */
  RESET_BEFORE_READ("reset-before-read"),
  /** Reads the whole request, then closes the connection cleanly (FIN) without any response. */
  CLOSE("close"),
  /**
   * Sends the status line, the headers (with the full {@code Content-Length}) and the first bytes
   * of the body, then sends nothing more: for {@link Step#withStallFor(java.time.Duration)} if set
   * (then the rest follows), otherwise until either side closes the connection.
   */
  STALL("stall"),
  /**
   * Sends the status line, the headers (with the full {@code Content-Length}) and the first bytes
   * of the body, then closes the connection: the client sees a premature end of the body.
   */
  TRUNCATE("truncate");

  private final String token;

  Fault(String token) {
    this.token = token;
  }

  /**
   * Returns the name the scenario file uses for this fault, such as {@code reset-before-read}.
   *
   * @return the file name of this fault
   */
  public String token() {
    return token;
  }

  static Fault fromToken(String token) {
    for (Fault f : values()) {
      if (f.token.equals(token)) {
        return f;
      }
    }
    return null;
  }

  static String tokens() {
    return "reset, reset-before-read, close, stall, truncate";
  }
}
