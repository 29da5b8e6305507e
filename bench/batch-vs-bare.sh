#!/usr/bin/env bash
# Part 1 of bench/memory.sh for comparing builds: each round runs the bare HttpClient loop
# (bench/BareLoop.java) and `relent batch` of every jar given, back to back, the order rotated from
# one round to the next, so that each build meets the same load as its peer. N GETs (100 000) at
# concurrency C (16) against the mock server on loopback, -Xmx256m, after a warm-up of the server.
# Prints one line per round: the load average, then requests/s of each run.
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
java bench/BareLoop.java "$BASE/items/" "$WARMUP" "$CONCURRENCY" >"$OUT/warmup.txt"
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
    if [ "$r" = bare ]; then
      rate=$(java bench/BareLoop.java "$BASE/items/" "$REQUESTS" "$CONCURRENCY" |
        sed -n 's/.*= \([0-9]*\)\/s.*/\1/p')
    else
      java -Xmx256m -jar "$r" batch "$OUT/gets.jsonl" --rate 1000000/s --concurrency "$CONCURRENCY" \
        --progress off --out "$OUT/results.jsonl" >"$OUT/batch.txt" 2>"$OUT/batch.err"
      rate=$(batch_rate "$OUT/batch.txt")
    fi
    line="$line $r $rate/s"
  done
  echo "$line" | tee -a "$OUT/summary.txt"
done
