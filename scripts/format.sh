#!/usr/bin/env bash
# Formats every Java file with google-java-format (the build's Spotless check fails otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl "!relent-bom" com.diffplug.spotless:spotless-maven-plugin:2.46.1:apply "$@"
