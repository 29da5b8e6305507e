#!/usr/bin/env bash
# The house's figures, to compare before and after a restructuring: code lines per module (main
# sources, blank and comment-only lines left out), the five largest classes, and the package
# dependencies of relent-core and relent-cli as jdeps reads them from the built jars (with the
# pairs of packages that import each other). Needs the jars: ./mvnw -B -q install -DskipTests.
#
#   scripts/house-figures.sh            # all three
#   scripts/house-figures.sh lines      # one of: lines, largest, packages
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
case "$what" in all | lines | largest | packages) ;; *)
  echo "usage: $0 [all|lines|largest|packages]: '$what' is none of them" >&2
  exit 2
  ;;
esac

# Code lines of Java files: not blank, not only a comment (// or a line of a /* */ block).
code_lines() {
  awk '
    /^[[:space:]]*$/ { next }
    inblock { if ($0 ~ /\*\//) inblock = 0; next }
    /^[[:space:]]*\/\*/ { if ($0 !~ /\*\//) inblock = 1; next }
    /^[[:space:]]*\/\// { next }
    { n++ }
    END { print n + 0 }' "$@"
}

if [[ $what == all || $what == lines ]]; then
  echo "== Code lines per module (src/main/java; all lines in brackets) =="
  for pom in */pom.xml; do
    m="${pom%/pom.xml}"
    [[ -d $m/src/main/java ]] || continue
    mapfile -t files < <(find "$m/src/main/java" -name '*.java' | sort)
    ((${#files[@]})) || continue
    printf '%-32s %6s  (%s)\n' "$m" "$(code_lines "${files[@]}")" "$(cat "${files[@]}" | wc -l)"
  done
  echo
fi

if [[ $what == all || $what == largest ]]; then
  echo "== Five largest classes (all lines of the file) =="
  find . -path '*/src/main/java/*.java' -not -path './build/*' -print0 \
    | xargs -0 wc -l | grep -v ' total$' | sort -rn | head -5 \
    | awk '{ sub(".*/src/main/java/", "", $2); printf "%6d  %s\n", $1, $2 }'
  echo
fi

if [[ $what == all || $what == packages ]]; then
  for m in relent-core relent-cli; do
    jar="$(ls "$m"/target/"$m"-*.jar 2>/dev/null | grep -v -e '-tests\.jar$' -e '-sources\.jar$' -e '-javadoc\.jar$' | head -1 || true)"
    if [[ -z $jar ]]; then
      echo "$m: no jar in $m/target; build it first (./mvnw -B -q install -DskipTests)" >&2
      exit 1
    fi
    edges="$(jdeps -verbose:package -filter:none "$jar" 2>/dev/null \
      | awk -v m="$m" '$1 ~ /^dev\.relent/ && $2 == "->" && $3 ~ /^dev\.relent/ && $1 != $3 { print $1, $3 }' \
      | sort -u)"
    echo "== $m: packages and the relent packages each imports (jdeps) =="
    jdeps -verbose:package -filter:none "$jar" 2>/dev/null \
      | awk '$1 ~ /^dev\.relent/ && $2 == "->" { print $1 }' | sort -u | while read -r p; do
      printf '%-34s -> %s\n' "$p" "$(awk -v p="$p" '$1 == p { printf "%s ", $2 }' <<<"$edges")"
    done
    echo "-- pairs that import each other:"
    awk '{ e[$1 " " $2] = 1 } END { for (k in e) { split(k, a, " "); if ((a[2] " " a[1]) in e && a[1] < a[2]) print "   " a[1] " <-> " a[2] } }' <<<"$edges" | sort
    echo
  done
fi
