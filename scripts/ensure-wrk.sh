#!/usr/bin/env bash
# Makes sure wrk is installed: bench/proxy.sh measures relent proxy's overhead with it against a
# fast backend on loopback. Installs it from Debian's packages on a machine that lacks it. Safe to
# run any number of times.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
echo "ensure-wrk: installing wrk from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq wrk >/dev/null
wrk --version 2>&1 | head -n 1 || true
