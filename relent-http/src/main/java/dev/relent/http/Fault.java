package dev.relent.http;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * What went wrong in the network when an exchange produced no complete response, and whether the
 * request can have reached the server. The decision table has one row per fault.
 *
 * <p>{@link #classify(Throwable)} maps the exceptions of the JDK client, OkHttp and Apache
 * HttpClient 5 onto these kinds by type, and by message where the type says nothing (the JDK
 * reports a reset as {@code IOException("HTTP/1.1 header parser received no bytes")} caused by
 * {@code SocketException("Connection reset")}); it never loads the other clients' classes, it only
 * compares simple class names.
 */
public enum Fault {
  /** The connection was refused or no route led to the host: nothing was sent. */
  CONNECT_REFUSED("io-connect-refused", "connection refused", true),
  /** No connection was made within the connect timeout: nothing was sent. */
  CONNECT_TIMEOUT("io-connect-timeout", "connect timeout", true),
  /** The host name did not resolve: nothing was sent. Usually a configuration error. */
  UNKNOWN_HOST("io-unknown-host", "unknown host", true),
  /**
   * The TLS handshake failed (certificate, protocol, cipher): nothing of the request was sent, and
   * trying again meets the same certificate.
   */
  TLS("io-tls", "TLS handshake failed", true),
  /** The connection was reset after it was established: the request may have reached the server. */
  RESET("io-reset", "connection reset", false),
  /** The server closed the connection before sending any response: it may have seen the request. */
  CLOSED("io-closed", "connection closed before a response", false),
  /**
   * No complete response within the attempt's time limit: the origin may be doing the work right
   * now (ambiguous, like a 504).
   */
  READ_TIMEOUT("io-read-timeout", "read timeout", false),
  /** The response ended before its declared length: the server processed the request. */
  TRUNCATED("io-truncated", "truncated response", false),
  /** Some other I/O failure; the request may have reached the server. */
  OTHER("io-other", "I/O failure", false);

  private final String rule;
  private final String description;
  private final boolean sentNothing;

  Fault(String rule, String description, boolean sentNothing) {
    this.rule = rule;
    this.description = description;
    this.sentNothing = sentNothing;
  }

  /**
   * Returns the name of this fault's row in the decision table, e.g. {@code io-connect-refused}.
   *
   * @return the rule name
   */
  public String rule() {
    return rule;
  }

  /**
   * Returns a short description for messages and logs, e.g. {@code "connection refused"}.
   *
   * @return the description
   */
  public String description() {
    return description;
  }

  /**
   * Returns whether the fault happened before any byte of the request was sent, so that sending it
   * again is safe for every method.
   *
   * @return true for connect-phase faults
   */
  public boolean sentNothing() {
    return sentNothing;
  }

  /** How deep the cause chain is searched; guards against cycles and absurd chains. */
  private static final int MAX_DEPTH = 16;

  /**
   * Classifies a failure. The whole cause chain is searched (a {@code CompletionException} or an
   * {@link HttpFaultException} is looked through); connect-phase faults win over later ones, a
   * reset wins over "no response", and a timeout wins over a truncation.
   *
   * <table>
   *   <caption>Mapping</caption>
   *   <tr><th>fault</th><th>exceptions</th></tr>
   *   <tr><td>CONNECT_TIMEOUT</td><td>{@code HttpConnectTimeoutException}; {@code
   *       SocketTimeoutException} whose message mentions "connect"; any {@code
   *       ConnectTimeoutException} (Apache)</td></tr>
   *   <tr><td>CONNECT_REFUSED</td><td>{@code ConnectException} (also Apache's {@code
   *       HttpHostConnectException}), {@code NoRouteToHostException}, {@code
   *       PortUnreachableException}</td></tr>
   *   <tr><td>UNKNOWN_HOST</td><td>{@code UnknownHostException}</td></tr>
   *   <tr><td>TLS</td><td>{@code SSLHandshakeException}, {@code SSLPeerUnverifiedException}, unless
   *       the chain shows the peer cut the handshake (a reset, an EOF): then that cut</td></tr>
   *   <tr><td>READ_TIMEOUT</td><td>{@code HttpTimeoutException}, {@code SocketTimeoutException},
   *       other {@code InterruptedIOException}s, {@code java.util.concurrent.TimeoutException} (the
   *       executor's attempt timeout)</td></tr>
   *   <tr><td>RESET</td><td>a message containing "connection reset", "broken pipe" or "stream was
   *       reset"; OkHttp's {@code StreamResetException}</td></tr>
   *   <tr><td>CLOSED</td><td>"header parser received no bytes" (JDK), "unexpected end of stream"
   *       (OkHttp), Apache's {@code NoHttpResponseException}</td></tr>
   *   <tr><td>TRUNCATED</td><td>"fixed content-length" / "EOF reached" (JDK), {@code
   *       EOFException}, Apache's {@code ConnectionClosedException} and {@code
   *       TruncatedChunkException}</td></tr>
   *   <tr><td>OTHER</td><td>any other {@code IOException}</td></tr>
   * </table>
   *
   * @param failure the exception an attempt threw; may be null
   * @return the fault, or null when the chain holds no I/O failure or timeout (a programming error,
   *     an interruption): such failures are not the network's
   */
  public static Fault classify(Throwable failure) {
    boolean io = false;
    boolean timeout = false;
    boolean reset = false;
    boolean closed = false;
    boolean truncated = false;
    boolean unknownHost = false;
    boolean tls = false;
    boolean interrupted = false;
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      String name = t.getClass().getSimpleName();
      String message = lower(t.getMessage());
      if (t instanceof HttpConnectTimeoutException
          || name.equals("ConnectTimeoutException")
          || (t instanceof SocketTimeoutException && message.contains("connect"))) {
        return CONNECT_TIMEOUT;
      }
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof PortUnreachableException) {
        // JDK 17's client reports a name that does not resolve as a ConnectException caused by
        // UnresolvedAddressException: no server refused anything, and retrying will not help.
        return unresolved(t) ? UNKNOWN_HOST : CONNECT_REFUSED;
      }
      if (t instanceof HttpTimeoutException
          || t instanceof SocketTimeoutException
          || t instanceof TimeoutException) {
        timeout = true;
      } else if (t instanceof InterruptedIOException) {
        // OkHttp's call timeout is InterruptedIOException("timeout"); an interrupted thread is
        // reported as InterruptedIOException("interrupted"), which is no fault of the network.
        interrupted |= message.contains("interrupt");
        timeout |= !message.contains("interrupt");
      }
      interrupted |= t instanceof InterruptedException;
      unknownHost |= t instanceof UnknownHostException;
      tls |= t instanceof SSLHandshakeException || t instanceof SSLPeerUnverifiedException;
      reset |=
          name.equals("StreamResetException")
              || message.contains("connection reset")
              || message.contains("broken pipe")
              || message.contains("stream was reset");
      closed |=
          name.equals("NoHttpResponseException")
              || message.contains("header parser received no bytes")
              || message.contains("unexpected end of stream");
      truncated |=
          t instanceof EOFException
              || name.equals("ConnectionClosedException")
              || name.equals("TruncatedChunkException")
              || message.contains("fixed content-length")
              || message.contains("eof reached");
      io |= t instanceof IOException;
    }
    if (interrupted && !timeout) {
      return null;
    }
    if (unknownHost) {
      return UNKNOWN_HOST;
    }
    // A handshake the peer cut off (reset, EOF) is read as that cut, not as a certificate problem.
    if (tls && !(reset || closed || truncated)) {
      return TLS;
    }
    if (timeout) {
      return READ_TIMEOUT;
    }
    if (reset) {
      return RESET;
    }
    if (closed) {
      return CLOSED;
    }
    if (truncated) {
      return TRUNCATED;
    }
    return io ? OTHER : null;
  }

  private static boolean unresolved(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
        return true;
      }
    }
    return false;
  }

  private static String lower(String message) {
    return message == null ? "" : message.toLowerCase(Locale.ROOT);
  }
}
