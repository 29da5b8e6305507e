#!/usr/bin/env bash
# Runs one long fuzzing session per named @FuzzTest class and prints what libFuzzer reported.
#
#   scripts/fuzz.sh [-n RUNS] [-t SECONDS] CLASS...      e.g. scripts/fuzz.sh RetryAfterFuzzTest
#   scripts/fuzz.sh -n 10000000 -t 7200 all              every fuzz test in the repository
#
# RUNS (default 10 000 000) and SECONDS (default 3600) cap each session: whichever comes first.
# Each session's log is fuzz-logs/<Class>.log under the module's target/ folder; the corpus grows in
# <module>/.cifuzz-corpus/ and is reused by the next session. Temporary files (the batch journal
# target writes a journal per input) go to /dev/shm when it exists, so the disk is not the limit.
# A finding ends its session with a non-zero exit; the failing input is written to the test's
# inputs folder under src/test/resources, for the next normal build to replay.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10000000
seconds=3600
while getopts "n:t:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    t) seconds="$OPTARG" ;;
    *) echo "usage: scripts/fuzz.sh [-n RUNS] [-t SECONDS] CLASS... | all" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [-n RUNS] [-t SECONDS] CLASS... | all" >&2
  exit 2
fi
case "$runs$seconds" in
  *[!0-9]*) echo "fuzz.sh: -n and -t take whole numbers (got '$runs' and '$seconds')" >&2; exit 2 ;;
esac

if [ "$1" = all ]; then
  set -- $(grep -rl --include='*.java' '@FuzzTest' -- */src/test/java | xargs -n1 basename | sed 's/\.java$//' | sort)
fi

tmp=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then tmp=/dev/shm; fi

status=0
printf '%-24s %12s %9s %10s %8s %s\n' target executions seconds 'exec/s' corpus result
for cls in "$@"; do
  file=$(grep -rl --include="$cls.java" '@FuzzTest' -- */src/test/java || true)
  if [ -z "$file" ]; then
    echo "fuzz.sh: no @FuzzTest class named $cls (try: all, or one of: $(grep -rl --include='*.java' '@FuzzTest' -- */src/test/java | xargs -n1 basename | sed 's/\.java$//' | tr '\n' ' '))" >&2
    exit 2
  fi
  module=${file%%/*}
  mkdir -p "$module/target/fuzz-logs"
  log="$module/target/fuzz-logs/$cls.log"
  result=ok
  if ! JAZZER_FUZZ=1 ./mvnw -o -B -pl "$module" -am test \
      -Dtest="$cls" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djacoco.skip=true -DskipLincheck -Dspotless.check.skip=true \
      -Djava.io.tmpdir="$tmp" \
      -Djazzer.internal.arg.0=fuzz \
      -Djazzer.internal.arg.1="-runs=$runs" \
      -Djazzer.internal.arg.2="-max_total_time=$seconds" >"$log" 2>&1; then
    result="FAILED (see $log)"
    status=1
  fi
  done_line=$(grep -a -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 || true)
  execs=$(echo "$done_line" | awk '{print $2}')
  secs=$(echo "$done_line" | awk '{print $5}')
  corpus=$(grep -a -o 'corp: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  rate=-
  if [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then rate=$((execs / secs)); fi
  printf '%-24s %12s %9s %10s %8s %s\n' "$cls" "${execs:--}" "${secs:--}" "$rate" "${corpus:--}" "$result"
done
exit $status
