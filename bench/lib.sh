# Shared by the bench scripts (source it): echo-and-run, free ports, starting and waiting for a
# server, nginx's rate limiter, stopping what was started. Every server binds 127.0.0.1 only.
PIDS=()

run() {
  echo "+ $*" >&2
  "$@"
}
# The first port from $1 on that nothing listens on.
free_port() {
  local port
  for port in $(seq "$1" $(($1 + 200))); do
    if ! ss -Hltn "sport = :$port" | grep -q .; then
      echo "$port"
      return
    fi
  done
  echo "no free port from $1" >&2
  return 1
}
# Starts a server in the background, stdout to $1 and stderr to $2; its PID goes to PIDS and LAST.
serve() {
  local out=$1 err=$2
  shift 2
  echo "+ $* >$out 2>$err &" >&2
  "$@" >"$out" 2>"$err" &
  LAST=$!
  PIDS+=("$LAST")
}
# Writes $1/nginx.conf: limit_req at 10r/s on $2, one zone for the whole server (an account-wide
# limit), in front of a backend on $3 answering 200, as bench/nginx.sh; every request logged to
# $1/logs/access.log with its time ($msec) and status. $4: limit_req's options (" burst=20
# nodelay"), $5: what else goes in the location.
nginx_limit_conf() {
  local dir=$1 port=$2 backend=$3 options=$4 extra=$5
  mkdir -p "$dir/logs"
  cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 256; }
http {
  log_format bench '\$msec \$status \$request_uri';
  access_log $dir/logs/access.log bench;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  limit_req_zone \$server_port zone=limit:1m rate=10r/s;
  limit_req_status 429;
  server {
    listen 127.0.0.1:$backend;
    access_log off;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$port;
    location / { limit_req zone=limit$options; $extra proxy_pass http://127.0.0.1:$backend; }
  }
}
EOF
}
# Waits up to 30 s until something listens on 127.0.0.1:$1.
wait_for() {
  local i
  for i in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  echo "nothing listens on port $1 after 30 s" >&2
  return 1
}
# Stops every process whose PID was added to PIDS.
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  PIDS=()
}
