package dev.relent.mockserver;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A route or resource as the scenario holds it: immutable settings only; the running state
 * (counters, buckets) lives in {@link Engine}.
 *
 * @param name the name in the journal and stats
 * @param methods the methods it answers, or null for any
 * @param path the path pattern (a literal path for a resource)
 * @param steps the steps, each repeated as often as its {@link Step#times()} says
 * @param cycle whether the steps start over after the last one
 * @param sequencePer the key of per-caller step counters, or null for one counter
 * @param emulations the endpoint's own emulations
 * @param resource the resource settings, or null for a route
 */
record Endpoint(
    String name,
    Set<String> methods,
    PathPattern path,
    List<Step> steps,
    boolean cycle,
    KeySpec sequencePer,
    EmulationSettings emulations,
    ResourceSettings resource) {

  /** The settings of an idempotent resource endpoint. */
  record ResourceSettings(
      String idPrefix, String keyHeader, boolean requireKey, KeySpec scope, Duration ttl) {}
}
