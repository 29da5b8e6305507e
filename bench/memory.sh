#!/usr/bin/env bash
# The memory and journal figures of docs/BENCHMARKS.md ("Memory and the journal"), in one run:
#   1. relent batch, N GETs (100 000) against the mock server on loopback, with -Xmx256m, against a
#      bare java.net.http.HttpClient loop at the same concurrency (bench/BareLoop.java), alternating;
#      the heap after each GC from -Xlog:gc;
#   2. relent batch, K keyed POSTs (20 000) with --journal: journaled writes per second, end to end
#      and the journal alone (JournalThroughput, in relent-cli's test classes);
#   3. relent call of a 1 GiB body with -Xmx256m: peak RSS from /usr/bin/time -v.
# Results go to relent-bench/target/bench-results/memory/, or OUT (summary.txt holds the figures).
#
# Settings (environment): REQUESTS (100000), WRITES (20000), CONCURRENCY (16), WRITE_CONCURRENCY
# (64), BODY_BYTES (1073741824), ROUNDS (2), PARTS (which of the parts above to run: "1 2 3"),
# BUILD (1: build the CLI first; 0: use the jar as it is), JAR (the CLI jar to run: another build to
# compare with), WARMUP (20000: GETs of the bare loop before part 1, not counted). Every server binds 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-100000}
WRITES=${WRITES:-20000}
CONCURRENCY=${CONCURRENCY:-16}
WRITE_CONCURRENCY=${WRITE_CONCURRENCY:-64}
BODY_BYTES=${BODY_BYTES:-1073741824}
ROUNDS=${ROUNDS:-2}
PARTS=${PARTS:-1 2 3}
WARMUP=${WARMUP:-20000}
BUILD=${BUILD:-1}
OUT=${OUT:-relent-bench/target/bench-results/memory}
JAR=${JAR:-relent-cli/target/relent.jar}
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT
# The largest heap left after a GC in a -Xlog:gc file, in MiB ("... 180M->23M(256M) ...").
heap_after_gc() {
  grep -o '[0-9]*M->[0-9]*M' "$1" | sed 's/.*->//; s/M//' | sort -n | tail -1
}
# requests per second from a batch summary line "relent batch: N requests in 12.3 s: ..."
batch_rate() {
  awk '/^relent batch: [0-9]+ requests in/ {
         n = $3; t = $6; unit = $7; sub(/:$/, "", unit);
         if (unit == "ms") t = t / 1000; if (unit == "min") t = t * 60;
         printf "%.0f\n", n / t }' "$1"
}

echo "== $(date -u +%FT%TZ) on $(nproc) cores; load:$(uptime | sed 's/.*load average://')"
echo "== $(java -version 2>&1 | head -1)"
part() { [[ " $PARTS " == *" $1 "* ]]; }
if [ "$BUILD" = 1 ]; then
  run ./mvnw -B -q -pl relent-cli -am package -DskipTests
fi
rm -rf "$OUT"
mkdir -p "$OUT"

MOCK_PORT=$(free_port 18280)
echo "+ java -Xmx1g -cp $JAR dev.relent.mockserver.MockServerMain bench/memory-scenario.json --host 127.0.0.1 --port $MOCK_PORT &" >&2
java -Xmx1g -cp "$JAR" dev.relent.mockserver.MockServerMain bench/memory-scenario.json \
  --host 127.0.0.1 --port "$MOCK_PORT" >"$OUT/mock.log" 2>&1 &
PIDS+=($!)
wait_for "$MOCK_PORT"
BASE="http://127.0.0.1:$MOCK_PORT"

seq 1 "$REQUESTS" | awk -v b="$BASE" '{printf "{\"id\":\"r-%d\",\"url\":\"%s/items/%d\"}\n", $1, b, $1}' \
  >"$OUT/gets.jsonl"
seq 1 "$WRITES" | awk -v b="$BASE" \
  '{printf "{\"id\":\"p-%d\",\"method\":\"POST\",\"url\":\"%s/payments\",\"body\":{\"amount\":%d}}\n", $1, b, $1}' \
  >"$OUT/posts.jsonl"

if part 1; then
echo "== 1. $REQUESTS GETs, concurrency $CONCURRENCY: relent batch (-Xmx256m) vs a bare HttpClient loop"
# The mock server's JIT warms up first, so that the first round's peer does not meet a cold server.
run java bench/BareLoop.java "$BASE/items/" "$WARMUP" "$CONCURRENCY" >"$OUT/warmup.txt"
for round in $(seq 1 "$ROUNDS"); do
  run java bench/BareLoop.java "$BASE/items/" "$REQUESTS" "$CONCURRENCY" | tee "$OUT/bare-$round.txt"
  run java -Xmx256m -Xlog:gc:file="$OUT/batch-gc-$round.log" -jar "$JAR" batch "$OUT/gets.jsonl" \
    --rate 1000000/s --concurrency "$CONCURRENCY" --progress off --out "$OUT/gets-results-$round.jsonl" \
    >"$OUT/batch-$round.txt" 2>"$OUT/batch-$round.err"
  head -1 "$OUT/batch-$round.txt"
done
fi

if part 2; then
echo "== 2. $WRITES keyed POSTs with --journal, concurrency $WRITE_CONCURRENCY"
rm -f "$OUT/posts.journal"
run java -Xmx256m -jar "$JAR" batch "$OUT/posts.jsonl" --rate 1000000/s \
  --concurrency "$WRITE_CONCURRENCY" --progress off --journal "$OUT/posts.journal" \
  --out "$OUT/posts-results.jsonl" >"$OUT/posts.txt" 2>"$OUT/posts.err"
head -1 "$OUT/posts.txt"
curl -s "$BASE/__relent/stats" >"$OUT/stats.json" || true
echo "== 2b. the journal alone: $WRITES keyed writes, $WRITE_CONCURRENCY writers, a send that takes no time"
run java -cp relent-cli/target/test-classes:relent-cli/target/classes:"$JAR" \
  dev.relent.cli.batch.JournalThroughput "$WRITES" "$WRITE_CONCURRENCY" "$OUT" | tee "$OUT/journal.txt"
fi

if part 3; then
echo "== 3. relent call of $BODY_BYTES bytes, -Xmx256m"
BIG_PORT=$(free_port 18480)
echo "+ java bench/BigBody.java $BIG_PORT &" >&2
java bench/BigBody.java "$BIG_PORT" >"$OUT/big.log" 2>&1 &
PIDS+=($!)
wait_for "$BIG_PORT"
run /usr/bin/time -v -o "$OUT/call-time.txt" java -Xmx256m -jar "$JAR" call --timeout 10m \
  --deadline 10m "http://127.0.0.1:$BIG_PORT/big?n=$BODY_BYTES" | wc -c >"$OUT/call-bytes.txt"
fi

{
  if part 1; then
  echo "relent batch vs bare HttpClient, $REQUESTS GETs, concurrency $CONCURRENCY (requests/s):"
  for round in $(seq 1 "$ROUNDS"); do
    bare=$(sed -n 's/.*= \([0-9]*\)\/s.*/\1/p' "$OUT/bare-$round.txt")
    batch=$(batch_rate "$OUT/batch-$round.txt")
    echo "  round $round: bare $bare/s, relent batch $batch/s = $((100 * batch / bare)) %; heap after GC at most $(heap_after_gc "$OUT/batch-gc-$round.log") MiB (-Xmx256m)"
  done
  fi
  if part 2; then
  echo "journaled keyed POSTs: $(batch_rate "$OUT/posts.txt")/s ($WRITES, concurrency $WRITE_CONCURRENCY)"
  echo "  $(head -1 "$OUT/posts.txt")"
  echo "  $(cat "$OUT/journal.txt")"
  fi
  if part 3; then
  echo "relent call, $BODY_BYTES bytes: $(cat "$OUT/call-bytes.txt") bytes on stdout; peak RSS $(awk '/Maximum resident/ {printf "%.0f MB", $6 / 1000}' "$OUT/call-time.txt"); exit $(awk '/Exit status/ {print $3}' "$OUT/call-time.txt")"
  fi
} | tee "$OUT/summary.txt"
