package dev.relent.http.jdk;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A tiny HTTP/1.1 server on a raw socket, scripted step by step, for what a real server cannot be
 * asked to do: reset a connection, close it without an answer, send half a body, stall. Every
 * request is recorded (method, path, headers, body) so that tests assert from the server side.
 * Every answer closes its connection, so each attempt is a fresh connection. Bounded: it serves
 * only loopback and stops at {@link #close()}; a stall waits for the close, it never sleeps.
 */
final class ScriptedServer implements AutoCloseable {

  /** One recorded request. */
  record Request(String method, String target, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  @FunctionalInterface
  interface Step {
    void serve(Socket socket, OutputStream out) throws IOException, InterruptedException;
  }

  private final ServerSocket socket;
  private final Deque<Step> steps = new ArrayDeque<>();
  private final List<Request> journal = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch closed = new CountDownLatch(1);
  private final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
  private final Thread acceptor;

  ScriptedServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "scripted-server-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + pathAndQuery);
  }

  int port() {
    return socket.getLocalPort();
  }

  List<Request> journal() {
    synchronized (journal) {
      return List.copyOf(journal);
    }
  }

  ScriptedServer then(Step step) {
    synchronized (steps) {
      steps.add(step);
    }
    return this;
  }

  ScriptedServer respond(int status, String... headersAndBody) {
    return then(
        (s, out) -> {
          StringBuilder head = new StringBuilder("HTTP/1.1 " + status + " Status\r\n");
          String body = "";
          for (int i = 0; i < headersAndBody.length; i++) {
            if (headersAndBody[i].startsWith("body:")) {
              body = headersAndBody[i].substring(5);
            } else {
              head.append(headersAndBody[i]).append("\r\n");
            }
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          head.append("Content-Length: ").append(bytes.length).append("\r\n");
          head.append("Connection: close\r\n\r\n");
          out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
          out.write(bytes);
          out.flush();
        });
  }

  /** Answers with a header promising more body than is sent, then closes. */
  ScriptedServer truncate(int status) {
    return then(
        (s, out) -> {
          out.write(
              ("HTTP/1.1 "
                      + status
                      + " Status\r\nContent-Length: 100\r\nConnection: close\r\n\r\nabc")
                  .getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
        });
  }

  /** Resets the connection (RST) after reading the request. */
  ScriptedServer reset() {
    return then(
        (s, out) -> {
          s.setSoLinger(true, 0);
        });
  }

  /** Closes the connection after reading the request, without a byte of response. */
  ScriptedServer closeWithoutResponse() {
    return then((s, out) -> {});
  }

  /** Reads the request and never answers (until the server closes). */
  ScriptedServer stall() {
    return then((s, out) -> closed.await(30, TimeUnit.SECONDS));
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        return;
      }
      open.add(s);
      Thread t = new Thread(() -> handle(s), "scripted-connection");
      t.setDaemon(true);
      t.start();
    }
  }

  private void handle(Socket s) {
    try (s) {
      Request request = read(s.getInputStream());
      if (request == null) {
        return;
      }
      Step step;
      synchronized (steps) {
        journal.add(request);
        step = steps.poll();
      }
      if (step == null) {
        respondDefault(s.getOutputStream());
        return;
      }
      step.serve(s, s.getOutputStream());
    } catch (IOException | InterruptedException e) {
      // The client went away; nothing to record.
    }
  }

  private static void respondDefault(OutputStream out) throws IOException {
    out.write(
        "HTTP/1.1 599 Unscripted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static Request read(InputStream in) throws IOException {
    String requestLine = line(in);
    if (requestLine == null || requestLine.isEmpty()) {
      return null;
    }
    String[] parts = requestLine.split(" ");
    Map<String, String> headers = new LinkedHashMap<>();
    String header;
    while ((header = line(in)) != null && !header.isEmpty()) {
      int colon = header.indexOf(':');
      if (colon > 0) {
        headers.put(
            header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            header.substring(colon + 1).trim());
      }
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    return new Request(parts[0], parts[1], headers, new String(body, StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\n') {
        String s = buf.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      buf.write(c);
    }
    return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    closed.countDown();
    socket.close();
    synchronized (open) {
      for (Socket s : open) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing anyway
        }
      }
    }
  }
}
