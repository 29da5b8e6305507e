#!/usr/bin/env bash
# Relent's Redis pacer against Bucket4j 8.14 on Lettuce, one hot key (docs/BENCHMARKS.md, "Redis
# pacer vs Bucket4j"):
#   1. JMH, RedisLimiterBenchmark: decisions per second with 1 and 8 threads, and sampled decision
#      times (p50, p99), at a limit nobody reaches (open) and at one that refuses most (refusing).
#      Each case runs as its own JMH command, Relent and Bucket4j back to back, in ROUNDS rounds
#      whose order alternates (Relent first in odd rounds), so that both see the same minutes of a
#      shared machine; the table takes the best iteration and the lowest percentiles of all rounds;
#   2. RedisRoundTrips: Redis commands per decision, from INFO commandstats and from MONITOR.
# Needs a Redis without a password at REDIS_URI (redis://127.0.0.1:6379; scripts/services.sh starts
# one) that nothing else is using: the commandstats pass counts every client's commands.
# Results go to relent-bench/target/bench-results/redis/ (summary.md holds both tables).
#
# Settings (environment): ROUNDS (2), FORKS (1), WARMUPS (2) of WARMUP_TIME (2s), ITERATIONS (3) of
# ITERATION_TIME (3s), COUNT_SECONDS (3) per round-trip pass. About 10 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."

REDIS_URI=${REDIS_URI:-redis://127.0.0.1:6379}
ROUNDS=${ROUNDS:-2}
FORKS=${FORKS:-1}
WARMUPS=${WARMUPS:-2}
ITERATIONS=${ITERATIONS:-3}
WARMUP_TIME=${WARMUP_TIME:-2s}
ITERATION_TIME=${ITERATION_TIME:-3s}
COUNT_SECONDS=${COUNT_SECONDS:-3}
OUT=relent-bench/target/bench-results/redis
JAR=relent-bench/target/benchmarks.jar
# shellcheck source=bench/lib.sh
. bench/lib.sh

echo "== $(date -u +%FT%TZ) on $(nproc) cores; load:$(uptime | sed 's/.*load average://')"
echo "== $(java -version 2>&1 | head -1); $(redis-cli -u "$REDIS_URI" info server | grep redis_version | tr -d '\r')"
run ./mvnw -B -q -pl relent-bench -am package -DskipTests
rm -rf "$OUT"
mkdir -p "$OUT"

JSONS=()
for round in $(seq 1 "$ROUNDS"); do
  if ((round % 2 == 1)); then libraries=(relent bucket4j); else libraries=(bucket4j relent); fi
  echo "== 1. JMH round $round of $ROUNDS (${libraries[*]}); load:$(uptime | sed 's/.*load average://')"
  for method in throughput1 throughput8 latency1 latency8; do
    for limit in open refusing; do
      for library in "${libraries[@]}"; do
        json="$OUT/$round-$method-$limit-$library.json"
        run java -jar "$JAR" "RedisLimiterBenchmark.$method\$" -p library="$library" \
          -p limit="$limit" -p uri="$REDIS_URI" -f "$FORKS" -wi "$WARMUPS" -i "$ITERATIONS" \
          -w "$WARMUP_TIME" -r "$ITERATION_TIME" -rf json -rff "$json" >>"$OUT/jmh.log"
        JSONS+=("$json")
      done
    done
  done
done
echo "== 2. commands per decision; load:$(uptime | sed 's/.*load average://')"
run java -cp "$JAR" dev.relent.bench.RedisRoundTrips "$REDIS_URI" "$COUNT_SECONDS" \
  >"$OUT/round-trips.md"
echo "== done; load:$(uptime | sed 's/.*load average://')"
echo
{
  echo "#### Decisions on one hot key (JMH, best iteration; p50/p99 of the sampled times)"
  echo
  java -cp "$JAR" dev.relent.bench.RedisLimiterReport "${JSONS[@]}"
  echo
  echo "#### Redis commands per decision"
  echo
  cat "$OUT/round-trips.md"
} | tee "$OUT/summary.md"
