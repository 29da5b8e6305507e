#!/usr/bin/env bash
# relent batch against a real rate limiter (docs/cli.md, "Against a real rate limiter"): nginx
# limit_req at RATE (10) requests a second with no burst, one zone for the whole server, on
# loopback in front of a backend answering 200, as NginxBatchTest starts it. /strict/ answers a bare
# 429, /hinted/ adds Retry-After: 1. Runs each case once with --concurrency 4 and prints the time,
# the physical limit and the 429s nginx logged. Needs nginx (scripts/ensure-nginx.sh) and
# relent-cli/target/relent.jar (./relent builds it). Results in
# relent-bench/target/bench-results/nginx/.
set -euo pipefail
cd "$(dirname "$0")/.."

RATE=${RATE:-10}
OUT=$PWD/relent-bench/target/bench-results/nginx
# shellcheck source=bench/lib.sh
. bench/lib.sh
NGINX=/usr/sbin/nginx
if [ ! -x "$NGINX" ]; then
  echo "$NGINX is missing: run scripts/ensure-nginx.sh first" >&2
  exit 1
fi
./relent --version >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT/logs"
PORT=$(free_port 18480)
BACKEND=$(free_port $((PORT + 1)))
cat >"$OUT/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $OUT/nginx.pid;
error_log $OUT/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log $OUT/logs/access.log;
  client_body_temp_path $OUT/body;
  proxy_temp_path $OUT/proxy;
  fastcgi_temp_path $OUT/fastcgi;
  uwsgi_temp_path $OUT/uwsgi;
  scgi_temp_path $OUT/scgi;
  limit_req_zone \$server_port zone=strict:1m rate=${RATE}r/s;
  limit_req_zone \$server_port zone=hinted:1m rate=${RATE}r/s;
  limit_req_status 429;
  server {
    listen 127.0.0.1:$BACKEND;
    access_log off;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$PORT;
    location /strict/ { limit_req zone=strict; proxy_pass http://127.0.0.1:$BACKEND; }
    location /hinted/ { limit_req zone=hinted; add_header Retry-After 1 always; proxy_pass http://127.0.0.1:$BACKEND; }
  }
}
EOF
echo "+ $NGINX -p $OUT -c $OUT/nginx.conf &" >&2
"$NGINX" -p "$OUT" -c "$OUT/nginx.conf" >"$OUT/logs/stdout.log" 2>&1 &
PIDS+=($!)
trap cleanup EXIT
wait_for "$PORT"

# case: path, number of GETs, extra flags
one() {
  local path=$1 n=$2
  shift 2
  local in="$OUT/in-${path}-${n}.jsonl" name="${path}-${n}${*:+ $*}"
  : >"$in"
  for i in $(seq 1 "$n"); do
    echo "{\"id\": \"r-$i\", \"url\": \"http://127.0.0.1:$PORT/$path/$i\"}" >>"$in"
  done
  # Let the limiter forget the previous case.
  sleep 2
  : >"$OUT/logs/access.log"
  kill -USR1 "$(cat "$OUT/nginx.pid")"
  sleep 0.2
  local start end status
  start=$(date +%s.%N)
  set +e
  ./relent batch "$in" --concurrency 4 --progress off "$@" >"$OUT/${path}-${n}.out" 2>&1
  status=$?
  set -e
  end=$(date +%s.%N)
  sleep 0.2
  local ok throttled
  ok=$(grep -c "\" 200 " "$OUT/logs/access.log" || true)
  throttled=$(grep -c "\" 429 " "$OUT/logs/access.log" || true)
  awk -v name="$name" -v s="$start" -v e="$end" -v n="$n" -v r="$RATE" -v ok="$ok" -v t="$throttled" \
    -v status="$status" 'BEGIN { printf "%-28s %5.1f s  physical limit %4.1f s  200s %3d  429s %3d (of %d)  exit %d\n",
      name, e - s, (n - 1) / r, ok, t, ok + t, status }'
}

# Arguments pick the cases (path:count[:flags]), as in: bench/nginx.sh strict:150 hinted:20:--rate=8/s
if [ $# -eq 0 ]; then
  set -- strict:30 strict:150 hinted:20:--rate=8/s hinted:40 hinted:150
fi
for case in "$@"; do
  IFS=: read -r path n flags <<<"$case"
  # shellcheck disable=SC2086
  one "$path" "$n" ${flags//=/ }
done
