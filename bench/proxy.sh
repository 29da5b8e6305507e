#!/usr/bin/env bash
# relent proxy's numbers (docs/BENCHMARKS.md, "relent proxy: bench/proxy.sh"), four cases:
#
#   overhead   a fast backend (nginx `return 200`) hit directly and through the proxy with
#              `wrk -t2 -c64 -d10s`, in one run, alternating; then both at about 1 000 req/s (wrk
#              with a 10 ms delay per request on 10 connections) for the p99 the proxy adds.
#   limiter    150 GETs through the proxy with `xargs -P8 curl` (no --retry) against nginx
#              limit_req 10r/s burst 0: the time against the minimum (14.9 s), every answer the
#              client got, and the 429s at nginx (its access log, never the proxy's word).
#   fleet      two proxies with --shared redis://127.0.0.1:6379 (one --account), two curl loops of
#              75 GETs each (xargs -P4 each) at the same time, against the same nginx limiter.
#   memory     a 1 GiB answer (bench/BigBody.java) through a proxy started with -Xmx256m, to
#              curl; the bytes curl got and the proxy's peak RSS (VmHWM). Then 512 MiB to a curl
#              that reads at most 32 MB/s (--limit-rate) from an upstream that sends as fast as
#              it can: the proxy must hold the upstream back, or its 256 MiB (heap and direct
#              buffers alike) would overflow.
#
#   bench/proxy.sh                 # every case
#   bench/proxy.sh limiter fleet   # some, by name
#   PROXY_FLAGS='--concurrency 4' bench/proxy.sh limiter   # more relent proxy flags, every case
#
# Prints what it runs and a summary; results in relent-bench/target/bench-results/proxy/ (or OUT,
# an absolute path): summary.txt, and runs/CASE/ with each server's configuration, logs and the
# proxy's output. Each proxy is started (and its JVM warmed where it says so) before the clock
# starts: a sidecar runs for days, its start is not part of a request.
#
# Needs nginx (scripts/ensure-nginx.sh), wrk (scripts/ensure-wrk.sh), curl, Redis on
# 127.0.0.1:6379 for the fleet (scripts/services.sh) and relent-cli/target/relent.jar (./relent
# builds it). Every server binds 127.0.0.1 and is stopped when the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-$PWD/relent-bench/target/bench-results/proxy}
NGINX=/usr/sbin/nginx
JAR=relent-cli/target/relent.jar
REDIS_PORT=6379
# shellcheck source=bench/lib.sh
. bench/lib.sh

CASES=(overhead limiter fleet memory)
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${CASES[@]}")
for c in "${selected[@]}"; do
  case $c in
    overhead | limiter | fleet | memory) ;;
    *)
      echo "bench/proxy.sh: no case named '$c'; cases: ${CASES[*]}" >&2
      exit 2
      ;;
  esac
done
[ -x "$NGINX" ] || { echo "$NGINX is missing: run scripts/ensure-nginx.sh first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is missing: run scripts/ensure-wrk.sh first" >&2; exit 1; }
if ! ./relent --version >/dev/null || [ ! -f "$JAR" ]; then
  echo "$JAR is missing and ./relent could not build it" >&2
  exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT/runs"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
trap cleanup EXIT

say() {
  echo "$*" | tee -a "$SUMMARY"
}

# nginx on $2: `return 200` at every path when $3 is "fast"; else limit_req 10r/s burst 0 (one zone
# for the whole server: an account-wide limit) in front of such a backend, logging time and status.
start_nginx() {
  local dir=$1 port=$2 kind=$3 backend
  mkdir -p "$dir/logs"
  if [ "$kind" = fast ]; then
    cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$port;
    location / { return 200 "ok\n"; }
  }
}
CONF
  else
    backend=$(free_port $((port + 1)))
    nginx_limit_conf "$dir" "$port" "$backend" "" ""
  fi
  serve "$dir/logs/stdout.log" "$dir/logs/stderr.log" "$NGINX" -p "$dir" -c "$dir/nginx.conf"
  wait_for "$port"
}

# Starts relent proxy on $2 in front of $3 with the extra flags after them; its PID in LAST.
start_proxy() {
  local dir=$1 port=$2 upstream=$3
  shift 3
  mkdir -p "$dir"
  serve "$dir/proxy-$port.out" "$dir/proxy-$port.err" java "${PROXY_JVM[@]}" -jar "$JAR" proxy \
    --listen "127.0.0.1:$port" --upstream "$upstream" "$@" ${PROXY_FLAGS:-}
  wait_for "$port"
}
PROXY_JVM=(-Xmx256m)

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# wrk's Requests/sec, and a latency percentile in ms.
rps() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }
pct() {
  awk -v p="$2" '$1 == p {
    v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
    if (u == "us") v /= 1000; else if (u == "s") v *= 1000
    printf "%.3f", v }' "$1"
}

case_overhead() {
  local dir=$OUT/runs/overhead backend proxy
  mkdir -p "$dir"
  backend=$(free_port 18600)
  start_nginx "$dir/nginx" "$backend" fast
  proxy=$(free_port 18650)
  start_proxy "$dir" "$proxy" "http://127.0.0.1:$backend" --quiet
  printf 'function delay()\n  return 10\nend\n' >"$dir/paced.lua"
  # Warm the proxy's JIT: its steady state is what a sidecar runs at.
  run wrk -t2 -c64 -d10s "http://127.0.0.1:$proxy/" >"$dir/warmup.txt"
  run wrk -t2 -c64 -d10s --latency "http://127.0.0.1:$backend/" >"$dir/direct.txt"
  run wrk -t2 -c64 -d10s --latency "http://127.0.0.1:$proxy/" >"$dir/proxied.txt"
  run wrk -t2 -c10 -d10s --latency -s "$dir/paced.lua" "http://127.0.0.1:$backend/" >"$dir/direct-1000.txt"
  run wrk -t2 -c10 -d10s --latency -s "$dir/paced.lua" "http://127.0.0.1:$proxy/" >"$dir/proxied-1000.txt"
  local d p share d99 p99
  d=$(rps "$dir/direct.txt")
  p=$(rps "$dir/proxied.txt")
  share=$(awk -v d="$d" -v p="$p" 'BEGIN { printf "%.0f", 100 * p / d }')
  d99=$(pct "$dir/direct-1000.txt" 99%)
  p99=$(pct "$dir/proxied-1000.txt" 99%)
  say "overhead, wrk -t2 -c64 -d10s against nginx return 200 (one run, after a 10 s warm-up):"
  say "  direct   $d req/s (p99 $(pct "$dir/direct.txt" 99%) ms)"
  say "  proxied  $p req/s (p99 $(pct "$dir/proxied.txt" 99%) ms) = $share % of direct (goal >= 50 %)"
  say "  at about 1 000 req/s (wrk -c10, 10 ms delay a request): direct $(rps "$dir/direct-1000.txt") req/s p99 $d99 ms," \
    "proxied $(rps "$dir/proxied-1000.txt") req/s p99 $p99 ms; added $(awk -v a="$p99" -v b="$d99" 'BEGIN { printf "%.3f", a - b }') ms (goal <= 1 ms)"
  cleanup
}

# Runs N GETs through the proxy at $1 with xargs -P$3 curl (no --retry), ids from $4; prints the
# status codes the client got, one a line, to $5.
curl_loop() {
  local base=$1 n=$2 parallel=$3 from=$4 out=$5
  seq "$from" $((from + n - 1)) | xargs -P"$parallel" -I{} curl -s -o /dev/null \
    -w '%{http_code}\n' --max-time 120 "$base/item/{}" >"$out"
}

count() { grep -c "^$2\$" "$1" || true; }
at_nginx() { awk -v s="$2" '$2 == s' "$1" | wc -l; }

case_limiter() {
  local dir=$OUT/runs/limiter port proxy t0 t1 secs
  mkdir -p "$dir"
  port=$(free_port 18700)
  start_nginx "$dir/nginx" "$port" limited
  proxy=$(free_port 18750)
  start_proxy "$dir" "$proxy" "http://127.0.0.1:$port"
  t0=$(now)
  run curl_loop "http://127.0.0.1:$proxy" 150 8 1 "$dir/client.txt"
  t1=$(now)
  secs=$(seconds "$t0" "$t1")
  curl -s "http://127.0.0.1:$proxy/__relent/metrics" >"$dir/metrics.txt" || true
  local n200 n429 a200 a429
  n200=$(count "$dir/client.txt" 200)
  a200=$(at_nginx "$dir/nginx/logs/access.log" 200)
  a429=$(at_nginx "$dir/nginx/logs/access.log" 429)
  say "limiter, 150 GETs via relent proxy, xargs -P8 curl (no --retry), nginx limit_req 10r/s burst 0:"
  say "  $secs s = $(awk -v s="$secs" 'BEGIN { printf "%.2f", s / 14.9 }') x the minimum 14.9 s (goal <= 1.15);" \
    "client: $n200 of 150 got 200 (goal: all); nginx: $a200 x 200, $a429 x 429" \
    "= $(awk -v a="$a429" -v b="$a200" 'BEGIN { printf "%.1f", 100 * a / (a + b) }') % 429s (goal <= 5 %)"
  cleanup
}

case_fleet() {
  local dir=$OUT/runs/fleet port p1 p2 t0 t1 secs account
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null; then
    echo "no Redis on 127.0.0.1:$REDIS_PORT: run scripts/services.sh first" >&2
    exit 1
  fi
  mkdir -p "$dir"
  port=$(free_port 18800)
  start_nginx "$dir/nginx" "$port" limited
  account="bench-proxy-$$-$(date +%s)"
  p1=$(free_port 18850)
  start_proxy "$dir" "$p1" "http://127.0.0.1:$port" --shared "redis://127.0.0.1:$REDIS_PORT" --account "$account"
  p2=$(free_port $((p1 + 1)))
  start_proxy "$dir" "$p2" "http://127.0.0.1:$port" --shared "redis://127.0.0.1:$REDIS_PORT" --account "$account"
  t0=$(now)
  curl_loop "http://127.0.0.1:$p1" 75 4 1 "$dir/client-1.txt" &
  local c1=$!
  curl_loop "http://127.0.0.1:$p2" 75 4 1001 "$dir/client-2.txt" &
  local c2=$!
  wait "$c1" "$c2"
  t1=$(now)
  secs=$(seconds "$t0" "$t1")
  local n200 a200 a429
  n200=$(($(count "$dir/client-1.txt" 200) + $(count "$dir/client-2.txt" 200)))
  a200=$(at_nginx "$dir/nginx/logs/access.log" 200)
  a429=$(at_nginx "$dir/nginx/logs/access.log" 429)
  say "fleet, two proxies --shared redis (account $account), two curl loops of 75 GETs (xargs -P4 each):"
  say "  $secs s = $(awk -v s="$secs" 'BEGIN { printf "%.2f", s / 14.9 }') x the minimum 14.9 s (goal <= 1.15);" \
    "client: $n200 of 150 got 200; nginx: $a200 x 200, $a429 x 429" \
    "= $(awk -v a="$a429" -v b="$a200" 'BEGIN { printf "%.1f", 100 * a / (a + b) }') % 429s (goal <= 5 %)"
  cleanup
}

case_memory() {
  local dir=$OUT/runs/memory big proxy pid result hwm
  mkdir -p "$dir"
  big=$(free_port 18900)
  serve "$dir/big.out" "$dir/big.err" java bench/BigBody.java "$big"
  wait_for "$big"
  proxy=$(free_port 18950)
  start_proxy "$dir" "$proxy" "http://127.0.0.1:$big" --timeout 10m --deadline 10m
  pid=$LAST
  result=$(run curl -s -o /dev/null -w '%{size_download} %{http_code}' --max-time 600 \
    "http://127.0.0.1:$proxy/big?n=1073741824")
  hwm=$(awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
  say "memory, a 1 GiB answer through relent proxy started with -Xmx256m, to curl:"
  say "  curl got ${result% *} bytes, status ${result#* } (goal: 1073741824, 200); proxy peak RSS $hwm MB"
  local t0 t1
  t0=$(now)
  result=$(run curl -s -o /dev/null --limit-rate 32M -w '%{size_download} %{http_code}' \
    --max-time 600 "http://127.0.0.1:$proxy/big?n=536870912")
  t1=$(now)
  hwm=$(awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
  say "  a slow reader (curl --limit-rate 32M), 512 MiB: got ${result% *} bytes, status ${result#* }" \
    "in $(seconds "$t0" "$t1") s; proxy peak RSS since its start $hwm MB"
  cleanup
}

say "bench/proxy.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(java -version 2>&1 | head -n 1), load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD)"
for c in "${selected[@]}"; do
  "case_$c"
done
say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
