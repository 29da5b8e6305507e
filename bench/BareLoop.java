// The baseline of bench/memory.sh and bench/posts.sh: N requests with a bare
// java.net.http.HttpClient, C threads in a loop, the same client settings as relent batch
// (HTTP/1.1, no redirects, body discarded), no retries, no pacer, no journal. Prints
// "bare: N requests in S s = R/s (errors E)"; an answer other than 2xx counts as an error.
// Run: java bench/BareLoop.java URL N C [POST]
//   GETs: request i goes to URL + i, as in relent batch's input;
//   POST: every request is a POST to URL itself with its own Idempotency-Key and a small JSON body.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

public class BareLoop {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int n = Integer.parseInt(args[1]);
    int c = Integer.parseInt(args[2]);
    boolean post = args.length > 3 && args[3].equals("POST");
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < c; t++) {
      Thread th =
          new Thread(
              () -> {
                int i;
                while ((i = next.getAndIncrement()) < n) {
                  HttpRequest r =
                      post
                          ? HttpRequest.newBuilder(URI.create(url))
                              .timeout(Duration.ofSeconds(10))
                              .header("Content-Type", "application/json")
                              .header("Idempotency-Key", UUID.randomUUID().toString())
                              .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + i + "}"))
                              .build()
                          : HttpRequest.newBuilder(URI.create(url + i))
                              .timeout(Duration.ofSeconds(10))
                              .build();
                  try {
                    if (client.send(r, HttpResponse.BodyHandlers.discarding()).statusCode() / 100
                        != 2) {
                      errors.incrementAndGet();
                    }
                  } catch (Exception e) {
                    errors.incrementAndGet();
                  }
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    double s = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "bare: %d requests in %.2f s = %.0f/s (errors %d)%n", n, s, n / s, errors.get());
  }
}
