package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class FaultTest {
  // Stand-ins named like other clients' exceptions: classification compares simple names.
  static final class ConnectTimeoutException extends InterruptedIOException {
    private static final long serialVersionUID = 1L;
  }

  static final class NoHttpResponseException extends IOException {
    private static final long serialVersionUID = 1L;
  }

  static final class StreamResetException extends IOException {
    private static final long serialVersionUID = 1L;
  }

  static final class ConnectionClosedException extends IOException {
    private static final long serialVersionUID = 1L;
  }

  private static IOException jdk(String outer, Throwable cause) {
    return new IOException(outer, new IOException(outer, cause));
  }

  @Test
  void jdkClientExceptionsAsObservedOnTheWire() {
    // The chains below are what JDK 17's HttpClient throws (see RelentHttpClientTest).
    assertThat(Fault.classify(new ConnectException(null))).isEqualTo(Fault.CONNECT_REFUSED);
    assertThat(
            Fault.classify(
                jdk(
                    "HTTP/1.1 header parser received no bytes",
                    new SocketException("Connection reset"))))
        .isEqualTo(Fault.RESET);
    assertThat(
            Fault.classify(
                jdk(
                    "HTTP/1.1 header parser received no bytes",
                    new EOFException("EOF reached while reading"))))
        .isEqualTo(Fault.CLOSED);
    assertThat(
            Fault.classify(
                jdk(
                    "fixed content-length: 100, bytes received: 3",
                    new EOFException("EOF reached while reading"))))
        .isEqualTo(Fault.TRUNCATED);
    assertThat(Fault.classify(new HttpTimeoutException("request timed out")))
        .isEqualTo(Fault.READ_TIMEOUT);
    assertThat(Fault.classify(new HttpConnectTimeoutException("HTTP connect timed out")))
        .isEqualTo(Fault.CONNECT_TIMEOUT);
  }

  @Test
  void commonJavaAndOtherClientExceptions() {
    assertThat(Fault.classify(new SocketTimeoutException("connect timed out")))
        .isEqualTo(Fault.CONNECT_TIMEOUT);
    assertThat(Fault.classify(new SocketTimeoutException("Read timed out")))
        .isEqualTo(Fault.READ_TIMEOUT);
    assertThat(Fault.classify(new ConnectTimeoutException())).isEqualTo(Fault.CONNECT_TIMEOUT);
    assertThat(Fault.classify(new NoRouteToHostException("no route")))
        .isEqualTo(Fault.CONNECT_REFUSED);
    assertThat(Fault.classify(new UnknownHostException("nohost.invalid")))
        .isEqualTo(Fault.UNKNOWN_HOST);
    // JDK 17's client: an unresolvable name is a ConnectException caused by
    // UnresolvedAddressException, not a refused connection.
    ConnectException unresolved = new ConnectException();
    unresolved.initCause(new java.nio.channels.UnresolvedAddressException());
    assertThat(Fault.classify(unresolved)).isEqualTo(Fault.UNKNOWN_HOST);
    assertThat(Fault.classify(new SSLHandshakeException("PKIX path building failed")))
        .isEqualTo(Fault.TLS);
    SSLHandshakeException cut = new SSLHandshakeException("Remote host terminated the handshake");
    cut.initCause(new EOFException("SSL peer shut down incorrectly"));
    assertThat(Fault.classify(cut)).isEqualTo(Fault.TRUNCATED);
    assertThat(Fault.classify(new NoHttpResponseException())).isEqualTo(Fault.CLOSED);
    assertThat(Fault.classify(new StreamResetException())).isEqualTo(Fault.RESET);
    assertThat(Fault.classify(new ConnectionClosedException())).isEqualTo(Fault.TRUNCATED);
    assertThat(Fault.classify(new IOException("unexpected end of stream on http://x/...")))
        .isEqualTo(Fault.CLOSED);
    assertThat(Fault.classify(new SocketException("Broken pipe"))).isEqualTo(Fault.RESET);
    assertThat(Fault.classify(new EOFException())).isEqualTo(Fault.TRUNCATED);
    assertThat(Fault.classify(new InterruptedIOException("timeout"))).isEqualTo(Fault.READ_TIMEOUT);
    assertThat(Fault.classify(new TimeoutException("attempt 1 timed out")))
        .isEqualTo(Fault.READ_TIMEOUT);
    assertThat(Fault.classify(new IOException("something else"))).isEqualTo(Fault.OTHER);
    assertThat(Fault.classify(new CompletionException(new ConnectException("refused"))))
        .isEqualTo(Fault.CONNECT_REFUSED);
  }

  @Test
  void failuresThatAreNotTheNetworks() {
    assertThat(Fault.classify(null)).isNull();
    assertThat(Fault.classify(new IllegalArgumentException("bad uri"))).isNull();
    assertThat(Fault.classify(new InterruptedIOException("interrupted"))).isNull();
    assertThat(Fault.classify(new InterruptedException())).isNull();
  }

  @Test
  void connectPhaseFaultsSentNothing() {
    assertThat(Fault.CONNECT_REFUSED.sentNothing()).isTrue();
    assertThat(Fault.CONNECT_TIMEOUT.sentNothing()).isTrue();
    assertThat(Fault.RESET.sentNothing()).isFalse();
    assertThat(Fault.READ_TIMEOUT.sentNothing()).isFalse();
  }

  @Test
  void aCyclicCauseChainEnds() {
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b);
    assertThat(Fault.classify(a)).isEqualTo(Fault.OTHER);
  }
}
