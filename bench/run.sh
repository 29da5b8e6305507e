#!/usr/bin/env bash
# Runs every benchmark of docs/BENCHMARKS.md and prints the ratios the goals are stated in:
#   1. JMH per-call overhead, Relent vs Resilience4j vs Failsafe vs a no-op baseline (-prof gc);
#   2. JMH contended throughput of a shared pacer and breaker, 2 threads, and what the machine
#      itself charges for a clock read and an atomic operation (the floor under every library);
#   3. the scale check: 100 000 asynchronous operations waiting in backoff (threads, heap);
#   4. relent-mockserver vs WireMock 3 under the same keep-alive load from wrk (loopback only).
# Results go to relent-bench/target/bench-results/ (summary.md holds the ratios).
#
# Settings (environment): FORKS (2), WARMUPS (2), ITERATIONS (3) for JMH, in 1 s iterations;
# WRK_SECONDS (10) per round, ROUNDS (3) alternating rounds per server, CONNECTIONS (64).
# QUICK=1 runs everything very briefly, to check that the script works (not for figures).
# Takes about 12 minutes with the defaults on a 2-core machine. Needs root for apt-get if wrk is
# missing. Every server binds 127.0.0.1 only and every load run is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."

FORKS=${FORKS:-2}
WARMUPS=${WARMUPS:-2}
ITERATIONS=${ITERATIONS:-3}
WRK_SECONDS=${WRK_SECONDS:-10}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
JMH_TIME=1s
WARM_SECONDS=5
if [[ "${QUICK:-0}" == 1 ]]; then
  WARMUPS=1 ITERATIONS=1 JMH_TIME=200ms WRK_SECONDS=2 ROUNDS=1 WARM_SECONDS=1
fi

OUT=relent-bench/target/bench-results
JAR=relent-bench/target/benchmarks.jar
WIREMOCK_JAR=relent-bench/target/wiremock/wiremock-standalone.jar

# shellcheck source=bench/lib.sh
. bench/lib.sh
# Starts a server in the background; its own PID goes to PIDS (not a subshell's), for cleanup.
start() {
  local log=$1
  shift
  echo "+ $* >$log &" >&2
  "$@" >"$log" 2>&1 &
  PIDS+=($!)
}

echo "== $(date -u +%FT%TZ) on $(nproc) cores; load:$(uptime | sed 's/.*load average://')"
echo "== $(java -version 2>&1 | head -1)"

if ! command -v wrk >/dev/null; then
  echo "== installing wrk from Debian's packages"
  run apt-get update -qq
  run apt-get install -y -qq wrk >/dev/null
fi

run ./mvnw -B -q -pl relent-bench -am package -DskipTests
rm -rf "$OUT"
mkdir -p "$OUT"
JMH_OPTS=(-f "$FORKS" -wi "$WARMUPS" -i "$ITERATIONS" -w "$JMH_TIME" -r "$JMH_TIME")

echo "== 1. per-call overhead"
run java -jar "$JAR" OverheadBenchmark "${JMH_OPTS[@]}" -prof gc -rf json -rff "$OUT/overhead.json" \
  >"$OUT/overhead.log"
echo "== 2. contended guards, 2 threads; load:$(uptime | sed 's/.*load average://')"
run java -jar "$JAR" GuardContentionBenchmark "${JMH_OPTS[@]}" -rf json -rff "$OUT/contention.json" \
  >"$OUT/contention.log"
echo "== 2b. what the machine charges: clock read, atomic, clock + shared add under 2 threads"
run java -jar "$JAR" FloorBenchmark "${JMH_OPTS[@]}" -rf json -rff "$OUT/floor.json" \
  >"$OUT/floor.log"
echo "== 3. scale"
run java -Xmx256m -cp "$JAR" dev.relent.bench.ScaleCheck 100000 | tee "$OUT/scale.txt"

echo "== 4. mock server vs WireMock; load:$(uptime | sed 's/.*load average://')"
trap cleanup EXIT

RELENT_PORT=$(free_port 18180)
start "$OUT/relent-mock.log" java -Xmx1g -cp "$JAR" dev.relent.mockserver.MockServerMain \
  bench/mock-scenario.json --host 127.0.0.1 --port "$RELENT_PORT"
WIREMOCK_PORT=$(free_port $((RELENT_PORT + 1)))
# The same bounded journal as the mock server's default (10 000 entries).
start "$OUT/wiremock.log" java -Xmx1g -jar "$WIREMOCK_JAR" --bind-address 127.0.0.1 \
  --port "$WIREMOCK_PORT" --root-dir bench/wiremock --max-request-journal-entries 10000 \
  --disable-banner
wait_for "$RELENT_PORT"
wait_for "$WIREMOCK_PORT"
for port in "$RELENT_PORT" "$WIREMOCK_PORT"; do
  status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/hello")
  if [[ "$status" != 200 ]]; then
    echo "GET http://127.0.0.1:$port/hello answered $status, not 200" >&2
    exit 1
  fi
done

WRK=(wrk -t1 -c"$CONNECTIONS" --latency --timeout 5s)
for port in "$RELENT_PORT" "$WIREMOCK_PORT"; do
  run "${WRK[@]}" -d"${WARM_SECONDS}s" "http://127.0.0.1:$port/hello" >/dev/null
done
RELENT_RUNS=()
WIREMOCK_RUNS=()
for round in $(seq 1 "$ROUNDS"); do
  run "${WRK[@]}" -d"${WRK_SECONDS}s" "http://127.0.0.1:$RELENT_PORT/hello" \
    >"$OUT/wrk-relent-$round.txt"
  RELENT_RUNS+=("$OUT/wrk-relent-$round.txt")
  run "${WRK[@]}" -d"${WRK_SECONDS}s" "http://127.0.0.1:$WIREMOCK_PORT/hello" \
    >"$OUT/wrk-wiremock-$round.txt"
  WIREMOCK_RUNS+=("$OUT/wrk-wiremock-$round.txt")
done
cleanup

join() {
  local IFS=,
  echo "$*"
}
echo "== done; load:$(uptime | sed 's/.*load average://')"
echo
java -cp "$JAR" dev.relent.bench.BenchReport \
  overhead="$OUT/overhead.json" contention="$OUT/contention.json" floor="$OUT/floor.json" scale="$OUT/scale.txt" \
  wrk-relent="$(join "${RELENT_RUNS[@]}")" wrk-wiremock="$(join "${WIREMOCK_RUNS[@]}")" \
  | tee "$OUT/summary.md"
