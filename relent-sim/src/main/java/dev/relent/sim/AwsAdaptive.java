package dev.relent.sim;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A reference client that is not Relent: the AWS SDKs' adaptive retry mode, written here from its
 * description in botocore ({@code botocore/retries/adaptive.py}, {@code bucket.py}, {@code
 * throttling.py}) so that the simulator can run it beside Relent's adaptive pacer.
 *
 * <ul>
 *   <li>A client-side token bucket, off until the first throttle. Its fill rate is the allowed rate
 *       (at least 0.5/s) and its capacity the same number of tokens (at least 1); a lower rate
 *       drops the tokens above the new capacity. A sender takes one token, waiting for it.
 *   <li>The send rate, measured on every response: responses are counted per 0.5 s bucket; when a
 *       later bucket begins, {@code count / elapsed} is smoothed into the measurement 0.8 / 0.2.
 *   <li>CUBIC: on a throttle, {@code wMax} = the rate in use ({@code measured} before the bucket is
 *       on, {@code min(measured, fill rate)} after), {@code K = cbrt(wMax (1 - beta) / C)}, new
 *       rate {@code beta * wMax}; on any other answer, {@code C (t - K)^3 + wMax}, t in seconds
 *       since the last throttle. beta 0.7, C 0.4. The bucket's rate becomes {@code min(new rate, 2
 *       * measured)}.
 * </ul>
 *
 * <p>Here {@code workers} senders take requests from the head of a queue; a throttled request goes
 * back to the head. Neither {@code Retry-After} nor the RateLimit headers are read: botocore reads
 * neither. Confined to the trial's thread.
 */
final class AwsAdaptive {
  static final double BETA = 0.7;
  static final double C = 0.4;
  static final double MIN_RATE = 0.5;
  static final double SMOOTHING = 0.8;
  static final double BUCKET_SECONDS = 0.5;

  private static final double SECOND = 1e9;

  private final Simulation sim;
  private final Supplier<CompletableFuture<PacedQueue.Response>> send;
  private final Runnable succeeded;
  private final ArrayDeque<Integer> queue = new ArrayDeque<>();

  // The token bucket.
  private boolean enabled;
  private double fillRate = 1;
  private double capacity = 1;
  private double tokens;
  private double lastRefill = Double.NaN;

  // The measured send rate.
  private double measured;
  private double lastBucket;
  private long count;

  // CUBIC.
  private double wMax;
  private double k;
  private double lastFail;

  private AwsAdaptive(
      Simulation sim,
      Supplier<CompletableFuture<PacedQueue.Response>> send,
      Runnable succeeded,
      int requests) {
    this.sim = sim;
    this.send = send;
    this.succeeded = succeeded;
    for (int i = 0; i < requests; i++) {
      queue.add(i);
    }
    this.lastFail = seconds();
    this.k = Math.cbrt(wMax * (1 - BETA) / C);
  }

  /** Runs {@code requests} through {@code workers} senders, starting at the current time. */
  static void run(
      Simulation sim,
      Supplier<CompletableFuture<PacedQueue.Response>> send,
      Runnable succeeded,
      int requests,
      int workers) {
    AwsAdaptive client = new AwsAdaptive(sim, send, succeeded, requests);
    for (int w = 0; w < workers; w++) {
      sim.after(0, client::work);
    }
  }

  private double seconds() {
    return sim.now() / SECOND;
  }

  /** One sender: takes a token if the bucket is on (waiting for it), then sends the head. */
  private void work() {
    if (queue.isEmpty()) {
      return;
    }
    if (enabled) {
      refill();
      if (tokens < 1) {
        double wait = (1 - tokens) / fillRate;
        sim.after((long) Math.ceil(wait * SECOND), this::work);
        return;
      }
      tokens -= 1;
    }
    Integer request = queue.poll();
    send.get()
        .thenAccept(
            r -> {
              onResponse(r.status() == 429);
              if (r.status() == 200) {
                succeeded.run();
              } else {
                queue.addFirst(request);
              }
              work();
            });
  }

  private void onResponse(boolean throttled) {
    double rate = record();
    double now = seconds();
    double next;
    if (!throttled) {
      next = C * Math.pow(now - lastFail - k, 3) + wMax;
    } else {
      double inUse = enabled ? Math.min(rate, fillRate) : rate;
      wMax = inUse;
      k = Math.cbrt(wMax * (1 - BETA) / C);
      lastFail = now;
      next = inUse * BETA;
      enabled = true;
    }
    setRate(Math.min(next, 2 * rate));
  }

  /** The measured send rate, after counting this response. */
  private double record() {
    double now = seconds();
    double bucket = Math.floor(now / BUCKET_SECONDS) * BUCKET_SECONDS;
    count++;
    if (bucket > lastBucket) {
      double current = count / (bucket - lastBucket);
      measured = current * SMOOTHING + measured * (1 - SMOOTHING);
      count = 0;
      lastBucket = bucket;
    }
    return measured;
  }

  private void setRate(double rate) {
    refill();
    fillRate = Math.max(rate, MIN_RATE);
    capacity = rate >= 1 ? rate : 1;
    tokens = Math.min(tokens, capacity);
  }

  private void refill() {
    double now = seconds();
    if (Double.isNaN(lastRefill)) {
      lastRefill = now;
      return;
    }
    tokens = Math.min(capacity, tokens + (now - lastRefill) * fillRate);
    lastRefill = now;
  }
}
