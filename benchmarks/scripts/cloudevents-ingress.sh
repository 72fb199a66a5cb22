#!/usr/bin/env bash
# CloudEvents binary-mode ingress, 1 KiB events, against Junction and against this machine's HTTP ceiling (a Netty
# server answering 202 without storing), with the same wrk load in the same run. Prints both rates and the ratio.
# Each server first gets WARMUP seconds (default 20) of the same load, not measured, so both are measured compiled.
# Then push delivery on the same broker (PushDeliveryLoad: a local sink answering 200 at once, PUSH_EVENTS events).
# Needs: wrk (apt-get install wrk), mvn -q -B -DskipTests package. Usage: benchmarks/scripts/cloudevents-ingress.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
connections="${2:-64}"
warmup="${WARMUP:-20}"
lua="benchmarks/scripts/cloudevents-ingress.lua"
data="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

await() { for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer at $1" >&2; exit 1; }

run_wrk() { # url label
  if [ "$warmup" -gt 0 ]; then
    wrk -t2 -c"$connections" -d"${warmup}s" -s "$lua" "$1" >/dev/null
  fi
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$lua" "$1" | tee "$data/$2.txt" >&2
  awk '/Requests\/sec/ {print $2}' "$data/$2.txt"
}

java -Xmx1g -jar "${JUNCTION_JAR:-broker/target/junction.jar}" --data-dir "$data/store" --set http.port=18080 --set remoting.enabled=false \
  --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false >"$data/broker.log" 2>&1 &
pids+=($!)
await http://127.0.0.1:18080/health
curl -s -o /dev/null -X POST http://127.0.0.1:18080/topics/bench -H 'ce-specversion: 1.0' -H 'ce-id: warm' \
  -H 'ce-source: /bench' -H 'ce-type: bench.event' -d x
junction=$(run_wrk http://127.0.0.1:18080/topics/bench junction)
# Push delivery on the same broker: one push subscription to a local sink answering 200 at once.
push=$(java -cp benchmarks/target/benchmarks.jar io.junction.bench.http.PushDeliveryLoad \
  --broker http://127.0.0.1:18080 --events "${PUSH_EVENTS:-100000}" --warmup 20000 | tail -1)
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true

java -cp benchmarks/target/benchmarks.jar io.junction.bench.http.HttpCeilingServer 18081 2 >"$data/ceiling.log" 2>&1 &
pids+=($!)
await http://127.0.0.1:18081/health
ceiling=$(run_wrk http://127.0.0.1:18081/topics/bench ceiling)

p99_j=$(awk '/ 99%/ {print $2}' "$data/junction.txt")
p99_c=$(awk '/ 99%/ {print $2}' "$data/ceiling.txt")
echo "junction ingress : ${junction} events/s, p99 ${p99_j}"
echo "http ceiling     : ${ceiling} req/s, p99 ${p99_c}"
echo "push delivery    : ${push}"
awk -v j="$junction" -v c="$ceiling" 'BEGIN { r = j / c; printf "ratio            : %.2f of the ceiling (bar >= 0.50): %s\n", r, (r >= 0.5 ? "PASS" : "FAIL") }'
