#!/usr/bin/env bash
# Starts the local services the tests talk to, when they are not already up: Redis on
# 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432. Installs them from Debian's packages
# on a machine that lacks them. Creates the PostgreSQL role `relent` (password `relent`) and
# its database `relent_test`, which relent-postgres's tests use, when they are missing.
# Safe to run any number of times.
set -uo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done
  return 1
}

ensure_pkg() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "services: installing $2 from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
}

if ! port_open 6379; then
  ensure_pkg redis-server redis-server
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 && echo "services: started Redis" || echo "services: Redis did not start" >&2
fi

if ! port_open 5432; then
  ensure_pkg pg_ctlcluster postgresql
  if ls /etc/postgresql >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  fi
  wait_port 5432 && echo "services: started PostgreSQL" || echo "services: PostgreSQL did not start" >&2
fi

# As the postgres OS user, whom the cluster lets in by peer (or trust) authentication on its
# local socket; the SQL comes on stdin, so it needs no second layer of shell quoting. Each step
# asks first, so a rerun changes nothing.
as_postgres() { (cd / && su postgres -c "psql -X -v ON_ERROR_STOP=1 -qtA") <<<"$1"; }
if port_open 5432 && id postgres >/dev/null 2>&1; then
  if [ "$(as_postgres "SELECT 1 FROM pg_roles WHERE rolname = 'relent'")" != 1 ]; then
    as_postgres "CREATE ROLE relent LOGIN PASSWORD 'relent'" &&
      echo "services: created PostgreSQL role relent"
  fi
  if [ "$(as_postgres "SELECT 1 FROM pg_database WHERE datname = 'relent_test'")" != 1 ]; then
    as_postgres "CREATE DATABASE relent_test OWNER relent" &&
      echo "services: created PostgreSQL database relent_test"
  fi
fi
exit 0
