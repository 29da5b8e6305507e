package dev.relent.mockserver;

import java.util.List;
import java.util.Set;

/**
 * A compiled-from-config route or resource as the scenario holds it: immutable settings only; the
 * running state (counters, buckets) lives in {@link Engine}.
 */
final class Endpoint {

  /** The settings of an idempotent resource endpoint; null for a plain route. */
  static final class ResourceSettings {
    final String idPrefix;
    final String keyHeader;
    final boolean requireKey;
    final KeySpec scope;
    final java.time.Duration ttl;

    ResourceSettings(
        String idPrefix,
        String keyHeader,
        boolean requireKey,
        KeySpec scope,
        java.time.Duration ttl) {
      this.idPrefix = idPrefix;
      this.keyHeader = keyHeader;
      this.requireKey = requireKey;
      this.scope = scope;
      this.ttl = ttl;
    }
  }

  final String name;
  // Null means any method.
  final Set<String> methods;
  final PathPattern path;
  final List<Step> steps;
  final boolean cycle;
  final KeySpec sequencePer;
  final RateLimit rateLimit;
  final ConcurrencyLimit concurrencyLimit;
  final DailyQuota dailyQuota;
  final Latency latency;
  final ResourceSettings resource;

  Endpoint(
      String name,
      Set<String> methods,
      PathPattern path,
      List<Step> steps,
      boolean cycle,
      KeySpec sequencePer,
      RateLimit rateLimit,
      ConcurrencyLimit concurrencyLimit,
      DailyQuota dailyQuota,
      Latency latency,
      ResourceSettings resource) {
    this.name = name;
    this.methods = methods;
    this.path = path;
    this.steps = steps;
    this.cycle = cycle;
    this.sequencePer = sequencePer;
    this.rateLimit = rateLimit;
    this.concurrencyLimit = concurrencyLimit;
    this.dailyQuota = dailyQuota;
    this.latency = latency;
    this.resource = resource;
  }
}
