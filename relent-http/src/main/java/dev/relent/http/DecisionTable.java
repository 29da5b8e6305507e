package dev.relent.http;

import dev.relent.Verdict;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Which HTTP outcomes are retried, as data: a rule per status code, a fallback rule per status
 * class (1xx to 5xx), and a rule per network {@link Fault}. Pure functions over (method, keyed,
 * status, headers) or (method, keyed, fault), so that every client adapter shares one table.
 *
 * <p>Defaults ({@link #ofDefaults()}):
 *
 * <table>
 *   <caption>Default rows</caption>
 *   <tr><th>outcome</th><th>rule</th><th>rule name</th></tr>
 *   <tr><td>1xx, 2xx, 3xx</td><td>SUCCESS</td><td>{@code http-2xx} …</td></tr>
 *   <tr><td>408, 429, 500, 502, 503, 504</td><td>RETRY</td><td>{@code http-503} …</td></tr>
 *   <tr><td>413</td><td>RETRY_WITH_RETRY_AFTER</td><td>{@code http-413}, {@code
 *       http-413-retry-after}</td></tr>
 *   <tr><td>400, 401, 403, 404, 405, 409, 410, 422, other 4xx</td><td>NEVER</td><td>{@code
 *       http-404} …, {@code http-4xx}</td></tr>
 *   <tr><td>other 5xx (501, 505, …)</td><td>NEVER</td><td>{@code http-5xx}</td></tr>
 *   <tr><td>connection refused, connect timeout</td><td>RETRY_ANY_METHOD</td><td>{@code
 *       io-connect-refused}, {@code io-connect-timeout}</td></tr>
 *   <tr><td>reset, closed, read timeout, truncated, other I/O</td><td>RETRY</td><td>{@code
 *       io-reset} …</td></tr>
 *   <tr><td>unknown host, TLS handshake</td><td>NEVER</td><td>{@code io-unknown-host}, {@code
 *       io-tls}</td></tr>
 * </table>
 *
 * <p>{@link Rule#RETRY} retries an idempotent or keyed request only: a POST or PATCH without an
 * {@code Idempotency-Key} is never re-sent after it may have reached the server, and the decision
 * is a {@linkplain Verdict#reject rejection} named after the row with {@code -unkeyed-write}
 * ({@code http-503-unkeyed-write}): the call fails, whether the server answered or the connection
 * broke, and the adapters throw a {@link NotRetriedWriteException}. This holds for 503 and 429 too,
 * although by their semantics the server did not process the request: the response may come from a
 * proxy that did pass the request on, and a write is retried a write only with a key. A caller who
 * trusts a server's 503 can say so with {@code with(503, Rule.RETRY_ANY_METHOD)}.
 *
 * <p>Override a row per client or per request; a table is immutable and {@code with} returns a new
 * one: {@code DecisionTable.ofDefaults().with(503, Rule.NEVER).with(Fault.UNKNOWN_HOST,
 * Rule.RETRY_ANY_METHOD)}. Thread-safe; deciding allocates nothing.
 */
public final class DecisionTable {

  /** What a row of the table says. */
  public enum Rule {
    /** The response is the answer: return it. */
    SUCCESS,
    /**
     * Transient: retry when the request is idempotent or carries an {@code Idempotency-Key};
     * otherwise do not re-send it (the request may have reached the server).
     */
    RETRY,
    /**
     * Retry whatever the method: for outcomes where the request cannot have been processed, such as
     * a refused connection.
     */
    RETRY_ANY_METHOD,
    /**
     * As {@link #RETRY} when the response carries a valid {@code Retry-After}; otherwise as {@link
     * #NEVER} (the default for 413).
     */
    RETRY_WITH_RETRY_AFTER,
    /** Not retried: fail fast, trying again cannot help. */
    NEVER
  }

  private static final int MIN_STATUS = 100;
  private static final int MAX_STATUS = 599;

  private static final Decision NOT_NETWORK =
      new Decision(
          Verdict.abort("not-a-network-fault"),
          null,
          false,
          "not a network fault: the failure is passed on as it is");

  private static final DecisionTable DEFAULTS = defaultTable();

  private final Map<Integer, Rule> statusRules;
  private final Rule[] classRules;
  private final Map<Fault, Rule> faultRules;

  /** [status - 100][variant]; variant = (unkeyed write ? 2 : 0) + (has Retry-After ? 1 : 0). */
  private final Decision[][] byStatus;

  /** [fault.ordinal()][unkeyed write ? 1 : 0]. */
  private final Decision[][] byFault;

  private final Decision[] invalidStatus;

  private DecisionTable(
      Map<Integer, Rule> statusRules, Rule[] classRules, Map<Fault, Rule> faults) {
    this.statusRules = Collections.unmodifiableMap(new TreeMap<>(statusRules));
    this.classRules = classRules.clone();
    this.faultRules = Collections.unmodifiableMap(new EnumMap<>(faults));
    this.byStatus = new Decision[MAX_STATUS - MIN_STATUS + 1][];
    Map<String, Decision[]> shared = new HashMap<>();
    for (int status = MIN_STATUS; status <= MAX_STATUS; status++) {
      Rule explicit = this.statusRules.get(status);
      String name = explicit != null ? "http-" + status : "http-" + status / 100 + "xx";
      Rule rule = explicit != null ? explicit : this.classRules[status / 100];
      boolean serverSide = status >= 500;
      byStatus[status - MIN_STATUS] =
          shared.computeIfAbsent(name, n -> statusVariants(n, rule, serverSide));
    }
    this.byFault = new Decision[Fault.values().length][];
    for (Fault fault : Fault.values()) {
      byFault[fault.ordinal()] = faultVariants(fault, this.faultRules.get(fault));
    }
    Decision invalid =
        new Decision(
            Verdict.abortFailure("http-invalid-status"),
            Rule.NEVER,
            false,
            "the status code is outside 100-599");
    this.invalidStatus = new Decision[] {invalid, invalid, invalid, invalid};
  }

  private static Decision[] statusVariants(String name, Rule rule, boolean serverSide) {
    Decision never =
        new Decision(
            serverSide ? Verdict.abortFailure(name) : Verdict.abort(name),
            rule,
            false,
            serverSide
                ? "not retried: this server error is not transient"
                : "not retried: the request itself is wrong");
    switch (rule) {
      case SUCCESS:
        {
          Decision d =
              new Decision(Verdict.success(name), rule, false, "the response is the answer");
          return new Decision[] {d, d, d, d};
        }
      case NEVER:
        return new Decision[] {never, never, never, never};
      case RETRY_ANY_METHOD:
        {
          Decision d =
              new Decision(
                  Verdict.retry(name), rule, false, "transient; retried whatever the method");
          return new Decision[] {d, d, d, d};
        }
      case RETRY:
        {
          Decision safe = safeRetry(name, rule);
          Decision unkeyed = unkeyedWrite(name, rule);
          return new Decision[] {safe, safe, unkeyed, unkeyed};
        }
      default: // RETRY_WITH_RETRY_AFTER
        {
          Decision withoutHint =
              new Decision(
                  serverSide ? Verdict.abortFailure(name) : Verdict.abort(name),
                  rule,
                  false,
                  "not retried: no Retry-After says when the request would be accepted");
          String hinted = name + "-retry-after";
          return new Decision[] {
            withoutHint, safeRetry(hinted, rule), withoutHint, unkeyedWrite(hinted, rule)
          };
        }
    }
  }

  private static Decision[] faultVariants(Fault fault, Rule rule) {
    String name = fault.rule();
    switch (rule) {
      case SUCCESS:
      case NEVER:
        {
          // A failed exchange is never an answer: SUCCESS on a fault is read as NEVER.
          Decision d =
              new Decision(
                  Verdict.abortFailure(name),
                  rule,
                  false,
                  "not retried: " + fault.description() + " will not pass by trying again");
          return new Decision[] {d, d};
        }
      case RETRY_ANY_METHOD:
        {
          Decision d =
              new Decision(
                  Verdict.retry(name),
                  rule,
                  false,
                  fault.sentNothing()
                      ? "nothing was sent, so any method may be sent again"
                      : "retried whatever the method");
          return new Decision[] {d, d};
        }
      default: // RETRY, RETRY_WITH_RETRY_AFTER (a fault has no Retry-After: as RETRY)
        return new Decision[] {safeRetry(name, rule), unkeyedWrite(name, rule)};
    }
  }

  private static Decision safeRetry(String name, Rule rule) {
    return new Decision(
        Verdict.retry(name), rule, false, "transient; the request is idempotent or keyed");
  }

  private static Decision unkeyedWrite(String name, Rule rule) {
    return new Decision(
        Verdict.reject(name + "-unkeyed-write"),
        rule,
        true,
        "not re-sent: the request may have reached the server and a non-idempotent request"
            + " without Idempotency-Key could take effect twice");
  }

  private static DecisionTable defaultTable() {
    Map<Integer, Rule> rows = new TreeMap<>();
    for (int status : new int[] {400, 401, 403, 404, 405, 409, 410, 422}) {
      rows.put(status, Rule.NEVER);
    }
    for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
      rows.put(status, Rule.RETRY);
    }
    rows.put(413, Rule.RETRY_WITH_RETRY_AFTER);
    Rule[] classes = {Rule.NEVER, Rule.SUCCESS, Rule.SUCCESS, Rule.SUCCESS, Rule.NEVER, Rule.NEVER};
    Map<Fault, Rule> faults = new EnumMap<>(Fault.class);
    for (Fault fault : Fault.values()) {
      faults.put(fault, Rule.RETRY);
    }
    faults.put(Fault.CONNECT_REFUSED, Rule.RETRY_ANY_METHOD);
    faults.put(Fault.CONNECT_TIMEOUT, Rule.RETRY_ANY_METHOD);
    faults.put(Fault.UNKNOWN_HOST, Rule.NEVER);
    faults.put(Fault.TLS, Rule.NEVER);
    return new DecisionTable(rows, classes, faults);
  }

  /**
   * Returns the default table (see the class description).
   *
   * @return the shared default table
   */
  public static DecisionTable ofDefaults() {
    return DEFAULTS;
  }

  /**
   * Returns a table with one status row set; its rule name becomes {@code http-<status>}.
   *
   * @param status 100 to 599
   * @param rule the rule
   * @return a new table
   * @throws NullPointerException if {@code rule} is null
   * @throws IllegalArgumentException if {@code status} is outside 100-599
   */
  public DecisionTable with(int status, Rule rule) {
    Objects.requireNonNull(rule, "rule cannot be null");
    if (status < MIN_STATUS || status > MAX_STATUS) {
      throw new IllegalArgumentException("status must be 100 to 599: " + status);
    }
    Map<Integer, Rule> rows = new TreeMap<>(statusRules);
    rows.put(status, rule);
    return new DecisionTable(rows, classRules, faultRules);
  }

  /**
   * Returns a table with the fallback rule of a status class set: the rule for every status of that
   * class without a row of its own, named {@code http-<n>xx}.
   *
   * @param statusClass 1 to 5 (5 for 5xx)
   * @param rule the rule
   * @return a new table
   * @throws NullPointerException if {@code rule} is null
   * @throws IllegalArgumentException if {@code statusClass} is outside 1-5
   */
  public DecisionTable withStatusClass(int statusClass, Rule rule) {
    Objects.requireNonNull(rule, "rule cannot be null");
    if (statusClass < 1 || statusClass > 5) {
      throw new IllegalArgumentException("statusClass must be 1 to 5: " + statusClass);
    }
    Rule[] classes = classRules.clone();
    classes[statusClass] = rule;
    return new DecisionTable(statusRules, classes, faultRules);
  }

  /**
   * Returns a table with one fault row set. {@link Rule#SUCCESS} on a fault is read as {@link
   * Rule#NEVER}; {@link Rule#RETRY_WITH_RETRY_AFTER} as {@link Rule#RETRY}.
   *
   * @param fault the fault
   * @param rule the rule
   * @return a new table
   * @throws NullPointerException if an argument is null
   */
  public DecisionTable with(Fault fault, Rule rule) {
    Objects.requireNonNull(fault, "fault cannot be null");
    Objects.requireNonNull(rule, "rule cannot be null");
    Map<Fault, Rule> faults = new EnumMap<>(faultRules);
    faults.put(fault, rule);
    return new DecisionTable(statusRules, classRules, faults);
  }

  /**
   * Returns the table for a request whose body can be sent only once (a one-shot OkHttp body, a
   * non-repeatable Apache entity): every row that would send it again after any of it may have gone
   * out becomes {@link Rule#NEVER}, so its first answer or fault is final; connect-phase faults
   * ({@link Fault#sentNothing()}) keep their rule, since nothing of the body was read.
   *
   * @return a table that never re-sends a body; this table when it already does not
   */
  public DecisionTable withoutResends() {
    Map<Integer, Rule> rows = new TreeMap<>(statusRules);
    rows.replaceAll((status, rule) -> resends(rule) ? Rule.NEVER : rule);
    Rule[] classes = classRules.clone();
    for (int c = 0; c < classes.length; c++) {
      classes[c] = resends(classes[c]) ? Rule.NEVER : classes[c];
    }
    Map<Fault, Rule> faults = new EnumMap<>(faultRules);
    faults.replaceAll((fault, rule) -> resends(rule) && !fault.sentNothing() ? Rule.NEVER : rule);
    if (rows.equals(statusRules)
        && Arrays.equals(classes, classRules)
        && faults.equals(faultRules)) {
      return this;
    }
    return new DecisionTable(rows, classes, faults);
  }

  private static boolean resends(Rule rule) {
    return rule != Rule.SUCCESS && rule != Rule.NEVER;
  }

  /**
   * Returns the rule that applies to a status: its own row, or its class's fallback.
   *
   * @param status 100 to 599
   * @return the rule
   * @throws IllegalArgumentException if {@code status} is outside 100-599
   */
  public Rule rule(int status) {
    if (status < MIN_STATUS || status > MAX_STATUS) {
      throw new IllegalArgumentException("status must be 100 to 599: " + status);
    }
    Rule explicit = statusRules.get(status);
    return explicit != null ? explicit : classRules[status / 100];
  }

  /**
   * Returns the rule for a fault.
   *
   * @param fault the fault
   * @return the rule
   * @throws NullPointerException if {@code fault} is null
   */
  public Rule rule(Fault fault) {
    return faultRules.get(Objects.requireNonNull(fault, "fault cannot be null"));
  }

  /**
   * Returns every row by rule name, in a stable order: status rows, class fallbacks ({@code
   * http-4xx}), then faults. For reports and the CLI.
   *
   * @return an unmodifiable ordered map
   */
  public Map<String, Rule> rows() {
    Map<String, Rule> rows = new LinkedHashMap<>();
    statusRules.forEach((status, rule) -> rows.put("http-" + status, rule));
    for (int c = 1; c <= 5; c++) {
      rows.put("http-" + c + "xx", classRules[c]);
    }
    faultRules.forEach((fault, rule) -> rows.put(fault.rule(), rule));
    return Collections.unmodifiableMap(rows);
  }

  /**
   * Decides about a response.
   *
   * @param method the request method; null or unknown methods count as non-idempotent
   * @param keyed whether the request carried an {@code Idempotency-Key}
   * @param status the status code; outside 100-599 gives the rule {@code http-invalid-status}
   * @param headers the response headers, read only for {@code Retry-After} under {@link
   *     Rule#RETRY_WITH_RETRY_AFTER}; null counts as none
   * @return the decision, never null
   */
  public Decision decide(String method, boolean keyed, int status, HeaderLookup headers) {
    Decision[] variants =
        status < MIN_STATUS || status > MAX_STATUS ? invalidStatus : byStatus[status - MIN_STATUS];
    boolean unkeyedWrite = !Idempotency.isSafeToResend(method, keyed);
    return variants[(unkeyedWrite ? 2 : 0) + (hasRetryAfter(variants, headers) ? 1 : 0)];
  }

  private static boolean hasRetryAfter(Decision[] variants, HeaderLookup headers) {
    // Only the RETRY_WITH_RETRY_AFTER rows differ by hint, so only they pay for reading it.
    if (variants[0] == variants[1] || headers == null) {
      return false;
    }
    String value;
    try {
      value = headers.first("Retry-After");
    } catch (RuntimeException e) {
      return false; // a broken header view counts as no header
    }
    // Validity does not depend on the time; the epoch only serves RFC 850's two-digit years.
    return RetryAfter.parse(value, Instant.EPOCH).isPresent();
  }

  /**
   * Decides about a network fault.
   *
   * @param method the request method; null or unknown methods count as non-idempotent
   * @param keyed whether the request carried an {@code Idempotency-Key}
   * @param fault the fault; null means the failure is not a network fault (rule {@code
   *     not-a-network-fault}, an abort: the failure is passed on as it is)
   * @return the decision, never null
   */
  public Decision decide(String method, boolean keyed, Fault fault) {
    if (fault == null) {
      return NOT_NETWORK;
    }
    return byFault[fault.ordinal()][Idempotency.isSafeToResend(method, keyed) ? 0 : 1];
  }

  /**
   * Decides about a failure: {@link Fault#classify(Throwable)}, then {@link #decide(String,
   * boolean, Fault)}.
   *
   * @param method the request method
   * @param keyed whether the request carried an {@code Idempotency-Key}
   * @param failure the exception; may be null (then not a network fault)
   * @return the decision, never null
   */
  public Decision decide(String method, boolean keyed, Throwable failure) {
    return decide(method, keyed, Fault.classify(failure));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DecisionTable
        && ((DecisionTable) o).statusRules.equals(statusRules)
        && Arrays.equals(((DecisionTable) o).classRules, classRules)
        && ((DecisionTable) o).faultRules.equals(faultRules);
  }

  @Override
  public int hashCode() {
    return Objects.hash(statusRules, Arrays.hashCode(classRules), faultRules);
  }

  @Override
  public String toString() {
    return "DecisionTable" + rows();
  }
}
