# Shared by the bench scripts (source it): echo-and-run, free ports, waiting for a server,
# stopping what was started. Every server binds 127.0.0.1 only.
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
