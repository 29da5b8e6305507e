// Serves GET /big?n=BYTES: a body of that many bytes, generated as it is sent (Content-Length set),
// for bench/memory.sh's relent call of a 1 GiB body. Binds 127.0.0.1 only.
// Run: java bench/BigBody.java PORT
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;

public class BigBody {
  public static void main(String[] args) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 0);
    server.createContext(
        "/big",
        exchange -> {
          long n = Long.parseLong(exchange.getRequestURI().getQuery().substring(2));
          exchange.sendResponseHeaders(200, n);
          byte[] chunk = new byte[256 * 1024];
          for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) ('a' + i % 26);
          }
          try (OutputStream out = exchange.getResponseBody()) {
            for (long sent = 0; sent < n; sent += chunk.length) {
              out.write(chunk, 0, (int) Math.min(chunk.length, n - sent));
            }
          }
        });
    server.start();
    System.out.println("big-body server on 127.0.0.1:" + args[0]);
  }
}
