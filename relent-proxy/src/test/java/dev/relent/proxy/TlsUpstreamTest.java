package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code https} upstream: a certificate the proxy trusts is used, with the host-name check of
 * HTTPS (a trusted certificate for another name is refused, 502 {@code io-tls}, not retried). The
 * server is the JDK's {@code HttpsServer} with a key made by {@code keytool}.
 */
class TlsUpstreamTest {
  @TempDir Path dir;

  private Path keystore(String name, String san) throws Exception {
    Path file = dir.resolve(name + ".p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "upstream",
                "-keyalg",
                "EC",
                "-dname",
                "CN=" + name,
                "-ext",
                "SAN=" + san,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                file.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return file;
  }

  private static KeyStore load(Path file) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      ks.load(in, "changeit".toCharArray());
    }
    return ks;
  }

  private static HttpsServer serve(KeyStore ks, List<String> hosts) throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ssl));
    server.createContext(
        "/",
        exchange -> {
          hosts.add(exchange.getRequestHeaders().getFirst("Host"));
          byte[] body = "over tls".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }

  private static SslContext trusting(KeyStore ks) throws Exception {
    return SslContextBuilder.forClient()
        .sslProvider(SslProvider.JDK)
        .trustManager((X509Certificate) ks.getCertificate("upstream"))
        .endpointIdentificationAlgorithm("HTTPS")
        .build();
  }

  private static HttpResponse<String> get(RelentProxy proxy, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(proxy.baseUri() + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aTrustedCertificateForTheUpstreamsAddressIsUsed() throws Exception {
    KeyStore ks = load(keystore("upstream", "ip:127.0.0.1"));
    List<String> hosts = new ArrayList<>();
    HttpsServer server = serve(ks, hosts);
    int port = server.getAddress().getPort();
    try (RelentProxy proxy =
        RelentProxy.builder()
            .withReverse("127.0.0.1:0", URI.create("https://127.0.0.1:" + port))
            .withUpstreamTls(trusting(ks))
            .withLogSink(null)
            .start()) {
      HttpResponse<String> r = get(proxy, "/secure");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("over tls");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("1");
      assertThat(hosts).containsExactly("127.0.0.1:" + port);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aTrustedCertificateForAnotherNameIsRefused() throws Exception {
    KeyStore ks = load(keystore("elsewhere", "dns:elsewhere.example"));
    List<String> hosts = new ArrayList<>();
    HttpsServer server = serve(ks, hosts);
    try (RelentProxy proxy =
        RelentProxy.builder()
            .withReverse(
                "127.0.0.1:0", URI.create("https://127.0.0.1:" + server.getAddress().getPort()))
            .withUpstreamTls(trusting(ks))
            .withLogSink(null)
            .start()) {
      HttpResponse<String> r = get(proxy, "/secure");
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("io-tls");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("1");
      assertThat(hosts).isEmpty();
    } finally {
      server.stop(0);
    }
  }
}
