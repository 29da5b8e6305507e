package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a scenario file into a {@link Scenario}.
 *
 * <p>Design: Jackson's streaming parser (JSON or YAML) builds a small tree whose every node knows
 * its line; a typed walk over that tree checks what only a file can get wrong (unknown and missing
 * keys, JSON types, the spelling of durations, faults and times of day) and hands every value to
 * the setter of the embeddable API that takes it. The setters hold the rules; a setter's rejection
 * becomes a problem {@code source:line: path: message}, naming the value's line and the object it
 * belongs to. Every problem is collected, so one run shows all mistakes; an endpoint with problems
 * is dropped from the builder, and a file with any is rejected as a whole. Not thread-safe; one
 * instance per parse.
 */
final class ScenarioParser {

  private static final JsonFactory JSON =
      JsonFactory.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();
  private static final JsonFactory YAML = new YAMLFactory();

  private static final List<String> TOP_KEYS =
      List.of(
          "description",
          "server",
          "journal",
          "cors",
          "rateLimit",
          "concurrencyLimit",
          "dailyQuota",
          "latency",
          "routes",
          "resources");
  private static final List<String> ROUTE_KEYS =
      List.of(
          "name",
          "description",
          "method",
          "path",
          "steps",
          "cycle",
          "sequencePer",
          "rateLimit",
          "concurrencyLimit",
          "dailyQuota",
          "latency");
  private static final List<String> RESOURCE_KEYS =
      List.of(
          "name",
          "description",
          "path",
          "steps",
          "cycle",
          "sequencePer",
          "idPrefix",
          "keyHeader",
          "requireKey",
          "scope",
          "ttl",
          "rateLimit",
          "concurrencyLimit",
          "dailyQuota",
          "latency");
  private static final List<String> STEP_KEYS =
      List.of(
          "status",
          "headers",
          "body",
          "json",
          "delay",
          "fault",
          "faultBytes",
          "stallFor",
          "times",
          "create");
  private static final List<String> RATE_KEYS =
      List.of("limit", "window", "burst", "key", "status", "name");
  private static final List<String> CONCURRENCY_KEYS =
      List.of("max", "key", "status", "retryAfter");
  private static final List<String> QUOTA_KEYS = List.of("limit", "key", "status", "resetAt");
  private static final List<String> LATENCY_KEYS = List.of("min", "max", "seed");
  private static final List<String> CORS_KEYS =
      List.of(
          "allowOrigins",
          "allowMethods",
          "allowHeaders",
          "exposeHeaders",
          "maxAge",
          "allowCredentials");
  private static final List<String> SERVER_KEYS = List.of("host", "port");
  // An endpoint whose path is unusable is still checked in full, on a stand-in that is dropped.
  private static final String STAND_IN = "/stand-in";
  // A non-negative integer and a unit; ISO 8601 is parsed apart.
  private static final Pattern DURATION = Pattern.compile("(\\d{1,10})(ms|s|m|h|d)?");
  private static final String DURATION_EXPECTED = "expected a duration like 250ms, 2s, 1m or PT2S";
  private static final String METHOD_EXPECTED =
      "expected a method like \"GET\", \"*\" for any, or an array of methods";
  private static final List<String> JOURNAL_KEYS = List.of("capacity");

  /** A parsed value with the line it starts on. */
  private static final class Node {
    final JsonToken token;
    final int line;
    final String text;
    final Map<String, Node> fields;
    final Map<String, Integer> keyLines;
    final List<Node> items;

    Node(JsonToken token, int line, String text) {
      this.token = token;
      this.line = line;
      this.text = text;
      this.fields = token == JsonToken.START_OBJECT ? new LinkedHashMap<>() : null;
      this.keyLines = token == JsonToken.START_OBJECT ? new HashMap<>() : null;
      this.items = token == JsonToken.START_ARRAY ? new ArrayList<>() : null;
    }

    boolean isObject() {
      return token == JsonToken.START_OBJECT;
    }

    boolean isArray() {
      return token == JsonToken.START_ARRAY;
    }

    boolean isString() {
      return token == JsonToken.VALUE_STRING;
    }
  }

  private final String source;
  private final boolean yaml;
  private final List<String> problems = new ArrayList<>();
  private int firstLine;

  ScenarioParser(String source, boolean yaml) {
    this.source = source;
    this.yaml = yaml;
  }

  Scenario parse(String text) {
    Node root = readTree(text);
    Scenario scenario = null;
    if (root != null) {
      scenario = scenario(root);
    }
    if (!problems.isEmpty()) {
      throw new ScenarioException(source, firstLine, problems);
    }
    return scenario;
  }

  // ---- tree ----------------------------------------------------------------------------------

  private Node readTree(String text) {
    try (JsonParser p = (yaml ? YAML : JSON).createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        problem(1, "", "expected an object at the top level, got an empty file");
        return null;
      }
      Node root = read(p, "");
      if (p.nextToken() != null) {
        problem(
            lineOf(p.currentTokenLocation()),
            "",
            "expected the end of the file after the top-level object");
      }
      return root;
    } catch (JsonProcessingException e) {
      String message = e.getOriginalMessage();
      int nl = message.indexOf('\n');
      if (nl >= 0) {
        message = message.substring(0, nl);
      }
      problem(lineOf(e.getLocation()), "", (yaml ? "invalid YAML: " : "invalid JSON: ") + message);
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int lineOf(JsonLocation location) {
    return location == null || location.getLineNr() < 1 ? 1 : location.getLineNr();
  }

  private Node read(JsonParser p, String path) throws IOException {
    JsonToken t = p.currentToken();
    int line = lineOf(p.currentTokenLocation());
    if (t == JsonToken.START_OBJECT) {
      Node n = new Node(t, line, null);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        int keyLine = lineOf(p.currentTokenLocation());
        p.nextToken();
        String childPath = join(path, key);
        Node value = read(p, childPath);
        if (n.fields.containsKey(key)) {
          problem(keyLine, childPath, "duplicate key");
        } else {
          n.fields.put(key, value);
          n.keyLines.put(key, keyLine);
        }
      }
      return n;
    }
    if (t == JsonToken.START_ARRAY) {
      Node n = new Node(t, line, null);
      while (p.nextToken() != JsonToken.END_ARRAY) {
        n.items.add(read(p, path + "[" + n.items.size() + "]"));
      }
      return n;
    }
    return new Node(t, line, t == JsonToken.VALUE_NULL ? "null" : p.getText());
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private void problem(int line, String path, String message) {
    if (problems.isEmpty()) {
      firstLine = line;
    }
    problems.add(source + ":" + line + ": " + (path.isEmpty() ? "" : path + ": ") + message);
  }

  private static String got(Node n) {
    switch (n.token) {
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      case VALUE_STRING:
        String t = n.text.length() > 60 ? n.text.substring(0, 57) + "..." : n.text;
        return JsonText.quote(t);
      default:
        return n.text;
    }
  }

  // ---- typed access --------------------------------------------------------------------------

  /** Reads a key of an object: null if absent, or (reported) of the wrong type. */
  @FunctionalInterface
  private interface Reader<V> {
    V read(Node obj, String path, String key);
  }

  /**
   * Calls the embeddable API with values from the file; a rejection becomes a problem on the line
   * of {@code at}, under {@code path}, with the API's own message.
   *
   * @return what the call returned, or null if it was rejected
   */
  private <T> T call(Node at, String path, Supplier<T> api) {
    try {
      return api.get();
    } catch (IllegalArgumentException | IllegalStateException e) {
      problem(at.line, path, e.getMessage());
      return null;
    }
  }

  /** Applies a setter to {@code target}; if it rejects (a problem on {@code at}'s line), none. */
  private <T> T apply(T target, Node at, String path, UnaryOperator<T> setter) {
    T result = call(at, path, () -> setter.apply(target));
    return result == null ? target : result;
  }

  /** Reads {@code key} of {@code obj} and, if present and well typed, hands it to the setter. */
  private <T, V> T set(
      T target, Node obj, String path, String key, Reader<V> reader, BiFunction<T, V, T> setter) {
    V value = reader.read(obj, path, key);
    return value == null
        ? target
        : apply(target, obj.fields.get(key), path, t -> setter.apply(t, value));
  }

  /** Reports unknown keys; returns false if {@code n} is not an object at all. */
  private boolean object(Node n, String path, List<String> known) {
    if (!n.isObject()) {
      problem(n.line, path, "expected an object, got " + got(n));
      return false;
    }
    for (String key : n.fields.keySet()) {
      if (!known.contains(key)) {
        problem(
            n.keyLines.get(key),
            join(path, key),
            "unknown key, expected one of: " + String.join(", ", known));
      }
    }
    return true;
  }

  private boolean require(Node obj, String path, String key) {
    if (!obj.fields.containsKey(key)) {
      problem(obj.line, path, "missing required key \"" + key + "\"");
      return false;
    }
    return true;
  }

  /** The value of {@code key} if it passes {@code ok}; otherwise reports "expected ...". */
  private Node value(Node obj, String path, String key, boolean ok, String expected) {
    Node n = obj.fields.get(key);
    if (n != null && !ok) {
      problem(n.line, join(path, key), expected + ", got " + got(n));
      return null;
    }
    return n;
  }

  private String string(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    n = value(obj, path, key, n == null || n.isString(), "expected a string");
    return n == null ? null : n.text;
  }

  /** Reads an integer for a setting of {@code range}, which names it when a value is no integer. */
  private Reader<Integer> int32(IntRange range) {
    return (obj, path, key) -> {
      // A value no int holds is outside every range here.
      Long v =
          integer(
              obj, path, key, "an integer " + range.text(), Integer.MIN_VALUE, Integer.MAX_VALUE);
      return v == null ? null : v.intValue();
    };
  }

  private Long int64(Node obj, String path, String key) {
    return integer(obj, path, key, "an integer", Long.MIN_VALUE, Long.MAX_VALUE);
  }

  private Long integer(Node obj, String path, String key, String expected, long min, long max) {
    Node n = obj.fields.get(key);
    Long v = null;
    if (n != null && n.token == JsonToken.VALUE_NUMBER_INT) {
      try {
        long parsed = Long.parseLong(n.text);
        v = parsed >= min && parsed <= max ? parsed : null;
      } catch (NumberFormatException e) {
        // Larger than a long: reported below.
      }
    }
    value(obj, path, key, n == null || v != null, "expected " + expected);
    return v;
  }

  private Boolean bool(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    boolean ok = n == null || n.token == JsonToken.VALUE_TRUE || n.token == JsonToken.VALUE_FALSE;
    n = value(obj, path, key, ok, "expected true or false");
    return n == null ? null : n.token == JsonToken.VALUE_TRUE;
  }

  private Duration duration(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    Duration d = n != null && n.isString() ? parseDuration(n.text) : null;
    value(obj, path, key, n == null || d != null, DURATION_EXPECTED);
    return d;
  }

  private LocalTime timeOfDay(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    LocalTime t = null;
    if (n != null && n.isString() && n.text.matches("\\d\\d:\\d\\d")) {
      try {
        t = LocalTime.parse(n.text);
      } catch (DateTimeParseException e) {
        // 25:00 and the like: reported below.
      }
    }
    value(obj, path, key, n == null || t != null, "expected a UTC time HH:MM like 00:00");
    return t;
  }

  private InjectedFault fault(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    InjectedFault f = n != null && n.isString() ? InjectedFault.fromToken(n.text) : null;
    value(obj, path, key, n == null || f != null, "expected one of " + InjectedFault.tokens());
    return f;
  }

  private List<String> strings(Node obj, String path, String key) {
    Node n = value(obj, path, key, isArray(obj.fields.get(key)), "expected an array of strings");
    if (n == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.items.size(); i++) {
      Node item = n.items.get(i);
      if (item.isString()) {
        out.add(item.text);
      } else {
        problem(item.line, join(path, key) + "[" + i + "]", "expected a string, got " + got(item));
      }
    }
    return out.size() == n.items.size() ? out : null;
  }

  private static boolean isArray(Node n) {
    return n == null || n.isArray();
  }

  /**
   * Parses a duration as the file writes it: a non-negative integer and a unit ({@code 250ms},
   * {@code 2s}, {@code 1m}, {@code 1h}, {@code 1d}), {@code 0}, or ISO 8601 ({@code PT2S}).
   *
   * @return the duration, or null when {@code text} is not one
   */
  static Duration parseDuration(String text) {
    if (text.isEmpty()) {
      return null;
    }
    char first = text.charAt(0);
    if (first == 'P' || first == 'p') {
      try {
        // A negative one is left to the setter, which says what it must be.
        return Duration.parse(text);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      return null;
    }
    long value = Long.parseLong(m.group(1));
    if (value > 1_000_000_000L) {
      return null;
    }
    if (m.group(2) == null) {
      // A bare number is ambiguous (seconds or milliseconds?); only zero means the same in both.
      return value == 0 ? Duration.ZERO : null;
    }
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(value);
      case "s" -> Duration.ofSeconds(value);
      case "m" -> Duration.ofMinutes(value);
      case "h" -> Duration.ofHours(value);
      default -> Duration.ofDays(value);
    };
  }

  // ---- the format ----------------------------------------------------------------------------

  private Scenario scenario(Node root) {
    if (!root.isObject()) {
      problem(root.line, "", "expected an object at the top level, got " + got(root));
      return null;
    }
    object(root, "", TOP_KEYS);
    Scenario.Builder b = Scenario.builder();
    string(root, "", "description");
    Node server = root.fields.get("server");
    if (server != null && object(server, "server", SERVER_KEYS)) {
      set(b, server, "server", "host", this::string, Scenario.Builder::withHost);
      set(b, server, "server", "port", int32(MockServer.PORT), Scenario.Builder::withPort);
    }
    Node journal = root.fields.get("journal");
    if (journal != null && object(journal, "journal", JOURNAL_KEYS)) {
      set(
          b,
          journal,
          "journal",
          "capacity",
          int32(Journal.CAPACITY),
          Scenario.Builder::withJournalCapacity);
    }
    Node cors = root.fields.get("cors");
    if (cors != null) {
      Cors c = cors(cors, "cors");
      if (c != null) {
        b.withCors(c);
      }
    }
    emulations(b, root, "");
    Node routes = endpoints(root, "routes");
    for (int i = 0; routes != null && i < routes.items.size(); i++) {
      route(b, routes.items.get(i), "routes[" + i + "]");
    }
    Node resources = endpoints(root, "resources");
    for (int i = 0; resources != null && i < resources.items.size(); i++) {
      resource(b, resources.items.get(i), "resources[" + i + "]");
    }
    if (!root.fields.containsKey("routes") && !root.fields.containsKey("resources")) {
      problem(root.line, "", "missing required key \"routes\"");
    }
    if (!problems.isEmpty()) {
      return null;
    }
    return call(root, "", b::build);
  }

  private Node endpoints(Node root, String key) {
    return value(root, "", key, isArray(root.fields.get(key)), "expected an array");
  }

  private void emulations(Scenario.EmulationBuilder<?> b, Node obj, String path) {
    RateLimit rateLimit = rateLimit(obj.fields.get("rateLimit"), join(path, "rateLimit"));
    if (rateLimit != null) {
      b.withRateLimit(rateLimit);
    }
    ConcurrentRequestLimit concurrencyLimit =
        concurrencyLimit(obj.fields.get("concurrencyLimit"), join(path, "concurrencyLimit"));
    if (concurrencyLimit != null) {
      b.withConcurrencyLimit(concurrencyLimit);
    }
    DailyQuota dailyQuota = dailyQuota(obj.fields.get("dailyQuota"), join(path, "dailyQuota"));
    if (dailyQuota != null) {
      b.withDailyQuota(dailyQuota);
    }
    Latency latency = latency(obj.fields.get("latency"), join(path, "latency"));
    if (latency != null) {
      b.withLatency(latency);
    }
  }

  // Each emulation below is made from its required keys, or from a stand-in when those are missing
  // or rejected (a problem is reported then), so that its other keys are checked all the same.

  private RateLimit rateLimit(Node n, String p) {
    if (n == null || !object(n, p, RATE_KEYS)) {
      return null;
    }
    int before = problems.size();
    require(n, p, "limit");
    require(n, p, "window");
    Integer limit = int32(RateLimit.LIMIT).read(n, p, "limit");
    Duration window = duration(n, p, "window");
    RateLimit r =
        limit == null || window == null ? null : call(n, p, () -> RateLimit.of(limit, window));
    r = r != null ? r : RateLimit.of(1, Duration.ofSeconds(1));
    r = set(r, n, p, "burst", int32(RateLimit.BURST), RateLimit::withBurst);
    r = set(r, n, p, "key", this::string, RateLimit::withKey);
    r = set(r, n, p, "status", int32(Emulation.REJECT_STATUS), RateLimit::withStatus);
    r = set(r, n, p, "name", this::string, RateLimit::withName);
    return problems.size() > before ? null : r;
  }

  private ConcurrentRequestLimit concurrencyLimit(Node n, String p) {
    if (n == null || !object(n, p, CONCURRENCY_KEYS)) {
      return null;
    }
    int before = problems.size();
    require(n, p, "max");
    Integer max = int32(ConcurrentRequestLimit.MAX).read(n, p, "max");
    ConcurrentRequestLimit c =
        max == null ? null : call(n, p, () -> ConcurrentRequestLimit.of(max));
    c = c != null ? c : ConcurrentRequestLimit.of(1);
    c = set(c, n, p, "key", this::string, ConcurrentRequestLimit::withKey);
    c = set(c, n, p, "status", int32(Emulation.REJECT_STATUS), ConcurrentRequestLimit::withStatus);
    c = set(c, n, p, "retryAfter", this::duration, ConcurrentRequestLimit::withRetryAfter);
    return problems.size() > before ? null : c;
  }

  private DailyQuota dailyQuota(Node n, String p) {
    if (n == null || !object(n, p, QUOTA_KEYS)) {
      return null;
    }
    int before = problems.size();
    require(n, p, "limit");
    Integer limit = int32(RateLimit.LIMIT).read(n, p, "limit");
    DailyQuota q = limit == null ? null : call(n, p, () -> DailyQuota.of(limit));
    q = q != null ? q : DailyQuota.of(1);
    q = set(q, n, p, "key", this::string, DailyQuota::withKey);
    q = set(q, n, p, "status", int32(Emulation.REJECT_STATUS), DailyQuota::withStatus);
    q = set(q, n, p, "resetAt", this::timeOfDay, DailyQuota::withResetAt);
    return problems.size() > before ? null : q;
  }

  private Latency latency(Node n, String p) {
    if (n == null || !object(n, p, LATENCY_KEYS)) {
      return null;
    }
    int before = problems.size();
    require(n, p, "min");
    require(n, p, "max");
    Duration min = duration(n, p, "min");
    Duration max = duration(n, p, "max");
    Latency l = min == null || max == null ? null : call(n, p, () -> Latency.between(min, max));
    l = l != null ? l : Latency.between(Duration.ZERO, Duration.ZERO);
    l = set(l, n, p, "seed", this::int64, Latency::withSeed);
    return problems.size() > before ? null : l;
  }

  private Cors cors(Node n, String path) {
    if (n.token == JsonToken.VALUE_TRUE) {
      return Cors.allowAll();
    }
    if (n.token == JsonToken.VALUE_FALSE) {
      return Cors.disabled();
    }
    if (!n.isObject()) {
      problem(n.line, path, "expected true, false or an object, got " + got(n));
      return null;
    }
    int before = problems.size();
    object(n, path, CORS_KEYS);
    Cors c = Cors.allowAll();
    c = set(c, n, path, "allowOrigins", this::strings, Cors::withAllowedOrigins);
    c = set(c, n, path, "allowMethods", this::strings, Cors::withAllowedMethods);
    c = set(c, n, path, "allowHeaders", this::strings, Cors::withAllowedHeaders);
    c = set(c, n, path, "exposeHeaders", this::strings, Cors::withExposedHeaders);
    c = set(c, n, path, "maxAge", this::duration, Cors::withMaxAge);
    c = set(c, n, path, "allowCredentials", this::bool, Cors::withAllowCredentials);
    return problems.size() > before ? null : c;
  }

  private void route(Scenario.Builder b, Node n, String path) {
    if (!object(n, path, ROUTE_KEYS)) {
      return;
    }
    int before = problems.size();
    boolean hasPath = require(n, path, "path");
    require(n, path, "steps");
    string(n, path, "description");
    String pattern = hasPath ? string(n, path, "path") : null;
    List<Node> methods = methods(n, path);
    Scenario.RouteBuilder opened =
        pattern == null ? null : call(n.fields.get("path"), path, () -> b.route(pattern));
    Scenario.RouteBuilder r = opened != null ? opened : b.route(STAND_IN);
    boolean anyMethod = methods == null || methods.stream().anyMatch(m -> m.text.equals("*"));
    for (int i = 0; !anyMethod && i < methods.size(); i++) {
      Node m = methods.get(i);
      call(m, path, () -> r.method(m.text));
    }
    endpoint(r, n, path);
    finish(b, r, n, path, before);
  }

  private void resource(Scenario.Builder b, Node n, String path) {
    if (!object(n, path, RESOURCE_KEYS)) {
      return;
    }
    int before = problems.size();
    boolean hasPath = require(n, path, "path");
    string(n, path, "description");
    String pattern = hasPath ? string(n, path, "path") : null;
    Scenario.ResourceBuilder opened =
        pattern == null ? null : call(n.fields.get("path"), path, () -> b.resource(pattern));
    Scenario.ResourceBuilder r = opened != null ? opened : b.resource(STAND_IN);
    endpoint(r, n, path);
    set(r, n, path, "idPrefix", this::string, Scenario.ResourceBuilder::withIdPrefix);
    set(r, n, path, "keyHeader", this::string, Scenario.ResourceBuilder::withKeyHeader);
    set(r, n, path, "requireKey", this::bool, Scenario.ResourceBuilder::requireKey);
    set(r, n, path, "scope", this::string, Scenario.ResourceBuilder::withScope);
    set(r, n, path, "ttl", this::duration, Scenario.ResourceBuilder::withTtl);
    finish(b, r, n, path, before);
  }

  /** The keys a route and a resource share. */
  private void endpoint(Scenario.EndpointBuilder<?> r, Node n, String path) {
    Node steps = n.fields.get("steps");
    String stepsPath = join(path, "steps");
    if (steps != null && !steps.isArray()) {
      problem(steps.line, stepsPath, "expected an array of steps, got " + got(steps));
    } else if (steps != null && steps.items.isEmpty()) {
      call(steps, path, () -> r.steps());
    } else if (steps != null) {
      for (int i = 0; i < steps.items.size(); i++) {
        Node item = steps.items.get(i);
        String itemPath = stepsPath + "[" + i + "]";
        Step s = step(item, itemPath);
        if (s != null) {
          call(item, itemPath, () -> r.addStep(s));
        }
      }
    }
    set(r, n, path, "name", this::string, (e, name) -> e.named(name));
    if (Boolean.TRUE.equals(bool(n, path, "cycle"))) {
      r.cycling();
    }
    set(r, n, path, "sequencePer", this::string, (e, key) -> e.withSequencePer(key));
    emulations(r, n, path);
  }

  /** Adds the endpoint to the scenario, or drops it if it had problems. */
  private void finish(
      Scenario.Builder b, Scenario.EndpointBuilder<?> r, Node n, String path, int before) {
    if (problems.size() > before) {
      b.discardOpen();
    } else {
      call(n, path, r::and);
    }
  }

  /** The method nodes of a route, all strings; null for any method or (reported) a bad type. */
  private List<Node> methods(Node n, String path) {
    Node m = n.fields.get("method");
    if (m == null) {
      return null;
    }
    List<Node> items = m.isArray() ? m.items : List.of(m);
    boolean ok = !items.isEmpty();
    for (Node item : items) {
      ok &= item.isString();
    }
    return value(n, path, "method", ok, METHOD_EXPECTED) == null ? null : items;
  }

  private Step step(Node n, String path) {
    if (!object(n, path, STEP_KEYS)) {
      return null;
    }
    int before = problems.size();
    Step s = Step.normal();
    s = set(s, n, path, "status", int32(Step.STATUS), Step::withStatus);
    Node headers = n.fields.get("headers");
    String headersPath = join(path, "headers");
    if (headers != null && !headers.isObject()) {
      problem(
          headers.line,
          headersPath,
          "expected an object of header names to values, got " + got(headers));
    } else if (headers != null) {
      for (Map.Entry<String, Node> h : headers.fields.entrySet()) {
        String name = h.getKey();
        for (Node v : h.getValue().isArray() ? h.getValue().items : List.of(h.getValue())) {
          if (v.isString() || v.token == JsonToken.VALUE_NUMBER_INT) {
            s = apply(s, v, path, step -> step.withHeader(name, v.text));
          } else {
            problem(
                v.line, join(headersPath, name), "expected a string or an integer, got " + got(v));
          }
        }
      }
    }
    Node json = n.fields.get("json");
    if (json != null && n.fields.containsKey("body")) {
      problem(json.line, join(path, "json"), "expected either \"body\" or \"json\", not both");
    } else if (json != null) {
      s = s.withJsonBody(compact(json));
    }
    s = set(s, n, path, "body", this::string, Step::withBody);
    s = set(s, n, path, "delay", this::duration, Step::withDelay);
    s = set(s, n, path, "fault", this::fault, Step::withFault);
    s = set(s, n, path, "faultBytes", int32(Step.FAULT_BYTES), Step::withFaultBytes);
    s = set(s, n, path, "stallFor", this::duration, Step::withStallFor);
    s = set(s, n, path, "times", int32(Step.TIMES), Step::times);
    s =
        set(
            s,
            n,
            path,
            "create",
            this::bool,
            (step, create) -> create ? step : step.withoutCreating());
    return problems.size() > before ? null : s;
  }

  /** Writes a JSON tree back as compact JSON text (for a step's {@code json} body). */
  private static String compact(Node n) {
    StringWriter out = new StringWriter();
    try (com.fasterxml.jackson.core.JsonGenerator g = JsonText.FACTORY.createGenerator(out)) {
      write(g, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void write(com.fasterxml.jackson.core.JsonGenerator g, Node n) throws IOException {
    switch (n.token) {
      case START_OBJECT:
        g.writeStartObject();
        for (Map.Entry<String, Node> e : n.fields.entrySet()) {
          g.writeFieldName(e.getKey());
          write(g, e.getValue());
        }
        g.writeEndObject();
        break;
      case START_ARRAY:
        g.writeStartArray();
        for (Node item : n.items) {
          write(g, item);
        }
        g.writeEndArray();
        break;
      case VALUE_STRING:
        g.writeString(n.text);
        break;
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        g.writeNumber(n.text);
        break;
      case VALUE_TRUE:
        g.writeBoolean(true);
        break;
      case VALUE_FALSE:
        g.writeBoolean(false);
        break;
      default:
        g.writeNull();
        break;
    }
  }
}
