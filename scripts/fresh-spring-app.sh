#!/usr/bin/env bash
# A Spring Boot application made from docs/spring-boot.md alone, outside the build: the
# dependency, properties and class of "A fresh application" and the properties of "Health", in a
# project of its own on spring-boot-starter-parent with the webmvc and actuator starters. A
# downstream that answers every GET with 503 opens the client's breaker; the script then checks
# that /actuator/health still answers 200 with the relent component UP and the client DOWN in its
# details, and that /actuator/metrics lists Relent's meters. Exit 0 when all holds, 1 otherwise.
#
# Needs the project installed in the local repository first (./mvnw -B install -DskipTests) and
# python3 for the downstream. Usage: scripts/fresh-spring-app.sh [work-dir]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
doc="$root/docs/spring-boot.md"
boot=$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' \
  "$root/relent-spring-boot-starter/pom.xml")
version=$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml")
app_port=18098
down_port=18099

# The n-th fenced block of a language inside a section of the page.
block() { # section-heading language n
  awk -v h="$1" -v lang="$2" -v n="$3" '
    $0 == h { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && $0 == "```" lang { seen++; if (seen == n) { take = 1; next } }
    take && $0 == "```" { exit }
    take { print }' "$doc"
}

src="$work/src/main/java/com/example/payments"
mkdir -p "$src" "$work/src/main/resources"
block "## A fresh application" java 1 | sed '1i package com.example.payments;\n' \
  >"$src/PaymentsApplication.java"
{
  block "## A fresh application" properties 1 |
    sed "s|^relent.clients.payments.base-url=.*|relent.clients.payments.base-url=http://127.0.0.1:$down_port|"
  block "## Health" properties 1
  echo "server.port=$app_port"
} >"$work/src/main/resources/application.properties"
# The application's own code: an endpoint that calls the client, as the page's text says to.
cat >"$src/Balance.java" <<'EOF'
package com.example.payments;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

@RestController
class Balance {
  private final RestClient payments;

  Balance(RestClient payments) {
    this.payments = payments;
  }

  @GetMapping("/balance")
  String balance() {
    try {
      return payments.get().uri("/v1/balance").retrieve().body(String.class);
    } catch (RuntimeException e) {
      return "failed: " + e.getMessage();
    }
  }
}
EOF
dependency=$(block "## A fresh application" xml 1)
cat >"$work/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>$boot</version>
  </parent>
  <groupId>com.example</groupId>
  <artifactId>payments</artifactId>
  <version>1</version>
  <properties><java.version>17</java.version></properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>dev.relent</groupId>
        <artifactId>relent-bom</artifactId>
        <version>$version</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-webmvc</artifactId>
    </dependency>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-actuator</artifactId>
    </dependency>
$dependency
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-maven-plugin</artifactId>
      </plugin>
    </plugins>
  </build>
</project>
EOF

echo "fresh-spring-app: building in $work (Spring Boot $boot, Relent $version)"
(cd "$work" && "$root/mvnw" -B -q package -DskipTests)

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
python3 -c '
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class Down(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *args): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), Down).serve_forever()' "$down_port" &
pids+=($!)
java -jar "$work/target/payments-1.jar" >"$work/app.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  curl -sf "localhost:$app_port/actuator/health" >/dev/null 2>&1 && break
  sleep 1
done

for _ in $(seq 1 25); do curl -s "localhost:$app_port/balance" >/dev/null; done
health=$(curl -s -w '\n%{http_code}' "localhost:$app_port/actuator/health")
code=$(tail -n1 <<<"$health")
metrics=$(curl -s "localhost:$app_port/actuator/metrics")

failed=0
check() { # description condition...
  local what=$1
  shift
  if "$@"; then echo "  ok: $what"; else echo "  FAILED: $what"; failed=1; fi
}
echo "fresh-spring-app: after 25 calls to a downstream that answers 503"
check "/actuator/health answers 200 (got $code)" test "$code" = 200
field() { # python expression on the health document h
  python3 -c 'import json, sys; h = json.loads(sys.stdin.read().strip().rsplit("\n", 1)[0]); print('"$1"')' \
    <<<"$health" 2>/dev/null || echo "(no such field)"
}
breaker=$(field 'h["components"]["relent"]["details"]["payments"]["circuitBreaker"]["state"]')
component=$(field 'h["components"]["relent"]["status"]')
check "the breaker of payments is open in the relent component's details (got $breaker)" \
  test "$breaker" = open
check "the relent component stays UP (got $component)" test "$component" = UP
for meter in relent.calls relent.attempts relent.attempt.duration relent.retry.wait \
  relent.circuit.breaker.state relent.circuit.breaker.failure.rate; do
  check "/actuator/metrics lists $meter" grep -q "\"$meter\"" <<<"$metrics"
done
check "the log says which RestClient.Builder was used" \
  grep -q "Relent RestClients are built from Spring Boot's RestClient.Builder" "$work/app.log"
[ "$failed" = 0 ] || echo "fresh-spring-app: the application's log is $work/app.log"
exit "$failed"
