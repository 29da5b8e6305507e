package dev.relent.mockserver;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A failure a {@link Step} injects instead of (or in the middle of) a normal response. Each has the
 * name the scenario file uses, {@link #token()}.
 */
public enum InjectedFault {
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

  InjectedFault(String token) {
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

  static InjectedFault fromToken(String token) {
    for (InjectedFault f : values()) {
      if (f.token.equals(token)) {
        return f;
      }
    }
    return null;
  }

  /** The file names of all faults, for messages: {@code reset, reset-before-read, ...}. */
  static String tokens() {
    return Arrays.stream(values()).map(InjectedFault::token).collect(Collectors.joining(", "));
  }
}
