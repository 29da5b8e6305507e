#!/usr/bin/env bash
# Makes sure headless Chromium is installed: the report tests (relent-charts, relent-sim, relent-cli)
# render the HTML reports in it (Debian's package, /usr/bin/chromium). Installs it from Debian's
# packages on a machine that lacks it. Safe to run any number of times.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "ensure-chromium: installing chromium from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
