/**
 * Micrometer meters for Relent: {@link dev.relent.micrometer.RelentMetrics} counts and times an
 * executor's calls, attempts and waits from its events, and gauges its guards and those of every
 * scope its calls name. Depends on relent-core and micrometer-core alone.
 */
package dev.relent.micrometer;
