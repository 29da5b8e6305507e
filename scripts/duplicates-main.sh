#!/usr/bin/env bash
# Counts repeated code in the main code of every module, the way the closing notes measure it:
# copies each module's src/main into one folder (so tests, docs and build files do not count)
# and runs the `duplicates` tool over it. Needs `duplicates` on the PATH (a developer tool, not
# part of the build). Extra arguments go to the tool; the default lists up to 200 pairs.
#   scripts/duplicates-main.sh              # the count and the pairs
#   scripts/duplicates-main.sh --min-lines 8
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v duplicates >/dev/null 2>&1; then
  echo "duplicates-main: the duplicates tool is not on this machine's PATH" >&2
  exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for main in */src/main; do
  module=${main%%/src/main}
  mkdir -p "$dir/$module"
  cp -r "$main" "$dir/$module/"
done
if [ $# -eq 0 ]; then
  set -- --most 200
fi
duplicates --repo "$dir" --seconds 120 "$@"
