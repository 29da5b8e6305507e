package dev.relent.cli.batch;

import dev.relent.cli.common.Json;
import dev.relent.cli.common.JsonTree;
import dev.relent.cli.common.LineReader;
import dev.relent.cli.common.RequestParser;
import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads the input of {@code relent batch}: JSON Lines, one request per line.
 *
 * <pre>{@code
 * {"id": "acct-1", "url": "https://api.example.com/v1/accounts/1"}
 * {"id": "pay-1", "method": "POST", "url": "https://api.example.com/v1/payments",
 *  "headers": {"Authorization": "Bearer …"}, "body": {"amount": 100, "currency": "EUR"}}
 * }</pre>
 *
 * <p>Keys: {@code id} (required; a string or an integer, unique in the file), {@code url}
 * (required, http or https with a host), {@code method} (default GET, or POST with a body), {@code
 * headers} (an object of name to string), {@code body} (a string is sent as its UTF-8 bytes; any
 * other JSON value is sent as compact JSON with {@code Content-Type: application/json} unless the
 * headers give one; {@code null} or absent: no body), {@code idempotency_key} (a key to use, or
 * {@code false} for none; by default every POST and PATCH gets a new one). Blank lines are skipped.
 * Anything else is a problem of that line, reported with its number; unknown keys too.
 *
 * <p>Problems never quote a header value or a body; URLs pass the {@link Redactor}.
 */
final class BatchInput {
  static final Set<String> KEYS =
      Set.of("id", "method", "url", "headers", "body", "idempotency_key");
  static final String KEY_LIST = "id, method, url, headers, body, idempotency_key";

  /**
   * The most characters one line of the input may have: a request with its headers and a body of a
   * few megabytes. A longer line is a bad line; it is read through, never held whole.
   */
  static final int MAX_LINE_CHARS = 4 * 1024 * 1024;

  /** How a request gets its idempotency key. */
  enum KeyMode {
    /** Writes (POST, PATCH, any non-idempotent method) get a new key, journaled before sending. */
    AUTO,
    /** The line gave a key (the {@code idempotency_key} field or an {@code Idempotency-Key}). */
    GIVEN,
    /** {@code "idempotency_key": false}: never a key; an unkeyed write is not re-sent. */
    NONE
  }

  /**
   * One request of the input.
   *
   * @param line the line number, from 1
   * @param id the caller's id
   * @param request the request, without idempotency key unless the line's headers had one
   * @param keyMode how it gets a key
   * @param givenKey the key the line gave, or null
   * @param print what its {@link #fingerprint()} is computed from, when asked for
   */
  record Request(
      int line,
      String id,
      HttpRequest request,
      KeyMode keyMode,
      String givenKey,
      Fingerprint print) {

    String method() {
      return request.method();
    }

    /** Whether this request is sent with a key (the key is then journaled before the send). */
    boolean keyed() {
      return keyMode == KeyMode.GIVEN
          || (keyMode == KeyMode.AUTO && !Idempotency.isIdempotent(request.method()));
    }

    /**
     * SHA-256 of method, URL and body, in hex: a journaled key is only reused for the same request.
     * Computed the first time it is asked for (only keyed requests and a resume's check need it).
     */
    String fingerprint() {
      return print.value();
    }
  }

  /**
   * What a request's fingerprint is made of; the SHA-256 is computed once, when first asked for.
   * Thread-safe.
   */
  static final class Fingerprint {
    private final String method;
    private final URI uri;
    private final byte[] body;
    private volatile String value;

    /**
     * @param method the method
     * @param uri the URL
     * @param body the body's bytes, or null; not copied (the request's publisher holds the same)
     */
    Fingerprint(String method, URI uri, byte[] body) {
      this.method = method;
      this.uri = uri;
      this.body = body;
    }

    String value() {
      String v = value;
      if (v == null) {
        v = fingerprint(method, uri, body);
        value = v;
      }
      return v;
    }
  }

  /**
   * A line that was not a request: its number and what was wrong, without secrets.
   *
   * @param repeated whether the line itself was fine but repeats an earlier line's id
   */
  record Problem(int line, String message, boolean repeated) {}

  /** The requests read and the problems found, in line order. */
  record Parsed(List<Request> requests, List<Problem> problems) {}

  private final Redactor redactor;
  private final String source;

  /** The time limit each request carries, or null for none. */
  private final Duration timeout;

  private BatchInput(String source, Redactor redactor) {
    this(source, redactor, null);
  }

  private BatchInput(String source, Redactor redactor, Duration timeout) {
    this.source = source;
    this.redactor = redactor;
    this.timeout = timeout;
  }

  /**
   * What a first pass over a file found, keeping nothing per request: how many requests and bad
   * lines there are, and which lines repeat an id (to be skipped when the requests are read).
   *
   * @param requests the requests, bad lines and repeated ids left out
   * @param problems the bad lines
   * @param repeated the numbers of lines whose id an earlier line used
   */
  record Scan(int requests, int problems, BitSet repeated) {}

  /**
   * Reads a file whole: for small inputs and tests. {@code relent batch} reads its input twice
   * instead, keeping nothing per request ({@link #scan}, then {@link #requests}).
   *
   * @throws IOException if it cannot be read, or is not UTF-8
   */
  static Parsed read(Path file, Redactor redactor) throws IOException {
    List<Request> requests = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    try (LineReader r = reader(file)) {
      new BatchInput(file.toString(), redactor).each(lines(r), requests::add, problems::add);
    }
    return new Parsed(List.copyOf(requests), List.copyOf(problems));
  }

  /** Parses lines; {@code source} names them in problems ({@code input.jsonl:7: ...}). */
  static Parsed parse(List<String> lines, String source, Redactor redactor) {
    List<Request> requests = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    try {
      java.util.Iterator<String> it = lines.iterator();
      new BatchInput(source, redactor)
          .each(() -> it.hasNext() ? it.next() : null, requests::add, problems::add);
    } catch (IOException e) {
      throw new IllegalStateException("lines in memory cannot fail", e);
    }
    return new Parsed(List.copyOf(requests), List.copyOf(problems));
  }

  /**
   * The first pass of {@code relent batch}: checks every line, reports each bad one as it is found,
   * and keeps only counts and the lines that repeat an id. Memory: a compact table of the ids seen
   * ({@link IdTable}, about 50 bytes an id), dropped when the pass ends.
   *
   * @throws IOException if the file cannot be read, or is not UTF-8
   */
  static Scan scan(Path file, Redactor redactor, Consumer<Problem> onProblem) throws IOException {
    int[] counts = new int[2];
    BitSet repeated = new BitSet();
    try (LineReader r = reader(file)) {
      new BatchInput(file.toString(), redactor)
          .each(
              lines(r),
              request -> counts[0]++,
              problem -> {
                counts[1]++;
                if (problem.repeated()) {
                  repeated.set(problem.line());
                }
                onProblem.accept(problem);
              });
    }
    return new Scan(counts[0], counts[1], repeated);
  }

  /**
   * The requests of a file, read one at a time as they are asked for: the second pass, after {@link
   * #scan} found the lines to skip. Close it when done.
   *
   * @throws IOException if the file cannot be opened
   */
  static Requests requests(Path file, Redactor redactor, Scan scan) throws IOException {
    return requests(file, redactor, scan, null);
  }

  /**
   * The requests of a file, as {@link #requests(Path, Redactor, Scan)}, each carrying {@code
   * timeout} as its time limit: the attempt timeout of the run that sends them, which the client
   * then sends each request with as it is (a request without a limit is copied for every attempt,
   * to carry the attempt's).
   *
   * @param timeout more than zero, or null for none
   * @throws IOException if the file cannot be opened
   */
  static Requests requests(Path file, Redactor redactor, Scan scan, Duration timeout)
      throws IOException {
    return new Requests(
        new BatchInput(file.toString(), redactor, timeout), reader(file), scan.repeated());
  }

  /** The requests of a file in line order, parsed as they are taken. Not thread-safe. */
  static final class Requests implements Closeable {
    private final BatchInput in;
    private final LineReader reader;
    private final BitSet repeated;
    private int number;

    private Requests(BatchInput in, LineReader reader, BitSet repeated) {
      this.in = in;
      this.reader = reader;
      this.repeated = repeated;
    }

    /**
     * Returns the next request, or null at the end.
     *
     * @throws IOException if the file cannot be read (or changed into something else than UTF-8)
     */
    Request next() throws IOException {
      Line line;
      while ((line = nextLine()) != null) {
        Request r = line.request();
        if (r != null) {
          return r;
        }
      }
      return null;
    }

    /**
     * Returns the next line that may be a request, not parsed yet, or null at the end: blank lines
     * and lines that repeat an id are left out. Reading is all it does, so that callers taking
     * lines in turn under a lock parse them after it, each on its own thread.
     *
     * @throws IOException if the file cannot be read (or changed into something else than UTF-8)
     */
    Line nextLine() throws IOException {
      String text;
      while ((text = readLine(reader, number)) != null) {
        number++;
        if (number == 1 && text.startsWith("\uFEFF")) {
          text = text.substring(1);
        }
        if (text == LineReader.TOO_LONG || text.isBlank() || repeated.get(number)) {
          continue; // a line too long was reported by the first pass
        }
        return new Line(in, number, text);
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }
  }

  /** A line of the input read but not parsed yet ({@link Requests#nextLine}). */
  record Line(BatchInput in, int number, String text) {

    /**
     * Parses the line; thread-safe.
     *
     * @return its request, or null for a bad line (the first pass reported it)
     */
    Request request() {
      try {
        return in.request(number, text);
      } catch (Bad e) {
        return null;
      }
    }
  }

  /** The next line of a source, or null at its end. */
  private interface Lines {
    String next() throws IOException;
  }

  private static Lines lines(LineReader r) {
    int[] number = {0};
    return () -> readLine(r, number[0]++);
  }

  private static String readLine(LineReader r, int before) throws IOException {
    try {
      return r.readLine();
    } catch (CharacterCodingException e) {
      throw new IOException("not UTF-8 text (line " + (before + 1) + ")", e);
    }
  }

  private static LineReader reader(Path file) throws IOException {
    return new LineReader(
        new java.io.InputStreamReader(
            Files.newInputStream(file),
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)),
        MAX_LINE_CHARS,
        64 * 1024);
  }

  /** Reads every line: each request and each problem in line order; ids must be unique. */
  private void each(Lines lines, Consumer<Request> onRequest, Consumer<Problem> onProblem)
      throws IOException {
    IdTable seen = new IdTable();
    String text;
    int number = 0;
    while ((text = lines.next()) != null) {
      number++;
      if (number == 1 && text.startsWith("\uFEFF")) {
        text = text.substring(1);
      }
      if (text == LineReader.TOO_LONG) {
        onProblem.accept(new Problem(number, tooLong(number), false));
        continue;
      }
      if (text.isBlank()) {
        continue;
      }
      try {
        Request r = request(number, text);
        long first = seen.putIfAbsent(r.id(), number, -1);
        if (first >= 0) {
          onProblem.accept(
              new Problem(
                  number,
                  problem(
                          number,
                          "id: "
                              + Json.quote(r.id())
                              + " is used twice (first on line "
                              + first
                              + ")")
                      .getMessage(),
                  true));
          continue;
        }
        onRequest.accept(r);
      } catch (Bad e) {
        onProblem.accept(new Problem(number, e.getMessage(), false));
      }
    }
  }

  private String tooLong(int line) {
    return source
        + ":"
        + line
        + ": longer than "
        + MAX_LINE_CHARS
        + " characters ("
        + MAX_LINE_CHARS / (1024 * 1024)
        + " MiB), the most one request's line may have; the input is JSON Lines, one request per"
        + " line (a JSON array must be split into lines first, e.g. with jq -c '.[]')";
  }

  /** A problem of one line, thrown while reading it. */
  private static final class Bad extends Exception {
    private static final long serialVersionUID = 1L;

    Bad(String message) {
      super(message, null, false, false);
    }
  }

  private Bad problem(int line, String what) {
    return new Bad(source + ":" + line + ": " + what);
  }

  private Request request(int line, String text) throws Bad {
    Object parsed;
    try {
      parsed = JsonTree.parse(text);
    } catch (JsonTree.NotJson e) {
      throw problem(line, e.getMessage());
    }
    if (!(parsed instanceof Map)) {
      throw problem(line, "expected a JSON object, got " + JsonTree.typeOf(parsed));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> o = (Map<String, Object>) parsed;
    for (String k : o.keySet()) {
      if (!KEYS.contains(k)) {
        throw problem(line, "unknown key " + Json.quote(k) + ", expected one of: " + KEY_LIST);
      }
    }

    String id = id(line, o.get("id"), o.containsKey("id"));
    URI uri = uri(line, o.get("url"), o.containsKey("url"));

    byte[] body = null;
    boolean jsonBody = false;
    Object b = o.get("body");
    if (b instanceof String) {
      body = ((String) b).getBytes(StandardCharsets.UTF_8);
    } else if (b != null) {
      body = JsonTree.write(b).getBytes(StandardCharsets.UTF_8);
      jsonBody = true;
    }

    String method;
    Object m = o.get("method");
    if (m == null) {
      method = RequestParser.defaultMethod(body != null);
    } else if (!(m instanceof String) || !RequestParser.isToken((String) m)) {
      throw problem(
          line,
          "method: expected an HTTP method such as GET, POST, PUT, PATCH, DELETE, got "
              + (m instanceof String ? Json.quote((String) m) : JsonTree.typeOf(m)));
    } else {
      method = ((String) m).toUpperCase(Locale.ROOT);
    }

    RequestParser request;
    try {
      request = new RequestParser(uri, method, body, redactor);
    } catch (RequestParser.Invalid e) {
      throw problem(line, "method: the HTTP client cannot send " + method);
    }
    Object h = o.get("headers");
    if (h != null) {
      if (!(h instanceof Map)) {
        throw problem(
            line, "headers: expected an object of name to string, got " + JsonTree.typeOf(h));
      }
      for (Map.Entry<?, ?> e : ((Map<?, ?>) h).entrySet()) {
        header(line, request, String.valueOf(e.getKey()), e.getValue());
      }
    }
    if (jsonBody) {
      request.headerUnlessGiven("Content-Type", "application/json");
    }

    KeyMode mode = KeyMode.AUTO;
    String headerKey = request.headerKey();
    String key = headerKey;
    if (o.containsKey("idempotency_key")) {
      Object k = o.get("idempotency_key");
      if (Boolean.FALSE.equals(k)) {
        if (headerKey != null) {
          throw problem(
              line,
              "idempotency_key: false, but headers give an "
                  + Idempotency.HEADER
                  + "; leave one out");
        }
        mode = KeyMode.NONE;
      } else if (k instanceof String) {
        if (headerKey != null) {
          throw problem(
              line,
              "idempotency_key and headers."
                  + Idempotency.HEADER
                  + " both give a key; give it once");
        }
        try {
          key = Idempotency.requireValidKey((String) k);
        } catch (IllegalArgumentException ex) {
          throw problem(line, "idempotency_key: " + ex.getMessage());
        }
      } else {
        throw problem(
            line,
            "idempotency_key: expected a key (1 to 255 visible ASCII characters) or false, got "
                + JsonTree.typeOf(k));
      }
    }
    if (key != null) {
      mode = KeyMode.GIVEN;
    }
    try {
      if (timeout != null) {
        request.timeout(timeout);
      }
      return new Request(line, id, request.build(), mode, key, new Fingerprint(method, uri, body));
    } catch (RequestParser.Invalid e) {
      throw problem(line, e.getMessage());
    }
  }

  /** One entry of {@code headers}; a value is never echoed: it may be a credential. */
  private void header(int line, RequestParser request, String name, Object value) throws Bad {
    String where = "headers." + name;
    // The name is checked before the value's type, so that its problem is the one reported.
    if (!RequestParser.isToken(name)) {
      throw problem(line, "headers: " + Json.quote(name) + " is not a header name");
    }
    if (!(value instanceof String)) {
      throw problem(line, where + ": expected a string, got " + JsonTree.typeOf(value));
    }
    try {
      request.header(name, ((String) value).trim());
    } catch (RequestParser.Invalid e) {
      throw problem(line, where + ": " + e.getMessage());
    }
  }

  private String id(int line, Object id, boolean present) throws Bad {
    if (!present) {
      throw problem(line, "missing required key \"id\"");
    }
    String text;
    if (id instanceof String) {
      text = (String) id;
    } else if (id instanceof Long) {
      text = id.toString();
    } else {
      throw problem(line, "id: expected a string or an integer, got " + JsonTree.typeOf(id));
    }
    if (text.isEmpty() || text.length() > 200) {
      throw problem(line, "id: expected 1 to 200 characters, got " + text.length());
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.isISOControl(text.charAt(i))) {
        throw problem(line, "id: control character at index " + i);
      }
    }
    return text;
  }

  private URI uri(int line, Object url, boolean present) throws Bad {
    if (!present) {
      throw problem(line, "missing required key \"url\"");
    }
    if (!(url instanceof String)) {
      throw problem(line, "url: expected a string, got " + JsonTree.typeOf(url));
    }
    try {
      return RequestParser.uri((String) url, redactor);
    } catch (RequestParser.Invalid e) {
      throw problem(line, "url: " + e.getMessage());
    }
  }

  private static String fingerprint(String method, URI uri, byte[] body) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(method.getBytes(StandardCharsets.UTF_8));
      d.update((byte) '\n');
      d.update(uri.toString().getBytes(StandardCharsets.UTF_8));
      d.update((byte) '\n');
      if (body != null) {
        d.update(body);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
