package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of mistake in a scenario file, with the exact message a person gets. */
class ScenarioParserTest {

  static List<Arguments> badFiles() {
    return List.of(
        Arguments.of(
            "status not an integer",
            "{\"routes\": [\n  {\"path\": \"/a\",\n   \"steps\": [{\"status\": 200}, {\"status\": \"abc\"}]}\n]}",
            "scenario.json:3: routes[0].steps[1].status: expected an integer 100..599, got \"abc\""),
        Arguments.of(
            "status out of range",
            "{\"routes\": [{\"path\": \"/a\",\n \"steps\": [{\"status\": 600}]}]}",
            "scenario.json:2: routes[0].steps[0]: status must be an integer 100..599: 600"),
        Arguments.of(
            "unknown key in a step",
            "{\"routes\": [{\"path\": \"/a\",\n \"steps\": [{\"stauts\": 503}]}]}",
            "scenario.json:2: routes[0].steps[0].stauts: unknown key, expected one of: status,"
                + " headers, body, json, delay, fault, faultBytes, stallFor, times, create"),
        Arguments.of(
            "unknown top-level key",
            "{\"rotues\": []}",
            "scenario.json:1: rotues: unknown key, expected one of: description, server, journal,"
                + " cors, rateLimit, concurrencyLimit, dailyQuota, latency, routes, resources\n"
                + "scenario.json:1: missing required key \"routes\""),
        Arguments.of(
            "missing path",
            "{\"routes\": [\n  {\"method\": \"GET\", \"steps\": [{}]}\n]}",
            "scenario.json:2: routes[0]: missing required key \"path\""),
        Arguments.of(
            "bad duration",
            "{\"routes\": [{\"path\": \"/slow\",\n \"steps\": [{\"delay\": \"15 seconds\"}]}]}",
            "scenario.json:2: routes[0].steps[0].delay: expected a duration like 250ms, 2s, 1m or"
                + " PT2S, got \"15 seconds\""),
        Arguments.of(
            "a bare number is not a duration",
            "{\"routes\": [{\"path\": \"/slow\", \"steps\": [{\"delay\": 15}]}]}",
            "scenario.json:1: routes[0].steps[0].delay: expected a duration like 250ms, 2s, 1m or"
                + " PT2S, got 15"),
        Arguments.of(
            "unknown fault",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [\n{\"fault\": \"explode\"}]}]}",
            "scenario.json:2: routes[0].steps[0].fault: expected one of reset, reset-before-read,"
                + " close, stall, truncate, got \"explode\""),
        Arguments.of(
            "unknown template",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [{\"status\": 429,\n"
                + " \"headers\": {\"Retry-After\": \"{{http-dat:+5s}}\"}}]}]}",
            "scenario.json:2: routes[0].steps[0]: header Retry-After: unknown template"
                + " \"{{http-dat:+5s}}\", expected {{http-date:±N}}, {{rfc850-date:±N}},"
                + " {{asctime-date:±N}}, {{epoch-seconds:±N}} or {{seconds:N}}"),
        Arguments.of(
            "template with a bad offset",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [{\"headers\":\n"
                + " {\"Retry-After\": \"{{seconds:5 minutes}}\"}}]}]}",
            "scenario.json:2: routes[0].steps[0]: header Retry-After: bad offset in"
                + " \"{{seconds:5 minutes}}\": expected N with an optional unit s, m, h or d, like"
                + " +5s, -30s or 2m"),
        Arguments.of(
            "invalid JSON",
            "{\"routes\": [\n  {\"path\": \"/a\" \"steps\": []}\n]}",
            "scenario.json:2: invalid JSON: Unexpected character ('\"' (code 34)): was expecting"
                + " comma to separate Object entries"),
        Arguments.of(
            "bad method",
            "{\"routes\": [{\"method\": \"GE T\", \"path\": \"/a\", \"steps\": [{}]}]}",
            "scenario.json:1: routes[0]: method must be an HTTP method token like GET: \"GE T\""),
        Arguments.of(
            "no steps",
            "{\"routes\": [{\"path\": \"/a\",\n \"steps\": []}]}",
            "scenario.json:2: routes[0]: steps must not be empty"),
        Arguments.of(
            "top level is not an object",
            "[{\"path\": \"/a\"}]",
            "scenario.json:1: expected an object at the top level, got an array"),
        Arguments.of(
            "empty file",
            "",
            "scenario.json:1: expected an object at the top level, got an empty file"),
        Arguments.of(
            "duplicate key",
            "{\"routes\": [{\"path\": \"/a\",\n \"path\": \"/b\", \"steps\": [{}]}]}",
            "scenario.json:2: routes[0].path: duplicate key"),
        Arguments.of(
            "path without a slash",
            "{\"routes\": [{\"path\": \"flaky\", \"steps\": [{}]}]}",
            "scenario.json:1: routes[0]: path: expected a path starting with \"/\", got \"flaky\""),
        Arguments.of(
            "contradicting step settings",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [\n {\"stallFor\": \"1s\"}]}]}",
            "scenario.json:2: routes[0].steps[0]: stallFor needs fault stall, but fault is not set"),
        Arguments.of(
            "bad key spec",
            "{\"rateLimit\": {\"limit\": 10, \"window\": \"1m\",\n \"key\": \"cookie\"},"
                + " \"routes\": []}",
            "scenario.json:2: rateLimit: key must be ip, token, global or header:<name>:"
                + " \"cookie\""),
        Arguments.of(
            "rate limit without window",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [{}],\n"
                + " \"rateLimit\": {\"limit\": 10}}]}",
            "scenario.json:2: routes[0].rateLimit: missing required key \"window\""),
        Arguments.of(
            "duplicate route",
            "{\"routes\": [\n{\"method\": \"GET\", \"path\": \"/a\", \"steps\": [{}]},\n"
                + "{\"method\": \"GET\", \"path\": \"/a\", \"steps\": [{}]}]}",
            "scenario.json:3: routes[1]: two endpoints are named \"GET /a\"; give one a different"
                + " name"),
        Arguments.of(
            "create outside a resource",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [{\"create\": false}]}]}",
            "scenario.json:1: routes[0].steps[0]: create: false is only allowed in the steps of a"
                + " resource"),
        Arguments.of(
            "wrong type for a boolean",
            "{\"routes\": [{\"path\": \"/a\", \"cycle\": \"yes\", \"steps\": [{}]}]}",
            "scenario.json:1: routes[0].cycle: expected true or false, got \"yes\""),
        Arguments.of(
            "several problems at once",
            "{\"routes\": [\n{\"path\": \"/a\", \"steps\": [{\"status\": 99}]},\n"
                + "{\"path\": \"/b\", \"steps\": [{\"delay\": \"soon\"}]}]}",
            "scenario.json:2: routes[0].steps[0]: status must be an integer 100..599: 99\n"
                + "scenario.json:3: routes[1].steps[0].delay: expected a duration like 250ms, 2s, 1m"
                + " or PT2S, got \"soon\""),
        Arguments.of(
            "window shorter than the rate limit allows",
            "{\"rateLimit\": {\"limit\": 10,\n \"window\": \"0s\"}, \"routes\": []}",
            "scenario.json:1: rateLimit: window must be >= 1 ms: 0 ms"),
        Arguments.of(
            "latency max below min",
            "{\"latency\": {\"min\": \"50ms\", \"max\": \"10ms\"}, \"routes\": []}",
            "scenario.json:1: latency: max must be >= min: max 10 ms, min 50 ms"),
        Arguments.of(
            "resource ttl too short",
            "{\"resources\": [{\"path\": \"/p\",\n \"ttl\": \"500ms\"}]}",
            "scenario.json:2: resources[0]: ttl must be >= 1 s: 500 ms"),
        Arguments.of(
            "negative ISO duration",
            "{\"routes\": [{\"path\": \"/a\", \"steps\": [\n{\"delay\": \"PT-2S\"}]}]}",
            "scenario.json:2: routes[0].steps[0]: delay must be >= 0: -2000 ms"),
        Arguments.of(
            "port out of range",
            "{\"server\": {\"port\": 70000}, \"routes\": []}",
            "scenario.json:1: server: port must be an integer 0..65535: 70000"),
        Arguments.of(
            "origin that is empty",
            "{\"cors\": {\"allowOrigins\": [\"\"]}, \"routes\": []}",
            "scenario.json:1: cors: allowOrigins must hold origins like https://app.example or *,"
                + " not \"\""),
        Arguments.of(
            "a route with a bad path is still checked in full",
            "{\"routes\": [{\"path\": \"x\", \"name\": \" \", \"steps\": [{\"status\": 700}]}]}",
            "scenario.json:1: routes[0]: path: expected a path starting with \"/\", got \"x\"\n"
                + "scenario.json:1: routes[0].steps[0]: status must be an integer 100..599: 700\n"
                + "scenario.json:1: routes[0]: name must not be blank"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void rejectsABadFileNamingFileLineFieldAndExpectation(String kind, String text, String message) {
    assertThatThrownBy(() -> Scenario.parse(text, "scenario.json"))
        .isInstanceOf(ScenarioException.class)
        .hasMessage(message);
  }

  @Test
  void theExceptionCarriesTheDetailsAsFields() {
    ScenarioException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ScenarioException.class,
            () ->
                Scenario.parse(
                    "{\"routes\": [\n{\"path\": \"/a\", \"steps\": [{\"status\": 99}]},\n"
                        + "{\"path\": \"/b\", \"steps\": [{\"delay\": \"soon\"}]}]}",
                    "s.json"));
    assertThat(e.source()).isEqualTo("s.json");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.problems()).hasSize(2);
  }

  @Test
  void yamlErrorsHaveLineNumbersToo() {
    String yaml = "routes:\n  - path: /a\n    steps:\n      - status: abc\n";
    assertThatThrownBy(() -> Scenario.parse(yaml, "scenario.yaml"))
        .hasMessage(
            "scenario.yaml:4: routes[0].steps[0].status: expected an integer 100..599, got \"abc\"");
  }

  @Test
  void aFileIsNamedAsGiven(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"routes\": [{\"path\": \"/a\", \"steps\": [{\"fault\": 1}]}]}");
    assertThatThrownBy(() -> Scenario.parse(file))
        .hasMessage(
            file
                + ":1: routes[0].steps[0].fault: expected one of reset, reset-before-read, close,"
                + " stall, truncate, got 1");
  }

  @Test
  void parsesEveryDocumentedKey() throws Exception {
    Path json = Path.of(getClass().getResource("/full-scenario.json").toURI());
    Scenario s = Scenario.parse(json);
    assertThat(s.endpointNames())
        .containsExactly(
            "flaky",
            "GET|HEAD /items/*",
            "/limited",
            "/busy",
            "/quota",
            "/slow",
            "/faults/**",
            "payments");
    Path yaml = Path.of(getClass().getResource("/full-scenario.yaml").toURI());
    assertThat(Scenario.parse(yaml).endpointNames()).isEqualTo(s.endpointNames());
  }

  @Test
  void commentsAreAllowedInJson() {
    Scenario s =
        Scenario.parse(
            "{ // the flaky route\n \"routes\": [{\"path\": \"/a\", /* one step */ \"steps\": [{}]}]}");
    assertThat(s.endpointNames()).containsExactly("/a");
  }

  @Test
  void theJavaBuilderValidatesInTheSetters() {
    assertThatThrownBy(() -> Step.status(42)).hasMessage("status must be an integer 100..599: 42");
    assertThatThrownBy(() -> Step.normal().withHeader("Bad Name", "x"))
        .hasMessage("header name must be an HTTP token: \"Bad Name\"");
    assertThatThrownBy(() -> Step.normal().withHeader("Retry-After", "{{http-dat}}"))
        .hasMessageStartingWith("header Retry-After: unknown template \"{{http-dat}}\"");
    assertThatThrownBy(() -> Step.normal().withDelay(java.time.Duration.ofMillis(-5)))
        .hasMessage("delay must be >= 0: -5 ms");
    assertThatThrownBy(() -> Step.normal().withBody(null)).hasMessage("body cannot be null");
    assertThatThrownBy(() -> RateLimit.of(0, java.time.Duration.ofSeconds(1)))
        .hasMessage("limit must be an integer >= 1: 0");
    assertThatThrownBy(() -> RateLimit.of(1, java.time.Duration.ofSeconds(1)).withKey("cookie"))
        .hasMessage("key must be ip, token, global or header:<name>: \"cookie\"");
    assertThatThrownBy(() -> ConcurrentRequestLimit.of(1).withStatus(200))
        .hasMessage("status must be an integer 400..599: 200");
    assertThatThrownBy(() -> Scenario.builder().route("GET", "flaky"))
        .hasMessage("path: expected a path starting with \"/\", got \"flaky\"");
    assertThatThrownBy(() -> Scenario.builder().route("GE T", "/a"))
        .hasMessage("method must be an HTTP method token like GET: \"GE T\"");
    assertThatThrownBy(() -> Scenario.builder().route("/a").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("route /a has no steps");
    assertThatThrownBy(() -> Scenario.builder().route("/a").steps(Step.normal().withFaultBytes(3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step 0: faultBytes needs fault stall or truncate, but fault is not set");
    assertThatThrownBy(
            () ->
                Scenario.builder()
                    .route("GET", "/a")
                    .steps(Step.normal())
                    .route("GET", "/a")
                    .steps(Step.normal())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("two endpoints are named \"GET /a\"; give one a different name");
    assertThatThrownBy(() -> Scenario.builder().resource("/payments/*"))
        .hasMessage(
            "path of a resource must be a literal path without a trailing /: \"/payments/*\"");
    assertThatThrownBy(() -> MockServer.builder(Scenario.builder().build()).withPort(70_000))
        .hasMessage("port must be an integer 0..65535: 70000");
  }
}
