package dev.relent.spring;

import dev.relent.Jitter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code relent.*} properties: one entry under {@code relent.clients} per named client, each
 * starting from {@code relent.defaults}. Every setting has Relent's own default; an unknown key
 * under {@code relent} fails start-up, naming the key, and so does a bad value, naming the property
 * and what is allowed.
 *
 * <pre>
 * relent.clients.payments.base-url=https://api.example.com
 * relent.clients.payments.max-retries=3
 * </pre>
 *
 * <p>Mutable, as Spring binds it; read once at start-up.
 */
@ConfigurationProperties(prefix = "relent", ignoreUnknownFields = false)
public class RelentProperties {
  /**
   * The named clients, each with its own policy and guards; every key of relent.defaults may be set
   * per client (relent.clients.payments.max-retries) and overrides the default.
   */
  private Map<String, Client> clients = new LinkedHashMap<>();

  /** What every named client starts from; its own keys under relent.clients.NAME override these. */
  private final Client defaults = new Client();

  /** Creates the properties with no client. */
  public RelentProperties() {}

  /**
   * Returns the named clients.
   *
   * @return name to settings, mutable
   */
  public Map<String, Client> getClients() {
    return clients;
  }

  /**
   * Returns the settings every client starts from.
   *
   * @return the defaults, mutable
   */
  public Client getDefaults() {
    return defaults;
  }

  /**
   * Sets the named clients.
   *
   * @param clients name to settings
   */
  public void setClients(Map<String, Client> clients) {
    this.clients = clients;
  }

  /** The settings of one named client. */
  public static class Client {
    /**
     * The base URL relative request paths are resolved against, e.g. https://api.example.com;
     * absolute http or https. Required.
     */
    private String baseUrl;

    /** The most retries after the first attempt; 0 turns retries off. */
    private int maxRetries = 5;

    /**
     * The total time one call may take, every attempt and wait included; a wait that would pass it
     * is not begun.
     */
    private Duration deadline = Duration.ofSeconds(30);

    /** The longest one attempt may take; each gets the smaller of this and the deadline left. */
    private Duration attemptTimeout = Duration.ofSeconds(10);

    /**
     * The longest wait a server may ask for (Retry-After, RateLimit-Reset) before the call fails at
     * once, saying how long it asked; unset means the deadline.
     */
    private Duration maxServerWait;

    /**
     * Whether every POST and PATCH without an Idempotency-Key gets a new one, kept across its
     * retries, so that it is retried like an idempotent request. Turn it on only for servers that
     * deduplicate by key.
     */
    private boolean idempotencyKeys = false;

    /**
     * The largest response body a RestClient or RestTemplate reads inside the attempt for an
     * idempotent or keyed request, so that the attempt timeout covers it and a body that stalls or
     * breaks off is retried; a larger one (by Content-Length, or past this many bytes) streams to
     * the caller after the attempt, where only the request factory's read timeout bounds it and a
     * failure is not retried. 0 reads no body inside the attempt. At most 1GB.
     */
    private DataSize attemptBodyLimit = DataSize.ofMegabytes(1);

    /** How long to wait between attempts. */
    private final Backoff backoff = new Backoff();

    /** A circuit breaker shared by every call of the client. */
    private final Breaker breaker = new Breaker();

    /** A retry budget: retries may add at most a ratio of first attempts. */
    private final Budget budget = new Budget();

    /** A pacer: a limit on how fast attempts start. */
    private final Pacer pacer = new Pacer();

    /** Guards per scope (account, API key, endpoint): a 429 pauses its own scope only. */
    private final Scopes scopes = new Scopes();

    /** The most calls of the client in flight at once; unset means no limit. */
    private Integer maxConcurrent;

    /** Creates the settings at their defaults. */
    public Client() {}

    /**
     * Returns the base URL.
     *
     * @return the URL, or null when unset
     */
    public String getBaseUrl() {
      return baseUrl;
    }

    /**
     * Sets the base URL.
     *
     * @param baseUrl the URL
     */
    public void setBaseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
    }

    /**
     * Returns the most retries.
     *
     * @return retries after the first attempt
     */
    public int getMaxRetries() {
      return maxRetries;
    }

    /**
     * Sets the most retries.
     *
     * @param maxRetries retries after the first attempt
     */
    public void setMaxRetries(int maxRetries) {
      this.maxRetries = maxRetries;
    }

    /**
     * Returns the deadline.
     *
     * @return the deadline
     */
    public Duration getDeadline() {
      return deadline;
    }

    /**
     * Sets the deadline.
     *
     * @param deadline the deadline
     */
    public void setDeadline(Duration deadline) {
      this.deadline = deadline;
    }

    /**
     * Returns the attempt timeout.
     *
     * @return the timeout
     */
    public Duration getAttemptTimeout() {
      return attemptTimeout;
    }

    /**
     * Sets the attempt timeout.
     *
     * @param attemptTimeout the timeout
     */
    public void setAttemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = attemptTimeout;
    }

    /**
     * Returns the longest server wait.
     *
     * @return the wait, or null for the deadline
     */
    public Duration getMaxServerWait() {
      return maxServerWait;
    }

    /**
     * Sets the longest server wait.
     *
     * @param maxServerWait the wait
     */
    public void setMaxServerWait(Duration maxServerWait) {
      this.maxServerWait = maxServerWait;
    }

    /**
     * Returns whether writes get keys.
     *
     * @return true to key every POST and PATCH
     */
    public boolean isIdempotencyKeys() {
      return idempotencyKeys;
    }

    /**
     * Sets whether writes get keys.
     *
     * @param idempotencyKeys true to key every POST and PATCH
     */
    public void setIdempotencyKeys(boolean idempotencyKeys) {
      this.idempotencyKeys = idempotencyKeys;
    }

    /**
     * Returns the largest body read inside the attempt.
     *
     * @return the size
     */
    public DataSize getAttemptBodyLimit() {
      return attemptBodyLimit;
    }

    /**
     * Sets the largest body read inside the attempt.
     *
     * @param attemptBodyLimit the size; 0 for none
     */
    public void setAttemptBodyLimit(DataSize attemptBodyLimit) {
      this.attemptBodyLimit = attemptBodyLimit;
    }

    /**
     * Returns the backoff settings.
     *
     * @return the settings
     */
    public Backoff getBackoff() {
      return backoff;
    }

    /**
     * Returns the breaker settings.
     *
     * @return the settings
     */
    public Breaker getBreaker() {
      return breaker;
    }

    /**
     * Returns the budget settings.
     *
     * @return the settings
     */
    public Budget getBudget() {
      return budget;
    }

    /**
     * Returns the pacer settings.
     *
     * @return the settings
     */
    public Pacer getPacer() {
      return pacer;
    }

    /**
     * Returns the scope settings.
     *
     * @return the settings
     */
    public Scopes getScopes() {
      return scopes;
    }

    /**
     * Returns the concurrency limit.
     *
     * @return the most calls in flight, or null for none
     */
    public Integer getMaxConcurrent() {
      return maxConcurrent;
    }

    /**
     * Sets the concurrency limit.
     *
     * @param maxConcurrent the most calls in flight
     */
    public void setMaxConcurrent(Integer maxConcurrent) {
      this.maxConcurrent = maxConcurrent;
    }
  }

  /** Exponential backoff between attempts: base doubled per retry, capped, with jitter. */
  public static class Backoff {
    /** The wait before the first retry, before jitter. */
    private Duration base = Duration.ofMillis(500);

    /** The longest wait between attempts, before jitter. */
    private Duration cap = Duration.ofSeconds(30);

    /** How the wait is spread: none, full, equal or decorrelated. */
    private Jitter jitter = Jitter.FULL;

    /** Creates the settings at their defaults. */
    public Backoff() {}

    /**
     * Returns the base.
     *
     * @return the base
     */
    public Duration getBase() {
      return base;
    }

    /**
     * Sets the base.
     *
     * @param base the base
     */
    public void setBase(Duration base) {
      this.base = base;
    }

    /**
     * Returns the cap.
     *
     * @return the cap
     */
    public Duration getCap() {
      return cap;
    }

    /**
     * Sets the cap.
     *
     * @param cap the cap
     */
    public void setCap(Duration cap) {
      this.cap = cap;
    }

    /**
     * Returns the jitter.
     *
     * @return the jitter
     */
    public Jitter getJitter() {
      return jitter;
    }

    /**
     * Sets the jitter.
     *
     * @param jitter the jitter
     */
    public void setJitter(Jitter jitter) {
      this.jitter = jitter;
    }
  }

  /** A circuit breaker: opens when too many recent calls failed, probes after a while. */
  public static class Breaker {
    /** Whether the client has a breaker. */
    private boolean enabled = false;

    /** The failure rate, in percent, at or above which the breaker opens. */
    private double failureRateThreshold = 50;

    /** How many of the latest calls the failure rate is judged over. */
    private int countWindow = 100;

    /** How many calls the window must hold before the rate is judged. */
    private int minimumCalls = 20;

    /** How long the breaker stays open before it lets probes through. */
    private Duration openDuration = Duration.ofSeconds(30);

    /** How many probes a half-open breaker lets through. */
    private int halfOpenProbes = 3;

    /** Creates the settings at their defaults. */
    public Breaker() {}

    /**
     * Returns whether the breaker is on.
     *
     * @return true if on
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Turns the breaker on or off.
     *
     * @param enabled true for on
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the threshold.
     *
     * @return percent
     */
    public double getFailureRateThreshold() {
      return failureRateThreshold;
    }

    /**
     * Sets the threshold.
     *
     * @param failureRateThreshold percent
     */
    public void setFailureRateThreshold(double failureRateThreshold) {
      this.failureRateThreshold = failureRateThreshold;
    }

    /**
     * Returns the window.
     *
     * @return calls
     */
    public int getCountWindow() {
      return countWindow;
    }

    /**
     * Sets the window.
     *
     * @param countWindow calls
     */
    public void setCountWindow(int countWindow) {
      this.countWindow = countWindow;
    }

    /**
     * Returns the minimum calls.
     *
     * @return calls
     */
    public int getMinimumCalls() {
      return minimumCalls;
    }

    /**
     * Sets the minimum calls.
     *
     * @param minimumCalls calls
     */
    public void setMinimumCalls(int minimumCalls) {
      this.minimumCalls = minimumCalls;
    }

    /**
     * Returns the open duration.
     *
     * @return the duration
     */
    public Duration getOpenDuration() {
      return openDuration;
    }

    /**
     * Sets the open duration.
     *
     * @param openDuration the duration
     */
    public void setOpenDuration(Duration openDuration) {
      this.openDuration = openDuration;
    }

    /**
     * Returns the probes.
     *
     * @return probes
     */
    public int getHalfOpenProbes() {
      return halfOpenProbes;
    }

    /**
     * Sets the probes.
     *
     * @param halfOpenProbes probes
     */
    public void setHalfOpenProbes(int halfOpenProbes) {
      this.halfOpenProbes = halfOpenProbes;
    }
  }

  /** A retry budget over a sliding window. */
  public static class Budget {
    /** Whether the client has a retry budget. */
    private boolean enabled = false;

    /** Retries earned per first attempt in the window (0.1: retries add at most 10 % load). */
    private double ratio = 0.1;

    /** The length of the sliding window. */
    private Duration window = Duration.ofSeconds(10);

    /** Retries per second allowed whatever the ratio, so that a quiet client can still retry. */
    private int minRetriesPerSecond = 10;

    /** Creates the settings at their defaults. */
    public Budget() {}

    /**
     * Returns whether the budget is on.
     *
     * @return true if on
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Turns the budget on or off.
     *
     * @param enabled true for on
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the ratio.
     *
     * @return the ratio
     */
    public double getRatio() {
      return ratio;
    }

    /**
     * Sets the ratio.
     *
     * @param ratio the ratio
     */
    public void setRatio(double ratio) {
      this.ratio = ratio;
    }

    /**
     * Returns the window.
     *
     * @return the window
     */
    public Duration getWindow() {
      return window;
    }

    /**
     * Sets the window.
     *
     * @param window the window
     */
    public void setWindow(Duration window) {
      this.window = window;
    }

    /**
     * Returns the floor.
     *
     * @return retries per second
     */
    public int getMinRetriesPerSecond() {
      return minRetriesPerSecond;
    }

    /**
     * Sets the floor.
     *
     * @param minRetriesPerSecond retries per second
     */
    public void setMinRetriesPerSecond(int minRetriesPerSecond) {
      this.minRetriesPerSecond = minRetriesPerSecond;
    }
  }

  /** A pacer: a fixed start rate, or one learned from the server's answers. */
  public static class Pacer {
    /** Attempts allowed per period; unset means no fixed rate. */
    private Integer permits;

    /** The period the permits are counted over. */
    private Duration per = Duration.ofSeconds(1);

    /**
     * Whether the pacer learns the rate from rate-limit headers and 429/503 answers; permits, if
     * set, are then its ceiling.
     */
    private boolean adaptive = false;

    /** Creates the settings at their defaults. */
    public Pacer() {}

    /**
     * Returns the permits.
     *
     * @return permits per period, or null
     */
    public Integer getPermits() {
      return permits;
    }

    /**
     * Sets the permits.
     *
     * @param permits permits per period
     */
    public void setPermits(Integer permits) {
      this.permits = permits;
    }

    /**
     * Returns the period.
     *
     * @return the period
     */
    public Duration getPer() {
      return per;
    }

    /**
     * Sets the period.
     *
     * @param per the period
     */
    public void setPer(Duration per) {
      this.per = per;
    }

    /**
     * Returns whether the pacer is adaptive.
     *
     * @return true if adaptive
     */
    public boolean isAdaptive() {
      return adaptive;
    }

    /**
     * Makes the pacer adaptive.
     *
     * @param adaptive true for adaptive
     */
    public void setAdaptive(boolean adaptive) {
      this.adaptive = adaptive;
    }
  }

  /** Guards and pauses per scope. */
  public static class Scopes {
    /** Whether requests are governed per scope (implied by routes or key-header). */
    private boolean enabled = false;

    /**
     * Route templates that name endpoints, e.g. /v1/payments/{id}; other paths have their ids
     * replaced by {id}.
     */
    private List<String> routes = new ArrayList<>();

    /** A request header whose value names the caller's key scope (only a hash of it is kept). */
    private String keyHeader;

    /** Creates the settings at their defaults. */
    public Scopes() {}

    /**
     * Returns whether scopes are on.
     *
     * @return true if on
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Turns scopes on or off.
     *
     * @param enabled true for on
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the route templates.
     *
     * @return the templates, mutable
     */
    public List<String> getRoutes() {
      return routes;
    }

    /**
     * Sets the route templates.
     *
     * @param routes the templates
     */
    public void setRoutes(List<String> routes) {
      this.routes = routes;
    }

    /**
     * Returns the key header.
     *
     * @return the header name, or null
     */
    public String getKeyHeader() {
      return keyHeader;
    }

    /**
     * Sets the key header.
     *
     * @param keyHeader the header name
     */
    public void setKeyHeader(String keyHeader) {
      this.keyHeader = keyHeader;
    }
  }
}
