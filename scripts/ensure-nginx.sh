#!/usr/bin/env bash
# Makes sure nginx is installed: relent-cli's end-to-end pacing test runs `relent batch` against a
# real rate limiter (nginx limit_req, started by the test on loopback with its own configuration in
# a temporary directory). Installs it from Debian's packages on a machine that lacks it, without
# starting the system's nginx service. Safe to run any number of times.
set -euo pipefail

if [ -x /usr/sbin/nginx ]; then
  exit 0
fi
echo "ensure-nginx: installing nginx from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
# The package would start its service on port 80; the test starts its own server instead.
policy=/usr/sbin/policy-rc.d
made_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  made_policy=true
fi
trap '[ "$made_policy" = true ] && rm -f "$policy"' EXIT
apt-get update -qq
apt-get install -y -qq nginx-light >/dev/null 2>&1 || apt-get install -y -qq nginx >/dev/null
/usr/sbin/nginx -v
