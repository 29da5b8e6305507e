package dev.relent.mockserver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A raw HTTP/1.1 client over one socket, to see what a normal client hides (stalls, cuts). */
final class RawHttp implements AutoCloseable {

  /** A response as read off the wire; {@code body} holds what arrived, maybe less than declared. */
  static final class Response {
    final int status;
    final Map<String, String> headers;
    final byte[] body;
    final boolean complete;

    Response(int status, Map<String, String> headers, byte[] body, boolean complete) {
      this.status = status;
      this.headers = headers;
      this.body = body;
      this.complete = complete;
    }

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttp(MockServer server) throws IOException {
    this(server, 5_000);
  }

  RawHttp(MockServer server, int readTimeoutMillis) throws IOException {
    socket = new Socket(server.host(), server.port());
    socket.setSoTimeout(readTimeoutMillis);
    socket.setTcpNoDelay(true);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  void send(String request) throws IOException {
    out.write(request.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  static String get(String path) {
    return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  }

  /** Reads the status line and headers. */
  Response head() throws IOException {
    String status = line();
    if (status == null) {
      throw new java.io.EOFException("connection closed before a response");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    String l;
    while ((l = line()) != null && !l.isEmpty()) {
      int colon = l.indexOf(':');
      headers.put(
          l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
    }
    return new Response(Integer.parseInt(status.split(" ")[1]), headers, new byte[0], false);
  }

  /** Reads up to {@code n} body bytes; fewer if the connection ends first. */
  byte[] bodyBytes(int n) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    while (buf.size() < n) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      buf.write(b);
    }
    return buf.toByteArray();
  }

  /** Reads a whole response with a Content-Length body. */
  Response response() throws IOException {
    Response h = head();
    String cl = h.header("content-length");
    int n = cl == null ? 0 : Integer.parseInt(cl);
    byte[] body = bodyBytes(n);
    return new Response(h.status, h.headers, body, body.length == n);
  }

  /** Returns -1 at end of stream, else the next byte. */
  int read() throws IOException {
    return in.read();
  }

  private String line() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        String s = buf.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      buf.write(b);
    }
    return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
