#!/usr/bin/env bash
# Part 1 of bench/memory.sh for comparing builds: each round runs the bare HttpClient loop
# (bench/BareLoop.java) and `relent batch` of every jar given, back to back, the order rotated from
# one round to the next, so that each build meets the same load as its peer. N GETs (100 000) at
# concurrency C (16) against the mock server on loopback, -Xmx256m, after a warm-up of the server.
# Prints one line per round: the load average, then for each run its requests/s and the CPU time
# (user + system) per request of the client process and of the mock server, in microseconds. The
# CPU per request moves less with the load of a shared machine than the rate does; the client's
# includes its JVM's start and, for relent batch, the first pass over the input.
#
# Run: bench/batch-vs-bare.sh ROUNDS JAR...   e.g. bench/batch-vs-bare.sh 4 old.jar relent-cli/target/relent.jar
# Settings (environment): REQUESTS (100000), CONCURRENCY (16), WARMUP (20000).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
JARS=("$@")
REQUESTS=${REQUESTS:-100000}
CONCURRENCY=${CONCURRENCY:-16}
WARMUP=${WARMUP:-20000}
OUT=relent-bench/target/bench-results/batch-vs-bare
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT
rm -rf "$OUT"
mkdir -p "$OUT"
PORT=$(free_port 18290)
java -Xmx1g -cp "${JARS[0]}" dev.relent.mockserver.MockServerMain bench/memory-scenario.json \
  --host 127.0.0.1 --port "$PORT" >"$OUT/mock.log" 2>&1 &
PIDS+=($!)
wait_for "$PORT"
BASE="http://127.0.0.1:$PORT"
seq 1 "$REQUESTS" | awk -v b="$BASE" '{printf "{\"id\":\"r-%d\",\"url\":\"%s/items/%d\"}\n", $1, b, $1}' \
  >"$OUT/gets.jsonl"
# Compiled once, so that no run's CPU time includes compiling it.
javac -d "$OUT/bare" bench/BareLoop.java
java -cp "$OUT/bare" BareLoop "$BASE/items/" "$WARMUP" "$CONCURRENCY" >"$OUT/warmup.txt"
TICK=$(getconf CLK_TCK)
server_ticks() { awk '{print $14 + $15}' "/proc/${PIDS[0]}/stat"; }
# Runs a command, its output to $1; prints its CPU time (user + system) in seconds.
cpu_of() {
  local out=$1 TIMEFORMAT='%U %S'
  shift
  { time "$@" >"$out" 2>"$out.err"; } 2>&1 | awk '{print $1 + $2}'
}
# requests per second from a batch summary line "relent batch: N requests in 12.3 s: ..."
batch_rate() {
  awk '/^relent batch: [0-9]+ requests in/ {
         n = $3; t = $6; unit = $7; sub(/:$/, "", unit);
         if (unit == "ms") t = t / 1000; if (unit == "min") t = t * 60;
         printf "%.0f\n", n / t }' "$1"
}
runs=(bare "${JARS[@]}")
for round in $(seq 1 "$ROUNDS"); do
  k=$(((round - 1) % ${#runs[@]}))
  order=("${runs[@]:$k}" "${runs[@]:0:$k}")
  line="round $round (load$(uptime | sed 's/.*load average://')):"
  for r in "${order[@]}"; do
    s0=$(server_ticks)
    if [ "$r" = bare ]; then
      cpu=$(cpu_of "$OUT/bare.txt" java -cp "$OUT/bare" BareLoop "$BASE/items/" "$REQUESTS" "$CONCURRENCY")
      rate=$(sed -n 's/.*= \([0-9]*\)\/s.*/\1/p' "$OUT/bare.txt")
    else
      cpu=$(cpu_of "$OUT/batch.txt" java -Xmx256m -jar "$r" batch "$OUT/gets.jsonl" --rate 1000000/s \
        --concurrency "$CONCURRENCY" --progress off --out "$OUT/results.jsonl")
      rate=$(batch_rate "$OUT/batch.txt")
    fi
    s1=$(server_ticks)
    per=$(awk -v c="$cpu" -v a="$s0" -v b="$s1" -v t="$TICK" -v n="$REQUESTS" \
      'BEGIN {printf "client %.0f us, server %.0f us", c * 1e6 / n, (b - a) / t * 1e6 / n}')
    line="$line $r $rate/s ($per)"
  done
  echo "$line" | tee -a "$OUT/summary.txt"
done
