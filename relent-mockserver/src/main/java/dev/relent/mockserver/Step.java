package dev.relent.mockserver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One scripted answer of a route: a status with headers and a body, optionally after a delay, or a
 * {@link InjectedFault}. A route answers its steps in order and repeats the last one.
 *
 * <p>Defaults: status 200, no extra headers, empty body, no delay, no fault, used once ({@link
 * #times(int)} 1). A {@link InjectedFault#STALL stall} or {@link InjectedFault#TRUNCATE truncate}
 * step without a body sends 1024 bytes of {@code x}, and cuts it after half of the body unless
 * {@link #withFaultBytes(int)} says otherwise. Header values may hold date templates such as {@code
 * {{http-date:+5s}}} (see {@code docs/mockserver.md}); the body is sent as written.
 *
 * <p>Immutable and thread-safe: every {@code withX} method returns a new step.
 */
public final class Step {

  static final int DEFAULT_FAULT_BODY_BYTES = 1024;
  static final IntRange STATUS = new IntRange("status", 100, 599);
  static final IntRange FAULT_BYTES = IntRange.atLeast("faultBytes", 0);
  static final IntRange TIMES = new IntRange("times", 1, 1_000_000);

  private final int status;
  private final List<Map.Entry<String, Template>> headers;
  private final String body;
  private final boolean json;
  private final Duration delay;
  private final InjectedFault fault;
  private final int faultBytes;
  private final Duration stallFor;
  private final int times;
  private final boolean create;
  private final boolean statusSet;

  private Step(
      int status,
      List<Map.Entry<String, Template>> headers,
      String body,
      boolean json,
      Duration delay,
      InjectedFault fault,
      int faultBytes,
      Duration stallFor,
      int times,
      boolean create,
      boolean statusSet) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.json = json;
    this.delay = delay;
    this.fault = fault;
    this.faultBytes = faultBytes;
    this.stallFor = stallFor;
    this.times = times;
    this.create = create;
    this.statusSet = statusSet;
  }

  private static final Step DEFAULT =
      new Step(200, List.of(), null, false, Duration.ZERO, null, -1, null, 1, true, false);

  /**
   * Returns a step that answers normally: 200 with an empty body on a route; on a resource
   * endpoint, the created (or replayed) resource. Use it as the last step after faults.
   *
   * @return the default step
   */
  public static Step normal() {
    return DEFAULT;
  }

  /**
   * Returns a step that answers {@code status} with an empty body.
   *
   * @param status the HTTP status, 100..599
   * @return a new step
   * @throws IllegalArgumentException if {@code status} is outside 100..599
   */
  public static Step status(int status) {
    return DEFAULT.withStatus(status);
  }

  /**
   * Returns a step that answers 200 with {@code body} as {@code text/plain; charset=utf-8}.
   *
   * @param body the response body
   * @return a new step
   * @throws NullPointerException if {@code body} is null
   */
  public static Step ok(String body) {
    return DEFAULT.withBody(body);
  }

  /**
   * Returns a step that injects {@code fault}.
   *
   * @param fault the fault
   * @return a new step
   * @throws NullPointerException if {@code fault} is null
   */
  public static Step fault(InjectedFault fault) {
    return DEFAULT.withFault(fault);
  }

  /**
   * Returns a copy that answers {@code status}.
   *
   * @param status the HTTP status, 100..599
   * @return a new step
   * @throws IllegalArgumentException if {@code status} is outside 100..599
   */
  public Step withStatus(int status) {
    STATUS.check(status);
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, create, true);
  }

  /**
   * Returns a copy that also sends the header {@code name: value}; a name may repeat. {@code value}
   * may hold templates such as {@code {{http-date:+5s}}} or {@code {{seconds:30}}}.
   *
   * @param name the header name, an HTTP token
   * @param value the value or value template
   * @return a new step
   * @throws NullPointerException if {@code name} or {@code value} is null
   * @throws IllegalArgumentException if {@code name} is not a token, {@code value} holds a line
   *     break, or a template in it is unknown or malformed
   */
  public Step withHeader(String name, String value) {
    Objects.requireNonNull(name, "name cannot be null");
    Objects.requireNonNull(value, "value cannot be null");
    if (!Http.isToken(name)) {
      throw new IllegalArgumentException(
          "header name must be an HTTP token: " + JsonText.quote(name));
    }
    if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
      throw new IllegalArgumentException(
          "header " + name + " must not contain a line break: " + JsonText.quote(value));
    }
    Template template;
    try {
      template = Template.compile(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("header " + name + ": " + e.getMessage(), e);
    }
    List<Map.Entry<String, Template>> copy = new ArrayList<>(headers);
    copy.add(Map.entry(name, template));
    return new Step(
        status,
        Collections.unmodifiableList(copy),
        body,
        json,
        delay,
        fault,
        faultBytes,
        stallFor,
        times,
        create,
        statusSet);
  }

  /**
   * Returns a copy with {@code body}, sent as UTF-8 with {@code Content-Type: text/plain;
   * charset=utf-8} unless a {@code Content-Type} header is set.
   *
   * @param body the response body
   * @return a new step
   * @throws NullPointerException if {@code body} is null
   */
  public Step withBody(String body) {
    Objects.requireNonNull(body, "body cannot be null");
    return new Step(
        status, headers, body, false, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy with the JSON text {@code json} as body, sent with {@code Content-Type:
   * application/json} unless a {@code Content-Type} header is set. The text is not checked.
   *
   * @param json the JSON body
   * @return a new step
   * @throws NullPointerException if {@code json} is null
   */
  public Step withJsonBody(String json) {
    Objects.requireNonNull(json, "json cannot be null");
    return new Step(
        status, headers, json, true, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy that waits {@code delay} before sending anything (the request is read first).
   *
   * @param delay the wait before the status line, or before the fault
   * @return a new step
   * @throws NullPointerException if {@code delay} is null
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public Step withDelay(Duration delay) {
    Durations.nonNegative("delay", delay);
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy that injects {@code fault}.
   *
   * @param fault the fault
   * @return a new step
   * @throws NullPointerException if {@code fault} is null
   */
  public Step withFault(InjectedFault fault) {
    Objects.requireNonNull(fault, "fault cannot be null");
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy that sends {@code bytes} bytes of the body before a {@link InjectedFault#STALL
   * stall} or {@link InjectedFault#TRUNCATE truncate} (default: half of the body, rounded down).
   *
   * @param bytes the body bytes sent before the fault, 0 or more and less than the body length
   * @return a new step
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public Step withFaultBytes(int bytes) {
    FAULT_BYTES.check(bytes);
    return new Step(
        status, headers, body, json, delay, fault, bytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy whose {@link InjectedFault#STALL stall} lasts {@code stallFor}, after which the
   * rest of the body is sent (default: the stall lasts until the connection is closed).
   *
   * @param stallFor how long the body stalls
   * @return a new step
   * @throws NullPointerException if {@code stallFor} is null
   * @throws IllegalArgumentException if {@code stallFor} is negative
   */
  public Step withStallFor(Duration stallFor) {
    Durations.nonNegative("stallFor", stallFor);
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy that is used {@code times} times in a row (the file's {@code "times"}).
   *
   * @param times how many consecutive requests this step answers, 1 to 1 000 000
   * @return a new step
   * @throws IllegalArgumentException if {@code times} is outside 1..1 000 000
   */
  public Step times(int times) {
    TIMES.check(times);
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, create, statusSet);
  }

  /**
   * Returns a copy, for a resource endpoint only, that answers without creating the resource: the
   * fault or status happens <em>before</em> the creation instead of after it.
   *
   * @return a new step
   */
  public Step withoutCreating() {
    return new Step(
        status, headers, body, json, delay, fault, faultBytes, stallFor, times, false, statusSet);
  }

  /**
   * Returns the status this step answers when it is not a fault.
   *
   * @return the HTTP status
   */
  public int status() {
    return status;
  }

  /**
   * Returns the fault this step injects, or null for a normal response.
   *
   * @return the fault or null
   */
  public InjectedFault fault() {
    return fault;
  }

  /**
   * Returns the headers as written, templates unrendered, in order.
   *
   * @return an unmodifiable map from name to values
   */
  public Map<String, List<String>> headers() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, Template> h : headers) {
      out.computeIfAbsent(h.getKey(), k -> new ArrayList<>()).add(h.getValue().source());
    }
    out.replaceAll((k, v) -> List.copyOf(v));
    return Collections.unmodifiableMap(out);
  }

  /**
   * Returns the body, or null if none was set.
   *
   * @return the body or null
   */
  public String body() {
    return body;
  }

  /**
   * Returns the wait before anything is sent.
   *
   * @return the delay, zero by default
   */
  public Duration delay() {
    return delay;
  }

  /**
   * Returns how many consecutive requests this step answers.
   *
   * @return 1 or more
   */
  public int times() {
    return times;
  }

  List<Map.Entry<String, Template>> headerTemplates() {
    return headers;
  }

  boolean jsonBody() {
    return json;
  }

  int faultBytes() {
    return faultBytes;
  }

  Duration stallFor() {
    return stallFor;
  }

  boolean creates() {
    return create;
  }

  /** Whether the status was set; a resource step without one answers as the resource would. */
  boolean statusSet() {
    return statusSet;
  }

  /** The bytes sent as body: the set body, or the filler of a stall or truncate without one. */
  byte[] bodyBytes() {
    if (body != null) {
      return body.getBytes(StandardCharsets.UTF_8);
    }
    if (fault == InjectedFault.STALL || fault == InjectedFault.TRUNCATE) {
      byte[] filler = new byte[DEFAULT_FAULT_BODY_BYTES];
      java.util.Arrays.fill(filler, (byte) 'x');
      return filler;
    }
    return new byte[0];
  }

  /**
   * Checks the combinations a single setter cannot see.
   *
   * @return null if consistent, else what is wrong
   */
  String conflict(boolean inResource) {
    if (faultBytes >= 0 && fault != InjectedFault.STALL && fault != InjectedFault.TRUNCATE) {
      return "faultBytes needs fault stall or truncate, but fault is "
          + (fault == null ? "not set" : fault.token());
    }
    if (stallFor != null && fault != InjectedFault.STALL) {
      return "stallFor needs fault stall, but fault is "
          + (fault == null ? "not set" : fault.token());
    }
    if (faultBytes >= 0 && faultBytes >= bodyBytes().length) {
      return "faultBytes must be less than the body's "
          + bodyBytes().length
          + " bytes: "
          + faultBytes;
    }
    if (!create && !inResource) {
      return "create: false is only allowed in the steps of a resource";
    }
    return null;
  }
}
