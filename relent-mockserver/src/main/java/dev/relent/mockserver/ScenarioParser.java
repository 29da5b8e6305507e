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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a scenario file into a {@link Scenario}.
 *
 * <p>Design: Jackson's streaming parser (JSON or YAML) builds a small tree whose every node knows
 * its line; a typed walk over that tree checks each field against the format of {@code
 * docs/mockserver.md} and collects every problem as {@code source:line: path: what was expected,
 * got what}, so one run shows all mistakes. Only a file without problems reaches the builders. Not
 * thread-safe; one instance per parse.
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
        return Json.quote(t);
      default:
        return n.text;
    }
  }

  // ---- typed access --------------------------------------------------------------------------

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

  private String string(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    if (!n.isString()) {
      problem(n.line, join(path, key), "expected a string, got " + got(n));
      return null;
    }
    return n.text;
  }

  private Long integer(Node obj, String path, String key, long min, long max, String expected) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    if (n.token == JsonToken.VALUE_NUMBER_INT) {
      try {
        long v = Long.parseLong(n.text);
        if (v >= min && v <= max) {
          return v;
        }
      } catch (NumberFormatException e) {
        // Larger than a long: out of range, reported below.
      }
    }
    problem(n.line, join(path, key), "expected " + expected + ", got " + got(n));
    return null;
  }

  private Boolean bool(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    if (n.token == JsonToken.VALUE_TRUE || n.token == JsonToken.VALUE_FALSE) {
      return n.token == JsonToken.VALUE_TRUE;
    }
    problem(n.line, join(path, key), "expected true or false, got " + got(n));
    return null;
  }

  private Duration duration(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    Duration d = n.isString() ? Durations.parse(n.text) : null;
    if (d == null) {
      problem(n.line, join(path, key), Durations.EXPECTED + ", got " + got(n));
    }
    return d;
  }

  private KeySpec keySpec(Node obj, String path, String key) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    KeySpec k = n.isString() ? KeySpec.parse(n.text) : null;
    if (k == null) {
      problem(n.line, join(path, key), KeySpec.EXPECTED + ", got " + got(n));
    }
    return k;
  }

  private List<String> tokens(Node obj, String path, String key, String what) {
    Node n = obj.fields.get(key);
    if (n == null) {
      return null;
    }
    if (!n.isArray()) {
      problem(n.line, join(path, key), "expected an array of " + what + ", got " + got(n));
      return null;
    }
    List<String> out = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < n.items.size(); i++) {
      Node item = n.items.get(i);
      if (!item.isString() || !(Http.isToken(item.text) || item.text.equals("*"))) {
        problem(
            item.line, join(path, key) + "[" + i + "]", "expected " + what + ", got " + got(item));
        ok = false;
      } else {
        out.add(item.text);
      }
    }
    return ok ? out : null;
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
      String host = string(server, "server", "host");
      Long port = integer(server, "server", "port", 0, 65_535, "an integer 0..65535");
      b.withServer(host, port == null ? null : port.intValue());
    }
    Node journal = root.fields.get("journal");
    if (journal != null && object(journal, "journal", JOURNAL_KEYS)) {
      Long capacity =
          integer(journal, "journal", "capacity", 1, 10_000_000, "an integer 1..10000000");
      if (capacity != null) {
        b.withJournalCapacity(capacity.intValue());
      }
    }
    Node cors = root.fields.get("cors");
    if (cors != null) {
      Cors c = cors(cors, "cors");
      if (c != null) {
        b.withCors(c);
      }
    }
    Guards g = guards(root, "");
    if (g.rateLimit != null) {
      b.withRateLimit(g.rateLimit);
    }
    if (g.concurrencyLimit != null) {
      b.withConcurrencyLimit(g.concurrencyLimit);
    }
    if (g.dailyQuota != null) {
      b.withDailyQuota(g.dailyQuota);
    }
    if (g.latency != null) {
      b.withLatency(g.latency);
    }

    Map<String, String> names = new HashMap<>();
    Node routes = root.fields.get("routes");
    if (routes != null) {
      if (!routes.isArray()) {
        problem(routes.line, "routes", "expected an array, got " + got(routes));
      } else {
        for (int i = 0; i < routes.items.size(); i++) {
          route(b, routes.items.get(i), "routes[" + i + "]", names);
        }
      }
    }
    Node resources = root.fields.get("resources");
    if (resources != null) {
      if (!resources.isArray()) {
        problem(resources.line, "resources", "expected an array, got " + got(resources));
      } else {
        for (int i = 0; i < resources.items.size(); i++) {
          resource(b, resources.items.get(i), "resources[" + i + "]", names);
        }
      }
    }
    if (routes == null && resources == null) {
      problem(root.line, "", "missing required key \"routes\"");
    }
    if (!problems.isEmpty()) {
      return null;
    }
    try {
      return b.build();
    } catch (RuntimeException e) {
      problem(root.line, "", e.getMessage());
      return null;
    }
  }

  private static final class Guards {
    RateLimit rateLimit;
    ConcurrencyLimit concurrencyLimit;
    DailyQuota dailyQuota;
    Latency latency;
  }

  private Guards guards(Node obj, String path) {
    Guards g = new Guards();
    Node n = obj.fields.get("rateLimit");
    String p = join(path, "rateLimit");
    if (n != null && object(n, p, RATE_KEYS)) {
      require(n, p, "limit");
      require(n, p, "window");
      Long limit = integer(n, p, "limit", 1, Integer.MAX_VALUE, "an integer >= 1");
      Duration window = duration(n, p, "window");
      Long burst = integer(n, p, "burst", 1, Integer.MAX_VALUE, "an integer >= 1");
      KeySpec key = keySpec(n, p, "key");
      Long status = integer(n, p, "status", 400, 599, "an integer 400..599");
      String name = string(n, p, "name");
      if (name != null && !Http.isToken(name)) {
        problem(
            n.fields.get("name").line,
            join(p, "name"),
            "expected an HTTP token, got " + got(n.fields.get("name")));
        name = null;
      }
      if (window != null && window.toMillis() < 1) {
        problem(
            n.fields.get("window").line,
            join(p, "window"),
            "expected a duration >= 1ms, got " + got(n.fields.get("window")));
        window = null;
      }
      if (limit != null && window != null) {
        RateLimit r = RateLimit.of(limit.intValue(), window);
        if (burst != null) {
          r = r.withBurst(burst.intValue());
        }
        if (key != null) {
          r = r.withKey(key.text);
        }
        if (status != null) {
          r = r.withStatus(status.intValue());
        }
        if (name != null) {
          r = r.withName(name);
        }
        g.rateLimit = r;
      }
    }
    n = obj.fields.get("concurrencyLimit");
    p = join(path, "concurrencyLimit");
    if (n != null && object(n, p, CONCURRENCY_KEYS)) {
      require(n, p, "max");
      Long max = integer(n, p, "max", 1, Integer.MAX_VALUE, "an integer >= 1");
      KeySpec key = keySpec(n, p, "key");
      Long status = integer(n, p, "status", 400, 599, "an integer 400..599");
      Duration retryAfter = duration(n, p, "retryAfter");
      if (max != null) {
        ConcurrencyLimit c = ConcurrencyLimit.of(max.intValue());
        if (key != null) {
          c = c.withKey(key.text);
        }
        if (status != null) {
          c = c.withStatus(status.intValue());
        }
        if (retryAfter != null) {
          c = c.withRetryAfter(retryAfter);
        }
        g.concurrencyLimit = c;
      }
    }
    n = obj.fields.get("dailyQuota");
    p = join(path, "dailyQuota");
    if (n != null && object(n, p, QUOTA_KEYS)) {
      require(n, p, "limit");
      Long limit = integer(n, p, "limit", 1, Integer.MAX_VALUE, "an integer >= 1");
      KeySpec key = keySpec(n, p, "key");
      Long status = integer(n, p, "status", 400, 599, "an integer 400..599");
      LocalTime resetAt = null;
      String reset = string(n, p, "resetAt");
      if (reset != null) {
        try {
          if (!reset.matches("\\d\\d:\\d\\d")) {
            throw new DateTimeParseException("not HH:MM", reset, 0);
          }
          resetAt = LocalTime.parse(reset);
        } catch (DateTimeParseException e) {
          Node r = n.fields.get("resetAt");
          problem(
              r.line, join(p, "resetAt"), "expected a UTC time HH:MM like 00:00, got " + got(r));
        }
      }
      if (limit != null) {
        DailyQuota q = DailyQuota.of(limit.intValue());
        if (key != null) {
          q = q.withKey(key.text);
        }
        if (status != null) {
          q = q.withStatus(status.intValue());
        }
        if (resetAt != null) {
          q = q.withResetAt(resetAt);
        }
        g.dailyQuota = q;
      }
    }
    n = obj.fields.get("latency");
    p = join(path, "latency");
    if (n != null && object(n, p, LATENCY_KEYS)) {
      require(n, p, "min");
      require(n, p, "max");
      Duration min = duration(n, p, "min");
      Duration max = duration(n, p, "max");
      Long seed = integer(n, p, "seed", Long.MIN_VALUE, Long.MAX_VALUE, "an integer");
      if (min != null && max != null) {
        if (max.compareTo(min) < 0) {
          problem(
              n.fields.get("max").line,
              join(p, "max"),
              "expected a duration >= min ("
                  + Durations.format(min)
                  + "), got "
                  + got(n.fields.get("max")));
        } else {
          Latency l = Latency.between(min, max);
          g.latency = seed == null ? l : l.withSeed(seed);
        }
      }
    }
    return g;
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
    object(n, path, CORS_KEYS);
    Cors c = Cors.allowAll();
    Node origins = n.fields.get("allowOrigins");
    if (origins != null) {
      List<String> list = new ArrayList<>();
      if (!origins.isArray() || origins.items.isEmpty()) {
        problem(
            origins.line,
            join(path, "allowOrigins"),
            "expected a non-empty array of origins, got " + got(origins));
      } else {
        for (int i = 0; i < origins.items.size(); i++) {
          Node o = origins.items.get(i);
          if (!o.isString() || o.text.isEmpty()) {
            problem(
                o.line,
                join(path, "allowOrigins") + "[" + i + "]",
                "expected an origin like https://app.example or *, got " + got(o));
          } else {
            list.add(o.text);
          }
        }
        if (list.size() == origins.items.size()) {
          c = c.withAllowedOrigins(list);
        }
      }
    }
    List<String> methods = tokens(n, path, "allowMethods", "method tokens");
    if (methods != null) {
      c = c.withAllowedMethods(methods);
    }
    List<String> allowHeaders = tokens(n, path, "allowHeaders", "header names");
    if (allowHeaders != null) {
      c = c.withAllowedHeaders(allowHeaders);
    }
    List<String> expose = tokens(n, path, "exposeHeaders", "header names");
    if (expose != null) {
      c = c.withExposedHeaders(expose);
    }
    Duration maxAge = duration(n, path, "maxAge");
    if (maxAge != null) {
      c = c.withMaxAge(maxAge);
    }
    Boolean credentials = bool(n, path, "allowCredentials");
    if (credentials != null) {
      c = c.withAllowCredentials(credentials);
    }
    return c;
  }

  private void route(Scenario.Builder b, Node n, String path, Map<String, String> names) {
    if (!object(n, path, ROUTE_KEYS)) {
      return;
    }
    boolean hasPath = require(n, path, "path");
    boolean hasSteps = require(n, path, "steps");
    string(n, path, "description");
    PathPattern pattern = hasPath ? pathPattern(n, path) : null;
    Set<String> methods = methods(n, path);
    String name = name(n, path);
    List<Step> steps = hasSteps ? steps(n.fields.get("steps"), join(path, "steps"), false) : null;
    Boolean cycle = bool(n, path, "cycle");
    KeySpec sequencePer = keySpec(n, path, "sequencePer");
    Guards g = guards(n, path);
    if (pattern == null || steps == null || methods == null) {
      return;
    }
    Set<String> anyMethods = methods.contains("*") ? null : methods;
    if (name == null) {
      name = Scenario.defaultName(anyMethods, pattern);
    }
    if (!unique(n, path, name, names)) {
      return;
    }
    if (!problems.isEmpty()) {
      return;
    }
    Scenario.RouteBuilder r;
    if (anyMethods == null) {
      r = b.route(pattern.source());
    } else {
      List<String> ms = new ArrayList<>(anyMethods);
      r = b.route(ms.get(0), pattern.source());
      for (String m : ms.subList(1, ms.size())) {
        r = r.orMethod(m);
      }
    }
    r.named(name).steps(steps.toArray(new Step[0]));
    finish(r, cycle, sequencePer, g);
  }

  private void resource(Scenario.Builder b, Node n, String path, Map<String, String> names) {
    if (!object(n, path, RESOURCE_KEYS)) {
      return;
    }
    boolean hasPath = require(n, path, "path");
    string(n, path, "description");
    PathPattern pattern = hasPath ? pathPattern(n, path) : null;
    if (pattern != null
        && (pattern.source().contains("*")
            || pattern.source().contains("{")
            || pattern.source().endsWith("/"))) {
      Node p = n.fields.get("path");
      problem(
          p.line,
          join(path, "path"),
          "expected a literal path without a trailing / like /payments, got " + got(p));
      pattern = null;
    }
    String name = name(n, path);
    Node stepsNode = n.fields.get("steps");
    List<Step> steps =
        stepsNode == null ? List.of(Step.normal()) : steps(stepsNode, join(path, "steps"), true);
    Boolean cycle = bool(n, path, "cycle");
    KeySpec sequencePer = keySpec(n, path, "sequencePer");
    String idPrefix = string(n, path, "idPrefix");
    if (idPrefix != null && !idPrefix.matches("[A-Za-z0-9_-]*")) {
      Node p = n.fields.get("idPrefix");
      problem(p.line, join(path, "idPrefix"), "expected letters, digits, _ or -, got " + got(p));
      idPrefix = null;
    }
    String keyHeader = string(n, path, "keyHeader");
    if (keyHeader != null && !Http.isToken(keyHeader)) {
      Node p = n.fields.get("keyHeader");
      problem(p.line, join(path, "keyHeader"), "expected a header name, got " + got(p));
      keyHeader = null;
    }
    Boolean requireKey = bool(n, path, "requireKey");
    KeySpec scope = keySpec(n, path, "scope");
    Duration ttl = duration(n, path, "ttl");
    if (ttl != null && ttl.getSeconds() < 1) {
      Node p = n.fields.get("ttl");
      problem(p.line, join(path, "ttl"), "expected a duration >= 1s, got " + got(p));
    }
    Guards g = guards(n, path);
    if (pattern == null || steps == null) {
      return;
    }
    if (name == null) {
      name = pattern.source();
    }
    if (!unique(n, path, name, names) || !problems.isEmpty()) {
      return;
    }
    Scenario.ResourceBuilder r = b.resource(pattern.source()).named(name);
    r.steps(steps.toArray(new Step[0]));
    if (idPrefix != null) {
      r.withIdPrefix(idPrefix);
    }
    if (keyHeader != null) {
      r.withKeyHeader(keyHeader);
    }
    if (requireKey != null) {
      r.requireKey(requireKey);
    }
    if (scope != null) {
      r.withScope(scope.text);
    }
    if (ttl != null) {
      r.withTtl(ttl);
    }
    finish(r, cycle, sequencePer, g);
  }

  private static void finish(
      Scenario.EndpointBuilder<?> r, Boolean cycle, KeySpec sequencePer, Guards g) {
    if (Boolean.TRUE.equals(cycle)) {
      r.cycling();
    }
    if (sequencePer != null) {
      r.withSequencePer(sequencePer.text);
    }
    if (g.rateLimit != null) {
      r.withRateLimit(g.rateLimit);
    }
    if (g.concurrencyLimit != null) {
      r.withConcurrencyLimit(g.concurrencyLimit);
    }
    if (g.dailyQuota != null) {
      r.withDailyQuota(g.dailyQuota);
    }
    if (g.latency != null) {
      r.withLatency(g.latency);
    }
  }

  private boolean unique(Node n, String path, String name, Map<String, String> names) {
    String previous = names.putIfAbsent(name, path);
    if (previous != null) {
      problem(
          n.line,
          path,
          "duplicate endpoint "
              + Json.quote(name)
              + " (same as "
              + previous
              + "); give one a different \"name\"");
      return false;
    }
    return true;
  }

  private String name(Node n, String path) {
    String name = string(n, path, "name");
    if (name != null && name.isBlank()) {
      problem(
          n.fields.get("name").line,
          join(path, "name"),
          "expected a non-blank name, got " + got(n.fields.get("name")));
      return null;
    }
    return name;
  }

  private PathPattern pathPattern(Node n, String path) {
    Node p = n.fields.get("path");
    if (!p.isString()) {
      problem(p.line, join(path, "path"), PathPattern.EXPECTED + ", got " + got(p));
      return null;
    }
    try {
      return PathPattern.compile(p.text);
    } catch (IllegalArgumentException e) {
      problem(p.line, join(path, "path"), e.getMessage());
      return null;
    }
  }

  private static final String METHOD_EXPECTED =
      "expected an HTTP method token like GET or POST, or *";

  private Set<String> methods(Node n, String path) {
    Node m = n.fields.get("method");
    if (m == null) {
      return Set.of("*");
    }
    List<Node> items = m.isArray() ? m.items : List.of(m);
    Set<String> out = new LinkedHashSet<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      Node item = items.get(i);
      String p = m.isArray() ? join(path, "method") + "[" + i + "]" : join(path, "method");
      if (!item.isString() || !(item.text.equals("*") || Http.isToken(item.text))) {
        problem(item.line, p, METHOD_EXPECTED + ", got " + got(item));
        ok = false;
      } else {
        out.add(item.text.equals("*") ? "*" : Scenario.Builder.checkMethod(item.text));
      }
    }
    if (m.isArray() && m.items.isEmpty()) {
      problem(m.line, join(path, "method"), METHOD_EXPECTED + ", got an empty array");
      ok = false;
    }
    return ok ? out : null;
  }

  private List<Step> steps(Node n, String path, boolean inResource) {
    if (!n.isArray()) {
      problem(n.line, path, "expected an array of steps, got " + got(n));
      return null;
    }
    if (n.items.isEmpty()) {
      problem(n.line, path, "expected at least one step");
      return null;
    }
    List<Step> out = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < n.items.size(); i++) {
      Step s = step(n.items.get(i), path + "[" + i + "]", inResource);
      if (s == null) {
        ok = false;
      } else {
        out.add(s);
      }
    }
    return ok ? out : null;
  }

  private Step step(Node n, String path, boolean inResource) {
    if (!object(n, path, STEP_KEYS)) {
      return null;
    }
    int before = problems.size();
    Step s = Step.normal();
    Long status = integer(n, path, "status", 100, 599, "an integer 100..599");
    if (status != null) {
      s = s.withStatus(status.intValue());
    }
    Node headers = n.fields.get("headers");
    if (headers != null) {
      String hp = join(path, "headers");
      if (!headers.isObject()) {
        problem(
            headers.line, hp, "expected an object of header names to values, got " + got(headers));
      } else {
        for (Map.Entry<String, Node> h : headers.fields.entrySet()) {
          String name = h.getKey();
          String p = hp + "." + name;
          int keyLine = headers.keyLines.get(name);
          if (!Http.isToken(name)) {
            problem(keyLine, p, "expected a header name (an HTTP token), got " + Json.quote(name));
            continue;
          }
          List<Node> values = h.getValue().isArray() ? h.getValue().items : List.of(h.getValue());
          for (Node v : values) {
            boolean scalar = v.isString() || v.token == JsonToken.VALUE_NUMBER_INT;
            if (!scalar) {
              problem(v.line, p, "expected a string or an integer, got " + got(v));
              continue;
            }
            try {
              s = s.withHeader(name, v.text);
            } catch (IllegalArgumentException e) {
              String m = e.getMessage();
              String prefix = "header " + name + ": ";
              problem(v.line, p, m.startsWith(prefix) ? m.substring(prefix.length()) : m);
            }
          }
        }
      }
    }
    String body = string(n, path, "body");
    Node json = n.fields.get("json");
    if (body != null && json != null) {
      problem(json.line, join(path, "json"), "expected either \"body\" or \"json\", not both");
    } else if (body != null) {
      s = s.withBody(body);
    } else if (json != null) {
      s = s.withJsonBody(compact(json));
    }
    Duration delay = duration(n, path, "delay");
    if (delay != null) {
      s = s.withDelay(delay);
    }
    Node faultNode = n.fields.get("fault");
    if (faultNode != null) {
      Fault f = faultNode.isString() ? Fault.fromToken(faultNode.text) : null;
      if (f == null) {
        problem(
            faultNode.line,
            join(path, "fault"),
            "expected one of " + Fault.tokens() + ", got " + got(faultNode));
      } else {
        s = s.withFault(f);
      }
    }
    Long faultBytes = integer(n, path, "faultBytes", 0, Integer.MAX_VALUE, "an integer >= 0");
    if (faultBytes != null) {
      s = s.withFaultBytes(faultBytes.intValue());
    }
    Duration stallFor = duration(n, path, "stallFor");
    if (stallFor != null) {
      s = s.withStallFor(stallFor);
    }
    Long times = integer(n, path, "times", 1, 1_000_000, "an integer 1..1000000");
    if (times != null) {
      s = s.times(times.intValue());
    }
    Boolean create = bool(n, path, "create");
    if (Boolean.FALSE.equals(create)) {
      s = s.withoutCreating();
    }
    if (problems.size() > before) {
      return null;
    }
    String conflict = s.conflict(inResource);
    if (conflict != null) {
      problem(n.line, path, conflict);
      return null;
    }
    return s;
  }

  /** Writes a JSON tree back as compact JSON text (for a step's {@code json} body). */
  private static String compact(Node n) {
    StringWriter out = new StringWriter();
    try (com.fasterxml.jackson.core.JsonGenerator g = Json.FACTORY.createGenerator(out)) {
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
