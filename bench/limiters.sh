#!/usr/bin/env bash
# relent batch against real rate limiters, a matrix of cases (docs/BENCHMARKS.md, "Real limiters:
# bench/limiters.sh"): nginx limit_req (burst 0, Retry-After, burst 20, a known --rate), HAProxy's
# stick-table sliding counter, a limiter that sends rate-limit headers on every answer
# (bench/HeaderLimiter.java, fixed and moving window), and four processes sharing one schedule in
# Redis. Each case runs RUNS times (3); each run gets a limiter of its own, started fresh on a free
# port, so nothing is left of the previous run. A run times `./relent batch IN --concurrency 4
# --progress off` (the JVM's start included) and counts the 200s and 429s at the limiter itself
# (its access log, or its counter), never from relent's summary.
#
#   bench/limiters.sh                      # every case
#   bench/limiters.sh window-fixed         # some cases, by name
#   RUNS=1 bench/limiters.sh nginx-burst0
#   bench/limiters.sh --list               # the cases, with what each one is
#
# Prints a line per run, a median line per case (the median of each column on its own), and at the
# end the medians as a Markdown table. Results in relent-bench/target/bench-results/limiters/, or
# in OUT (an absolute path), replaced at each start: results.tsv (case, run, seconds, minimum, ratio, n_200, n_429, share,
# exit, start_s, exit_s; ratio = seconds / minimum, share = n_429 / every request the limiter saw;
# start_s = from the launch to the first request at the limiter, exit_s = from the last request
# there to the process's exit: the fixed costs no pacing can win back, so (minimum + start_s +
# exit_s) / minimum is the best ratio a run could have; for the fleet, the first process's first
# request and the last one's exit), medians.tsv,
# fleet.tsv (per process of the fleet cases: first and last request at the server, seconds from
# the launch) and runs/CASE/RUN/ with each limiter's configuration and log and relent's output.
#
# Needs nginx (scripts/ensure-nginx.sh), haproxy (scripts/ensure-haproxy.sh), Redis on
# 127.0.0.1:6379 for the fleet cases (scripts/services.sh) and relent-cli/target/relent.jar
# (./relent builds it). Every server binds 127.0.0.1 and is stopped when the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
OUT=${OUT:-$PWD/relent-bench/target/bench-results/limiters}
TSV=$OUT/results.tsv
NGINX=/usr/sbin/nginx
HAPROXY=/usr/sbin/haproxy
REDIS_PORT=6379
# shellcheck source=bench/lib.sh
. bench/lib.sh

CASES=(nginx-burst0 nginx-burst0-retry-after nginx-burst20 nginx-burst0-rate haproxy-sliding
  window-fixed window-moving fleet-nginx-known fleet-nginx-unknown)

describe() {
  case $1 in
    nginx-burst0) echo "nginx limit_req 10r/s, burst 0, a bare 429; 150 GETs" ;;
    nginx-burst0-retry-after) echo "the same with Retry-After: 1 on the 429; 150 GETs" ;;
    nginx-burst20) echo "nginx limit_req 10r/s burst=20 nodelay, a bare 429; 150 GETs" ;;
    nginx-burst0-rate) echo "nginx-burst0 with --rate 570/min given; 150 GETs" ;;
    haproxy-sliding) echo "HAProxy http_req_rate(10s) over 100: 429 with Retry-After: 1; 150 GETs" ;;
    window-fixed) echo "HeaderLimiter fixed window 100 per 10 s, headers on every answer; 250 GETs" ;;
    window-moving) echo "HeaderLimiter moving window 10 per 1 s, headers on every answer; 150 GETs" ;;
    fleet-nginx-known) echo "4 processes x 50 GETs, --shared Redis, --rate 570/min, against nginx-burst0" ;;
    fleet-nginx-unknown) echo "the same fleet without --rate" ;;
    *) return 1 ;;
  esac
}

# The minimum of a case: the earliest moment the limiter lets the last request through, counted
# from the first request (the first one passes at 0). So the JVM's start and everything else the
# client spends make the ratio above 1.
#   nginx limit_req at r/s with burst b (nodelay): the first b+1 pass at once, then one every 1/r s:
#     (n - 1 - b) / r. 150 at 10r/s burst 0: 14.9 s; burst 20: (150 - 21) / 10 = 12.9 s; the fleet's
#     200: 19.9 s. With --rate 570/min the client's own ceiling allows no less than 149 / 9.5 =
#     15.7 s, which the minimum does not include (it is the limiter's).
#   A fixed window of L per W that opens at the first request: L pass at once in each window and
#     the k-th window opens at (k - 1) W, so the last request passes when window ceil(n / L) opens:
#     (ceil(n / L) - 1) W. 250 at 100 per 10 s: the 3rd window, 20 s.
#   A moving window (sliding log) of L per W: the same schedule, L at 0, L at W, ...:
#     (ceil(n / L) - 1) W. 150 at 10 per 1 s: 14 s.
#   HAProxy's http_req_rate(W) is not a log: it keeps the count of the current period (which starts
#     at the entry's first request) and of the previous one, and estimates the last W as
#     current + previous x (time left in the current period / W). A request passes while that is
#     at most L, 429s counting as well. The L of the first period weigh in fully at the start of the
#     second and fade linearly, so the second admits L / W a second, and so does every later one
#     (each admits L by its end, spread out): the last of n > L passes at W + (n - L) W / L = n W / L.
#     150 at 100 per 10 s: 15 s, the sustained rate, though a true sliding log would allow 10 s.
minimum() {
  local n=$1 kind=$2 a=$3 b=$4
  case $kind in
    bucket) awk -v n="$n" -v r="$a" -v b="$b" 'BEGIN { printf "%.1f", (n - 1 - b) / r }' ;;
    window) awk -v n="$n" -v l="$a" -v w="$b" 'BEGIN { k = int((n + l - 1) / l); printf "%.1f", (k - 1) * w }' ;;
    haproxy) awk -v n="$n" -v l="$a" -v w="$b" 'BEGIN { printf "%.1f", n * w / l }' ;;
  esac
}

usage() {
  echo "usage: bench/limiters.sh [--list] [CASE...]  (RUNS=$RUNS runs of each)" >&2
  echo "cases: ${CASES[*]}" >&2
  exit 2
}

selected=()
for arg in "$@"; do
  case $arg in
    --list)
      for c in "${CASES[@]}"; do printf '%-26s %s\n' "$c" "$(describe "$c")"; done
      exit 0
      ;;
    -h | --help) usage ;;
    *)
      if ! describe "$arg" >/dev/null; then
        echo "bench/limiters.sh: no case named '$arg'" >&2
        usage
      fi
      selected+=("$arg")
      ;;
  esac
done
[ ${#selected[@]} -gt 0 ] || selected=("${CASES[@]}")
if ! [[ "$RUNS" =~ ^[1-9][0-9]*$ ]]; then
  echo "bench/limiters.sh: RUNS must be a whole number above 0: $RUNS" >&2
  exit 2
fi

need_nginx=false need_haproxy=false need_redis=false
for c in "${selected[@]}"; do
  case $c in
    nginx-* | fleet-*) need_nginx=true ;;&
    haproxy-*) need_haproxy=true ;;&
    fleet-*) need_redis=true ;;
  esac
done
if $need_nginx && [ ! -x "$NGINX" ]; then
  echo "$NGINX is missing: run scripts/ensure-nginx.sh first" >&2
  exit 1
fi
if $need_haproxy && [ ! -x "$HAPROXY" ]; then
  echo "$HAPROXY is missing: run scripts/ensure-haproxy.sh first" >&2
  exit 1
fi
if $need_redis && ! (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null; then
  echo "no Redis on 127.0.0.1:$REDIS_PORT (the fleet cases share their schedule there):" \
    "run scripts/services.sh first" >&2
  exit 1
fi
if ! ./relent --version >/dev/null || [ ! -f relent-cli/target/relent.jar ]; then
  echo "relent-cli/target/relent.jar is missing and ./relent could not build it" >&2
  exit 1
fi

rm -rf "$OUT/runs" "$TSV" "$OUT/medians.tsv" "$OUT/fleet.tsv"
mkdir -p "$OUT/runs"
printf 'case\trun\tseconds\tminimum\tratio\tn_200\tn_429\tshare\texit\tstart_s\texit_s\n' >"$TSV"
printf 'case\trun\tprocess\tfirst_s\tlast_s\tn_200\tn_429\texit\n' >"$OUT/fleet.tsv"
trap cleanup EXIT

# nginx's limiter on $2 (lib.sh's nginx_limit_conf), in $1; $3: limit_req's options (" burst=20
# nodelay"), $4: what else goes in the location.
start_nginx() {
  local dir=$1 port=$2 backend
  backend=$(free_port $((port + 1)))
  nginx_limit_conf "$dir" "$port" "$backend" "$3" "$4"
  serve "$dir/logs/stdout.log" "$dir/logs/stderr.log" "$NGINX" -p "$dir" -c "$dir/nginx.conf"
  wait_for "$port"
  LIMITER_LOG=$dir/logs/access.log
}

# HAProxy: one stick-table entry for every request (a constant key: the account's limit), its
# http_req_rate over 10 s; over 100 it answers 429 with Retry-After: 1, otherwise 200 itself. The
# log, on stdout, has a line per request: epoch ms, status, path. The time is taken when the
# request's rules run: %Ts and %ms are the accept date, which keep-alive resets to the end of the
# connection's previous response, so an idle connection's next request would look early.
start_haproxy() {
  local dir=$1 port=$2
  cat >"$dir/haproxy.cfg" <<EOF
global
  log stdout format raw local0
defaults
  mode http
  log global
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend limiter
  bind 127.0.0.1:$port
  log-format "%[var(txn.arrival)] %ST %HU"
  stick-table type integer size 1 expire 60s store http_req_rate(10s)
  http-request set-var(txn.arrival) date(0,ms)
  http-request track-sc0 int(1)
  http-request return status 429 content-type text/plain string "too many requests\n" hdr Retry-After 1 if { sc_http_req_rate(0) gt 100 }
  http-request return status 200 content-type text/plain string "ok\n"
EOF
  serve "$dir/haproxy.log" "$dir/haproxy.err" "$HAPROXY" -db -f "$dir/haproxy.cfg"
  wait_for "$port"
  LIMITER_LOG=$dir/haproxy.log
}

start_header_limiter() {
  local dir=$1 port=$2 mode=$3 limit=$4 window_ms=$5
  serve "$dir/limiter.log" "$dir/limiter.err" java bench/HeaderLimiter.java --port "$port" \
    --mode "$mode" --limit "$limit" --window-ms "$window_ms"
  wait_for "$port"
  LIMITER_LOG=$dir/limiter.log
}

# The body of GET http://127.0.0.1:$1$2, through bash alone.
http_get() {
  local body
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  body=$(cat <&3)
  exec 3>&-
  printf '%s\n' "${body#*$'\r\n\r\n'}"
}

# Writes n request lines for http://127.0.0.1:PORT/PREFIXi with ids IDPREFIXi.
requests() {
  local file=$1 n=$2 port=$3 prefix=$4 ids=$5 i
  for ((i = 1; i <= n; i++)); do
    printf '{"id": "%s%d", "url": "http://127.0.0.1:%d/%s%d"}\n' "$ids" "$i" "$port" "$prefix" "$i"
  done >"$file"
}

# Counts in a log whose lines are "TIME STATUS PATH" (every limiter's here): "n_200 n_429 total".
# Only requests for a path count: HAProxy logs wait_for's bare connection as a 400 <BADREQ>.
count_log() {
  awk '$2 ~ /^[1-5][0-9][0-9]$/ && $3 ~ /^\// { t++; if ($2 == 200) ok++; if ($2 == 429) no++ }
    END { printf "%d %d %d\n", ok, no, t }' "$1"
}

# Records one run: prints its line and appends it to results.tsv. $9 and $10, when given, are the
# run's start_s and exit_s.
record() {
  local name=$1 run=$2 seconds=$3 min=$4 ok=$5 no=$6 total=$7 status=$8 first=${9:-} tail=${10:-}
  awk -v c="$name" -v r="$run" -v s="$seconds" -v m="$min" -v ok="$ok" -v no="$no" -v t="$total" \
    -v e="$status" -v f="$first" -v x="$tail" -v tsv="$TSV" 'BEGIN {
      share = t > 0 ? no / t : 0
      fixed = f == "" ? "" : sprintf("  start %.2f s  exit %.2f s (best %.2fx)", f, x, (m + f + x) / m)
      printf "%-26s run %-3d %6.2f s  min %5.1f s  %5.2fx  200s %4d  429s %4d (%5.1f%%)  exit %d%s\n",
        c, r, s, m, s / m, ok, no, 100 * share, e, fixed
      printf "%s\t%d\t%.2f\t%.1f\t%.3f\t%d\t%d\t%.6f\t%d\t%s\t%s\n", c, r, s, m, s / m, ok, no, share,
        e, f, x >> tsv
    }'
}

# From a limiter's log ("TIME STATUS PATH", TIME in epoch seconds or, HeaderLimiter's, epoch
# milliseconds) and the run's launch and exit (epoch seconds): "start_s exit_s".
fixed_costs() {
  awk -v s="$2" -v e="$3" '$2 ~ /^[1-5][0-9][0-9]$/ && $3 ~ /^\/[^_]/ {
      t = $1 > 1e11 ? $1 / 1000 : $1
      if (n++ == 0 || t < first) first = t
      if (t > last) last = t
    } END { if (n) printf "%.2f %.2f\n", first - s, e - last; else print "" }' "$1"
}

elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.2f", e - s }'; }

# One timed relent batch against the limiter on $port; sets STATUS and SECONDS_TAKEN.
timed_batch() {
  local dir=$1
  shift
  local start end
  echo "+ ./relent batch $* --concurrency 4 --progress off --out $dir/results.jsonl" >&2
  start=$EPOCHREALTIME
  LAUNCHED=$start
  set +e
  ./relent batch "$@" --concurrency 4 --progress off --out "$dir/results.jsonl" \
    >"$dir/relent.out" 2>"$dir/relent.err"
  STATUS=$?
  set -e
  end=$EPOCHREALTIME
  EXITED=$end
  SECONDS_TAKEN=$(elapsed "$start" "$end")
}

# One run of a single-process case.
run_single() {
  local name=$1 run=$2 dir=$3 port n min ok no total flags=() first tail
  port=$(free_port 18600)
  case $name in
    nginx-burst0) start_nginx "$dir" "$port" "" "" ;;
    nginx-burst0-retry-after) start_nginx "$dir" "$port" "" "add_header Retry-After 1 always;" ;;
    nginx-burst20) start_nginx "$dir" "$port" " burst=20 nodelay" "" ;;
    nginx-burst0-rate)
      start_nginx "$dir" "$port" "" ""
      flags=(--rate 570/min)
      ;;
    haproxy-sliding) start_haproxy "$dir" "$port" ;;
    window-fixed) start_header_limiter "$dir" "$port" fixed 100 10000 ;;
    window-moving) start_header_limiter "$dir" "$port" moving 10 1000 ;;
  esac
  case $name in
    nginx-burst20) min=$(minimum 150 bucket 10 20) n=150 ;;
    nginx-*) min=$(minimum 150 bucket 10 0) n=150 ;;
    haproxy-sliding) min=$(minimum 150 haproxy 100 10) n=150 ;;
    window-fixed) min=$(minimum 250 window 100 10) n=250 ;;
    window-moving) min=$(minimum 150 window 10 1) n=150 ;;
  esac
  requests "$dir/in.jsonl" "$n" "$port" "path/" "r-"
  # The server's own start (a JVM for the header limiter) is over before the clock starts.
  sleep 1
  timed_batch "$dir" "$dir/in.jsonl" "${flags[@]}"
  case $name in
    window-*)
      read -r ok no total < <(http_get "$port" /__counts |
        awk '$1 == 200 { ok = $2 } $1 == 429 { no = $2 } END { print ok + 0, no + 0, ok + no }')
      ;;
    *)
      sleep 0.2
      read -r ok no total < <(count_log "$LIMITER_LOG")
      ;;
  esac
  cleanup
  read -r first tail < <(fixed_costs "$LIMITER_LOG" "$LAUNCHED" "$EXITED")
  record "$name" "$run" "$SECONDS_TAKEN" "$min" "$ok" "$no" "$total" "$STATUS" "$first" "$tail"
}

# One run of a fleet case: 4 processes x 50 GETs of one endpoint, /r/{id} (process K's ids are
# K1 to K50, so the limiter's log tells them apart by /r/K), one account in Redis, started at once;
# timed from the first launch to the last exit.
run_fleet() {
  local name=$1 run=$2 dir=$3 port account k pids=() codes=() start end status=0 ok no total before
  local first tail
  local flags=(--concurrency 2 --shared "redis://127.0.0.1:$REDIS_PORT")
  port=$(free_port 18600)
  start_nginx "$dir" "$port" "" ""
  account="bench-$name-$run-${EPOCHSECONDS}-$$"
  flags+=(--account "$account")
  [ "$name" = fleet-nginx-known ] && flags+=(--rate 570/min)
  for k in 1 2 3 4; do
    requests "$dir/in-p$k.jsonl" 50 "$port" "r/$k" "p$k-r-"
  done
  sleep 1
  # The four go to PIDS too, so that an interrupted run stops them; they leave it once waited for.
  before=${#PIDS[@]}
  echo "+ 4 x ./relent batch $dir/in-pK.jsonl ${flags[*]} --progress off --out $dir/results-pK.jsonl &" >&2
  start=$EPOCHREALTIME
  for k in 1 2 3 4; do
    ./relent batch "$dir/in-p$k.jsonl" "${flags[@]}" --progress off \
      --out "$dir/results-p$k.jsonl" >"$dir/relent-p$k.out" 2>"$dir/relent-p$k.err" &
    pids+=($!)
    PIDS+=($!)
  done
  for k in 0 1 2 3; do
    set +e
    wait "${pids[$k]}"
    codes+=($?)
    set -e
  done
  end=$EPOCHREALTIME
  PIDS=("${PIDS[@]:0:before}")
  sleep 0.2
  for k in 0 1 2 3; do [ "${codes[$k]}" -gt "$status" ] && status=${codes[$k]}; done
  read -r ok no total < <(count_log "$LIMITER_LOG")
  cleanup
  read -r first tail < <(fixed_costs "$LIMITER_LOG" "$start" "$end")
  record "$name" "$run" "$(elapsed "$start" "$end")" "$(minimum 200 bucket 10 0)" "$ok" "$no" \
    "$total" "$status" "$first" "$tail"
  for k in 1 2 3 4; do
    awk -v p="/r/$k" -v s="$start" -v c="$name" -v r="$run" -v k="$k" -v e="${codes[$((k - 1))]}" \
      -v tsv="$OUT/fleet.tsv" 'index($3, p) == 1 {
        if (n++ == 0 || $1 < first) first = $1
        if ($1 > last) last = $1
        if ($2 == 200) ok++
        if ($2 == 429) no++
      } END {
        printf "    p%d  first %6.2f s  last %6.2f s  200s %3d  429s %3d  exit %d\n",
          k, first - s, last - s, ok, no, e
        printf "%s\t%d\tp%d\t%.2f\t%.2f\t%d\t%d\t%d\n", c, r, k, first - s, last - s, ok, no, e >> tsv
      }' "$LIMITER_LOG"
  done
}

# The median of column $2 over the runs of case $1.
median() {
  awk -F'\t' -v c="$1" -v k="$2" '$1 == c { print $k }' "$TSV" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

summarize() {
  local name=$1 seconds min ratio no share exits
  seconds=$(median "$name" 3) min=$(median "$name" 4) ratio=$(median "$name" 5)
  no=$(median "$name" 7) share=$(median "$name" 8)
  exits=$(awk -F'\t' -v c="$name" '$1 == c { printf "%s%s", sep, $9; sep = "," }' "$TSV")
  awk -v c="$name" -v s="$seconds" -v m="$min" -v r="$ratio" -v no="$no" -v sh="$share" \
    -v e="$exits" -v tsv="$OUT/medians.tsv" 'BEGIN {
      printf "%-26s median  %6.2f s  min %5.1f s  %5.2fx  429s %6.1f (%5.1f%%)  exits %s\n",
        c, s, m, r, no, 100 * sh, e
      printf "%s\t%.2f\t%.1f\t%.3f\t%.1f\t%.6f\t%s\n", c, s, m, r, no, sh, e >> tsv
    }'
}

printf 'case\tseconds\tminimum\tratio\tn_429\tshare\texits\n' >"$OUT/medians.tsv"
for name in "${selected[@]}"; do
  echo "== $name: $(describe "$name"), $RUNS runs" >&2
  for ((run = 1; run <= RUNS; run++)); do
    dir=$OUT/runs/$name/$run
    mkdir -p "$dir"
    case $name in
      fleet-*) run_fleet "$name" "$run" "$dir" ;;
      *) run_single "$name" "$run" "$dir" ;;
    esac
  done
  summarize "$name"
done

echo
echo "Medians of $RUNS runs at $(git rev-parse --short HEAD 2>/dev/null || echo '?'):"
echo "| case | time | minimum | ratio | 429s | 429 share | exits |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
awk -F'\t' 'NR > 1 { printf "| `%s` | %.1f s | %.1f s | %.2fx | %g | %.1f %% | %s |\n",
  $1, $2, $3, $4, $5, 100 * $6, $7 }' "$OUT/medians.tsv"
