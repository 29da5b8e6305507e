package dev.relent.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** Raw bytes to and from the proxy, for what an HTTP client would refuse to send. */
final class Raw implements AutoCloseable {
  final Socket socket;

  Raw(InetSocketAddress address) throws IOException {
    socket = new Socket();
    socket.connect(address, 2000);
    socket.setSoTimeout(10_000);
  }

  Raw send(String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    return this;
  }

  /** Everything until the peer closes (or the read timeout). */
  String readAll() throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      int n;
      while ((n = in.read(buf)) >= 0) {
        b.write(buf, 0, n);
      }
    } catch (SocketTimeoutException | java.net.SocketException e) {
      // what arrived is the answer
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  /** Reads until {@code marker} arrived. */
  String readUntil(String marker) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (!b.toString(StandardCharsets.ISO_8859_1).contains(marker)) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  static String exchange(InetSocketAddress address, String request) throws IOException {
    try (Raw raw = new Raw(address)) {
      return raw.send(request).readAll();
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
