#!/usr/bin/env bash
# Formats every Java file with google-java-format (the build's Spotless check fails otherwise).
# Extra arguments go to Maven, e.g. `scripts/format.sh -pl relent-core`.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(-pl '!relent-bom')
for arg in "$@"; do
  case "$arg" in -pl|--projects|-pl*) modules=() ;; esac
done
./mvnw -B -q "${modules[@]}" com.diffplug.spotless:spotless-maven-plugin:2.46.1:apply "$@"
