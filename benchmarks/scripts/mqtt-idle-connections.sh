#!/usr/bin/env bash
# Idle MQTT connections held by one broker: heap and resident memory per connection. Starts Junction (or measures
# the broker whose PID is given in BROKER_PID, listening on PORT), opens N idle MQTT 3.1.1 connections with
# keep-alive 60 s spread over 127.0.0.2.. source addresses (benchmarks' MqttLoad --mode idle), and reads the heap in
# use after a full GC (jcmd GC.run, GC.heap_info) and VmRSS before and with the connections.
# The open-files hard limit here is 20,000 per process, so N defaults to 18,000; scripts/in-vm.sh runs it in a guest
# without that limit: benchmarks/scripts/in-vm.sh benchmarks/scripts/mqtt-idle-connections.sh 50000 30
# Usage: benchmarks/scripts/mqtt-idle-connections.sh [N] [HOLD_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-18000}"
hold="${2:-60}"
port="${PORT:-28883}"
data="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

if [ -z "${BROKER_PID:-}" ]; then
  # The bounds the jar gives its broker when started without a heap option, set here so that $! is the broker itself
  # (without them it would be the launcher, and jcmd would read the wrong JVM).
  java -Xmx256m -XX:MaxDirectMemorySize=128m -jar "${JUNCTION_JAR:-broker/target/junction.jar}" --data-dir "$data/junction" --set mqtt.port="$port" \
    --set http.port=28080 --set remoting.enabled=false --set grpc.enabled=false --set amqp.enabled=false \
    >"$data/junction.log" 2>&1 &
  BROKER_PID=$!; pids+=($!)
fi
for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

heap_kb() { # used heap after a full GC, KiB (Java brokers only)
  jcmd "$BROKER_PID" GC.run >/dev/null
  sleep 1
  jcmd "$BROKER_PID" GC.heap_info | awk '/garbage-first heap|used/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub("K,?", "", v); print v; exit } }'
}
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$BROKER_PID/status"; }
fds() { ls "/proc/$BROKER_PID/fd" | wc -l; }
established() { ss -Htn state established "( sport = :$port )" | wc -l; }

java_broker=false
if jcmd "$BROKER_PID" VM.version >/dev/null 2>&1; then java_broker=true; fi
heap0=0; $java_broker && heap0=$(heap_kb)
rss0=$(rss_kb)

java -Xmx1g -cp benchmarks/target/benchmarks.jar io.junction.bench.mqtt.MqttLoad --mode idle --port "$port" \
  --connections "$n" --keep-alive 60 --hold "$hold" >"$data/load.txt" 2>&1 &
load=$!; pids+=($!)
for _ in $(seq 1 18000); do grep -q "idle connected=" "$data/load.txt" && break; kill -0 "$load" || break; sleep 0.1; done
cat "$data/load.txt"
sleep 10
open=$(fds)
conns=$(established)
heap1=0; $java_broker && heap1=$(heap_kb)
rss1=$(rss_kb)
# Every figure must be read while the load still holds its connections (jcmd is slow on an emulated CPU).
kill -0 "$load" 2>/dev/null && holding=yes || holding="NO: the hold ended before the measurements did; raise HOLD"
wait "$load" || true
cat "$data/load.txt"
echo "connections=$n established=$conns broker_fds=$open measured_while_held=$holding"
echo "heap after GC: before=${heap0} KiB with=${heap1} KiB per_connection=$(( (heap1 - heap0) * 1024 / n )) bytes"
echo "RSS: before=${rss0} KiB with=${rss1} KiB per_connection=$(( (rss1 - rss0) * 1024 / n )) bytes"
