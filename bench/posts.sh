#!/usr/bin/env bash
# Where a keyed POST's time goes (docs/BENCHMARKS.md, "Journaled keyed POSTs"): one mock server
# (bench/memory-scenario.json, POST /payments on relent-idempotency), and in each round, one after
# the other on the same server:
#   bare GET / bare POST   a bare java.net.http.HttpClient loop (bench/BareLoop.java), no Relent;
#   batch GET / batch POST relent batch of the same requests, no journal;
#   batch POST journaled   the same POSTs with --journal (key forced before the send, done after);
#   journal alone          JournalThroughput: the same records, a send that takes no time.
# For each: requests per second, and the CPU time per request of the client process and of the
# mock server (from /proc: user + system), which a loaded machine inflates less than it does the
# rate. The load average is printed before and after every round.
#
# Settings (environment): WRITES (20000), CONCURRENCY (64), ROUNDS (2), BUILD (1: package first).
# Results go to relent-bench/target/bench-results/posts/. Every server binds 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

WRITES=${WRITES:-20000}
CONCURRENCY=${CONCURRENCY:-64}
ROUNDS=${ROUNDS:-2}
BUILD=${BUILD:-1}
OUT=relent-bench/target/bench-results/posts
JAR=relent-cli/target/relent.jar
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT
TICK=$(getconf CLK_TCK)
load() { uptime | sed 's/.*load average: //'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "== $(date -u +%FT%TZ) on $(nproc) cores; load $(load)"
echo "== $(java -version 2>&1 | head -1)"
if [ "$BUILD" = 1 ]; then
  run ./mvnw -o -B -q -pl relent-cli -am package -DskipTests
fi
rm -rf "$OUT"
mkdir -p "$OUT"

MOCK_PORT=$(free_port 18380)
echo "+ java -Xmx1g -cp $JAR dev.relent.mockserver.MockServerMain bench/memory-scenario.json --host 127.0.0.1 --port $MOCK_PORT &" >&2
java -Xmx1g -cp "$JAR" dev.relent.mockserver.MockServerMain bench/memory-scenario.json \
  --host 127.0.0.1 --port "$MOCK_PORT" >"$OUT/mock.log" 2>&1 &
MOCK_PID=$!
PIDS+=("$MOCK_PID")
wait_for "$MOCK_PORT"
BASE="http://127.0.0.1:$MOCK_PORT"
seq 1 "$WRITES" | awk -v b="$BASE" \
  '{printf "{\"id\":\"p-%d\",\"method\":\"POST\",\"url\":\"%s/payments\",\"body\":{\"amount\":%d}}\n", $1, b, $1}' \
  >"$OUT/posts.jsonl"
seq 1 "$WRITES" | awk -v b="$BASE" '{printf "{\"id\":\"r-%d\",\"url\":\"%s/items/%d\"}\n", $1, b, $1}' \
  >"$OUT/gets.jsonl"

# measure NAME CMD...: runs CMD (its stdout to $OUT/NAME.txt) and prints one line of figures.
measure() {
  local name=$1
  shift
  local before after wall user sys
  before=$(cpu_ticks "$MOCK_PID")
  echo "+ $*" >&2
  /usr/bin/time -f "%e %U %S" -o "$OUT/$name.time" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
  after=$(cpu_ticks "$MOCK_PID")
  read -r wall user sys <"$OUT/$name.time"
  awk -v name="$name" -v n="$WRITES" -v wall="$wall" -v cpu="$user + $sys" -v u="$user" -v s="$sys" \
    -v server=$((after - before)) -v tick="$TICK" 'BEGIN {
      printf "  %-22s %6.0f/s  client %.3f ms CPU/request  mock server %.3f ms CPU/request\n",
        name, n / wall, (u + s) * 1000 / n, server * 1000 / tick / n }'
}

BATCH=(java -Xmx256m -jar "$JAR" batch --rate 1000000/s --concurrency "$CONCURRENCY" --progress off)
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round: $WRITES requests each, concurrency $CONCURRENCY; load $(load)"
  measure "bare-get-$round" java bench/BareLoop.java "$BASE/items/" "$WRITES" "$CONCURRENCY"
  measure "bare-post-$round" java bench/BareLoop.java "$BASE/payments" "$WRITES" "$CONCURRENCY" POST
  measure "batch-get-$round" "${BATCH[@]}" "$OUT/gets.jsonl" --out "$OUT/gets-results-$round.jsonl"
  measure "batch-post-$round" "${BATCH[@]}" "$OUT/posts.jsonl" --out "$OUT/posts-results-$round.jsonl"
  rm -f "$OUT/posts-$round.journal"
  measure "batch-post-journal-$round" "${BATCH[@]}" "$OUT/posts.jsonl" \
    --journal "$OUT/posts-$round.journal" --out "$OUT/journaled-results-$round.jsonl"
  measure "journal-alone-$round" java -cp relent-cli/target/test-classes:"$JAR" \
    dev.relent.cli.batch.JournalThroughput "$WRITES" "$CONCURRENCY" "$OUT"
  echo "   $(head -1 "$OUT/batch-post-journal-$round.txt")"
  echo "   $(cat "$OUT/journal-alone-$round.txt")"
  echo "== end of round $round; load $(load)"
done 2>&1 | grep -v '^+ ' | tee "$OUT/summary.txt"
