package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch --shared URI --account NAME}, in-process: what a wrong URI, account or Redis
 * says (exit 2, never the password), and what a shared run shows and leaves in Redis. Runs against
 * the Redis on 127.0.0.1:6379 ({@code scripts/services.sh} starts one); fails without it. The
 * processes sharing one schedule are {@link SharedBatchProcessesTest}.
 */
class SharedBatchOptionsTest {
  static final String REDIS = "redis://127.0.0.1:6379";

  @TempDir Path dir;

  private Path input(String url) throws IOException {
    Path file = dir.resolve("in.jsonl");
    Files.write(
        file,
        List.of(
            "{\"id\": \"r-1\", \"url\": \"" + url + "/items/1\"}",
            "{\"id\": \"r-2\", \"url\": \"" + url + "/items/2\"}"),
        StandardCharsets.UTF_8);
    return file;
  }

  private CliRun usage(String... flags) throws IOException {
    Path in = input("http://127.0.0.1:9");
    String[] args = new String[flags.length + 2];
    args[0] = "batch";
    args[1] = in.toString();
    System.arraycopy(flags, 0, args, 2, flags.length);
    CliRun run = BatchCommandTest.batch(args);
    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).endsWith("Try 'relent batch --help'.\n");
    return run;
  }

  private static int sparePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void anotherSchemeIsRefusedNamingTheFormAndNotThePassword() throws IOException {
    CliRun run = usage("--shared", "http://:hunter2@127.0.0.1:6379");
    assertThat(run.err())
        .startsWith(
            "relent: --shared takes redis:// only, not http://: give redis://HOST:PORT[/DB]")
        .doesNotContain("hunter2");

    assertThat(usage("--shared", "rediss://127.0.0.1:6380").err())
        .contains("not rediss:// (TLS is not supported yet)");
    assertThat(usage("--shared", "127.0.0.1:6379").err())
        .startsWith("relent: --shared must be a Redis URI, redis://HOST:PORT[/DB], e.g.");
  }

  @Test
  void aUriThatIsNotHostPortAndDatabaseIsRefused() throws IOException {
    assertThat(usage("--shared", "redis://:hunter2@127.0.0.1:port").err())
        .contains("--shared names no host (or a port that is not a number)")
        .doesNotContain("hunter2");
    assertThat(usage("--shared", "redis://127.0.0.1:6379/zero").err())
        .contains("the database after the port must be a number, e.g. redis://127.0.0.1:6379/0");
    assertThat(usage("--shared", "redis://127.0.0.1:6379?timeout=1s").err())
        .contains("--shared takes no options after ? or #");
    assertThat(usage("--shared", "redis://:hunter2@127.0.0.1:6379 x").err())
        .contains("--shared is not a valid URI: give redis://HOST:PORT[/DB]")
        .doesNotContain("hunter2");
  }

  @Test
  void aBadAccountIsRefusedSayingWhy() throws IOException {
    assertThat(usage("--shared", REDIS, "--account", "team/payments").err())
        .startsWith(
            "relent: --account must be 1 to 100 characters of letters, digits and - _ . : ('/' is"
                + " not allowed), e.g. payments-prod");
    assertThat(usage("--shared", REDIS, "--account", "a".repeat(101)).err())
        .contains("(it has 101 characters)");
    assertThat(usage("--shared", REDIS, "--account", "").err()).contains("(it is empty)");
    assertThat(usage("--shared", REDIS, "--account", "two words").err())
        .contains("(it has a space, a control or a non-ASCII character)");
  }

  @Test
  void anAccountWithoutSharedIsRefused() throws IOException {
    assertThat(usage("--account", "payments").err())
        .startsWith(
            "relent: --account names whose schedule --shared shares: give --shared"
                + " redis://HOST:PORT[/DB] too, or leave out --account");
  }

  @Test
  void aRedisThatIsNotListeningIsAUsageErrorWithoutThePassword() throws IOException {
    int port = sparePort();
    Path journal = dir.resolve("run.journal");
    CliRun run =
        usage(
            "--shared",
            "redis://:hunter2@127.0.0.1:" + port + "/3",
            "--journal",
            journal.toString());
    assertThat(run.err())
        .startsWith("relent: --shared redis://127.0.0.1:" + port + "/3: cannot connect to Redis (")
        .contains(
            "); check that Redis runs there and the URI is right, or leave out --shared to pace"
                + " this process alone")
        .doesNotContain("hunter2");
    assertThat(journal).as("nothing written before the check").doesNotExist();
  }

  @Test
  void aSharedRunSaysSoAndKeepsTheScheduleInRedisUnderTheAccount() throws IOException {
    String account = "shared-options-" + UUID.randomUUID();
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = input("http://127.0.0.1:" + server.port());

      CliRun run =
          BatchCommandTest.batch(
              "batch",
              in.toString(),
              "--rate",
              "20/s",
              "--shared",
              REDIS,
              "--account",
              account,
              "--progress",
              "off");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      assertThat(run.out())
          .contains(
              "adaptive, at most 20/s (--rate), retries included, shared through"
                  + " redis://127.0.0.1:6379 as account "
                  + account
                  + ";");
      assertThat(server.journal()).hasSize(2);
      // The pacer's hash expires about a second after its last change, so on a loaded machine it
      // may be gone by now; the processes seen reserving on it stay two minutes.
      assertThat(exists(REDIS, "relent:{account:" + account + "}:members")).as(run.err()).isTrue();
    }
  }

  @Test
  void withoutAccountTheHostOfTheFirstRequestNamesIt() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      // "localhost" rather than 127.0.0.1: the account is the host in lower case.
      Path in = input("http://LOCALHOST:" + server.port());

      CliRun run =
          BatchCommandTest.batch(
              "batch", in.toString(), "--rate", "20/s", "--shared", REDIS, "--progress", "off");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      assertThat(run.out()).contains("shared through redis://127.0.0.1:6379 as account localhost;");
    }
  }

  @Test
  void theAccountOfAHostIsItsLowerCaseNameWithoutBrackets() {
    assertThat(BatchSharing.accountOf("API.Example.com")).isEqualTo("api.example.com");
    assertThat(BatchSharing.accountOf("[::1]")).isEqualTo("::1");
    assertThat(BatchSharing.accountOf("[fe80::1%25eth0]")).isNull();
    assertThat(BatchSharing.accountOf(null)).isNull();
  }

  /** Whether the Redis at {@code uri} holds {@code key}. */
  static boolean exists(String uri, String key) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().exists(key) == 1;
    } finally {
      client.shutdown();
    }
  }
}
