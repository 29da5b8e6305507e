package dev.relent.cli.common;

/**
 * The exit codes of every {@code relent} command: a contract that scripts depend on. New codes may
 * be added; existing ones never change meaning.
 *
 * <table>
 *   <caption>exit codes</caption>
 *   <tr><th>code</th><th>meaning</th></tr>
 *   <tr><td>0</td><td>success: for {@code call} HTTP 2xx or 3xx; for {@code batch} every request
 *       of the input succeeded; for {@code demo} every claim holds</td></tr>
 *   <tr><td>1</td><td>an unexpected error (I/O on a local file such as the report or the batch
 *       journal, a bug); for {@code demo}, a claim that does not hold</td></tr>
 *   <tr><td>2</td><td>usage error: a wrong flag or value; for {@code batch} also an input file that
 *       cannot be read, a bad line with {@code --strict}, or a journal that is not one, is in use,
 *       or was made for a request that changed. Nothing was sent</td></tr>
 *   <tr><td>3</td><td>an HTTP error that is not retried (4xx, or a write without key); for {@code
 *       call}: a status the decision table does not retry (4xx, 501, ...), a POST or PATCH without
 *       {@code Idempotency-Key} that was not re-sent after it may have reached the server, or a
 *       network fault the decision table never retries (TLS handshake, unknown host), a final
 *       response whose body was cut off after part of it was written out; for {@code
 *       batch}: some request ended so, or a bad input line was skipped</td></tr>
 *   <tr><td>4</td><td>retries exhausted (or refused by the retry budget or circuit breaker); for
 *       {@code batch}: for some request</td></tr>
 *   <tr><td>5</td><td>deadline, server wait too long, or quota exhausted; for {@code batch}: for
 *       some request, or the run stopped (a quota, {@code --batch-deadline}, Ctrl-C) and requests
 *       were not sent</td></tr>
 *   <tr><td>6</td><td>unresolved: a write with an {@code Idempotency-Key} may have taken effect
 *       and no answer said whether it did (the retries or the deadline ran out after a read
 *       timeout, a reset, a 504, ...); it is safe to send again with the same key: for {@code
 *       call} with {@code --idempotency-key KEY}, for {@code batch} by running the same command
 *       again with its journal</td></tr>
 *   <tr><td>130</td><td>interrupted (Ctrl-C): the shell's usual code for SIGINT</td></tr>
 * </table>
 *
 * <p>{@code batch} reports many requests with one code: the highest of 6, 5, 4 and 3 among the
 * requests of the input (those a journal finished in earlier runs included); 1 only when nothing
 * else failed, or when the journal cannot be written.
 */
public final class ExitCodes {
  /** Success. */
  public static final int OK = 0;

  /** An unexpected error. */
  public static final int ERROR = 1;

  /** A wrong flag or value. */
  public static final int USAGE = 2;

  /** An HTTP error that is not retried. */
  public static final int NOT_RETRIED = 3;

  /** Retries exhausted, or refused by the retry budget or the circuit breaker. */
  public static final int RETRIES_EXHAUSTED = 4;

  /** The deadline, a server wait longer than allowed, or an exhausted quota. */
  public static final int DEADLINE = 5;

  /** A write with a key that may have taken effect: send it again with the same key. */
  public static final int UNRESOLVED = 6;

  /** Interrupted by Ctrl-C (SIGINT), as the shell reports it: 128 + 2. */
  public static final int INTERRUPTED = 130;

  private ExitCodes() {}

  /**
   * The code an outcome stands for (a report's {@code reason}, a results line's {@code outcome}): 0
   * success; 3 not retried; 4 retries used up or refused by a budget or breaker; 5 time, quota, not
   * sent or stopped; 6 unresolved; 130 interrupted; 1 anything else.
   */
  public static int of(String outcome) {
    return Outcome.of(outcome).exitCode();
  }
}
