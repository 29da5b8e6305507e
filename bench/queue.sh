#!/usr/bin/env bash
# A 1 000 000-line queue in a 256 MiB heap (docs/BENCHMARKS.md, "Memory and the journal"):
# relent batch with -Xmx256m and --journal on a queue of LINES GETs (1 000 000) against the mock
# server on loopback, stopped by --batch-deadline (DEADLINE, 60s) so that it ends in minutes: every
# line is still read, checked, taken and recorded (sent, or journaled as not-sent and written to
# --out). Then the same command resumes from the journal of LINES records, in the same heap.
# Prints the largest heap left after a GC (-Xlog:gc) of each run. Results in
# relent-bench/target/bench-results/queue/. Needs relent-cli/target/relent.jar (bench/memory.sh,
# or ./mvnw -pl relent-cli -am package -DskipTests). Every server binds 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

LINES=${LINES:-1000000}
DEADLINE=${DEADLINE:-60s}
CONCURRENCY=${CONCURRENCY:-16}
OUT=relent-bench/target/bench-results/queue
# shellcheck source=bench/lib.sh
. bench/lib.sh
JAR=relent-cli/target/relent.jar
PORT=$(free_port 18380)
rm -rf "$OUT"
mkdir -p "$OUT"

echo "+ java -Xmx1g -cp $JAR dev.relent.mockserver.MockServerMain bench/memory-scenario.json --host 127.0.0.1 --port $PORT &" >&2
java -Xmx1g -cp "$JAR" dev.relent.mockserver.MockServerMain bench/memory-scenario.json \
  --host 127.0.0.1 --port "$PORT" >"$OUT/mock.log" 2>&1 &
PIDS+=($!)
trap cleanup EXIT
wait_for "$PORT"

seq 1 "$LINES" | awk -v b="http://127.0.0.1:$PORT" \
  '{printf "{\"id\":\"r-%d\",\"url\":\"%s/items/%d\"}\n", $1, b, $1}' >"$OUT/queue.jsonl"

for run in 1 2; do
  echo "+ java -Xmx256m -Xlog:gc:file=$OUT/gc-$run.log -jar $JAR batch $OUT/queue.jsonl --rate 1000000/s --concurrency $CONCURRENCY --batch-deadline ${DEADLINE} --progress off --journal $OUT/queue.journal --out $OUT/results.jsonl" >&2
  set +e
  /usr/bin/time -v -o "$OUT/time-$run.txt" java -Xmx256m -Xlog:gc:file="$OUT/gc-$run.log" -jar "$JAR" \
    batch "$OUT/queue.jsonl" --rate 1000000/s --concurrency "$CONCURRENCY" \
    --batch-deadline "${DEADLINE}" --progress off --journal "$OUT/queue.journal" \
    --out "$OUT/results.jsonl" >"$OUT/run-$run.txt" 2>"$OUT/run-$run.err"
  code=$?
  set -e
  heap=$(grep -o '[0-9]*M->[0-9]*M' "$OUT/gc-$run.log" | sed 's/.*->//; s/M//' | sort -n | tail -1)
  echo "run $run: exit $code; $(head -1 "$OUT/run-$run.txt"); heap after GC at most ${heap} MiB (-Xmx256m); peak RSS $(awk '/Maximum resident/ {printf "%.0f MB", $6 / 1000}' "$OUT/time-$run.txt"); wall $(awk '/Elapsed \(wall/ {print $8}' "$OUT/time-$run.txt")" \
    | tee -a "$OUT/summary.txt"
  grep -m1 "resuming" "$OUT/run-$run.err" | tee -a "$OUT/summary.txt" || true
done
echo "results lines: $(wc -l <"$OUT/results.jsonl") (one per line of the queue); journal: $(wc -l <"$OUT/queue.journal") records" \
  | tee -a "$OUT/summary.txt"
