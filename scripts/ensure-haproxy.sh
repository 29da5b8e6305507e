#!/usr/bin/env bash
# Makes sure HAProxy is installed: bench/limiters.sh runs `relent batch` against HAProxy's
# stick-table rate limit (started by the script on loopback with its own configuration). Installs
# it from Debian's packages on a machine that lacks it, without starting the system's haproxy
# service. Safe to run any number of times.
set -euo pipefail

if [ -x /usr/sbin/haproxy ]; then
  exit 0
fi
echo "ensure-haproxy: installing haproxy from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
# The package would start its service; the benchmark starts its own server instead.
policy=/usr/sbin/policy-rc.d
made_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  made_policy=true
fi
trap '[ "$made_policy" = true ] && rm -f "$policy"' EXIT
apt-get update -qq
apt-get install -y -qq haproxy >/dev/null
/usr/sbin/haproxy -v | head -n 1
