package dev.relent.proxy;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RetryPolicy;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/** A mock server, a proxy in reverse mode in front of it on virtual waits, and the proxy's log. */
final class ProxyFixture implements AutoCloseable {
  final MockServer server;
  final VirtualWaits waits = new VirtualWaits();
  final List<String> log = new CopyOnWriteArrayList<>();
  final RelentProxy proxy;
  final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /** Retries 3, backoff 100 ms doubling to 1 s without jitter, server waits up to 60 s. */
  static RetryPolicy policy() {
    return RetryPolicy.builder()
        .withMaxRetries(3)
        .withBackoff(
            Backoff.builder()
                .withBase(Duration.ofMillis(100))
                .withCap(Duration.ofSeconds(1))
                .withJitter(Jitter.NONE)
                .build())
        .withAttemptTimeout(Duration.ofHours(1))
        .withDeadline(Duration.ofHours(2))
        .withMaxServerWait(Duration.ofSeconds(60))
        .withServerWaitSpread(0)
        .build();
  }

  ProxyFixture(Scenario scenario) throws IOException {
    this(scenario, b -> b);
  }

  ProxyFixture(Scenario scenario, UnaryOperator<RelentProxy.Builder> more) throws IOException {
    server = MockServer.start(scenario);
    RelentProxy.Builder b =
        RelentProxy.builder()
            .withReverse("127.0.0.1:0", server.baseUri())
            .withPolicy(policy())
            .withTime(waits.source())
            .withThreads(2)
            .withLogSink(log::add);
    proxy = more.apply(b).start();
  }

  InetSocketAddress address() {
    return proxy.addresses().get(0);
  }

  URI uri(String path) {
    return URI.create(proxy.baseUri() + path);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  List<JournalEntry> journal() {
    return server.journal();
  }

  @Override
  public void close() {
    log.forEach(System.out::println);
    proxy.close();
    server.close();
    waits.close();
  }
}
