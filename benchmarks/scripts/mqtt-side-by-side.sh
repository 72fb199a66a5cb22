#!/usr/bin/env bash
# MQTT QoS 1 side by side: Junction against Eclipse Mosquitto (Debian package; persistence on) and ActiveMQ Artemis
# 2.40 embedded (benchmarks' ArtemisPeer with an MQTT acceptor, persistence on; ARTEMIS=0 leaves it out). The same load
# (benchmarks' MqttLoad: fan-in = 100 publishers -> 1 subscriber, fan-out = 1 publisher -> 100 subscribers, 64-byte
# payloads, window 10 per publisher) runs against each broker in turn, ROUNDS times (A, B, A, B, ...), and the medians
# and ratios are printed. Needs: mosquitto (apt-get install mosquitto), mvn -q -B -DskipTests package.
# JUNCTION_SET="store.flush-mode=SYNC ..." adds --set options to Junction (e.g. to fsync before every PUBACK, as the
# Artemis peer does; Junction's default flushes within 500 ms and Mosquitto saves its store periodically).
# Usage: [PRIME=30] [JUNCTION_SET=...] benchmarks/scripts/mqtt-side-by-side.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
seconds="${2:-20}"
bench="benchmarks/target/benchmarks.jar"
data="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

await_port() { for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on $1" >&2; exit 1; }
rss_mb() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
# Anonymous (heap, buffers, native) and file-backed (memory-mapped files: page cache the kernel can reclaim) parts.
rss_parts() { awk '/RssAnon/ {a = $2} /RssFile/ {f = $2} END {printf "anonymous %d MB, file-backed %d MB", a / 1024, f / 1024}' "/proc/$1/status"; }

declare -A port pid
port[junction]=28883
java -Xmx1g -jar "${JUNCTION_JAR:-broker/target/junction.jar}" --data-dir "$data/junction" \
  --set mqtt.port=28883 --set http.port=28080 --set remoting.enabled=false --set grpc.enabled=false \
  --set amqp.enabled=false $(for kv in ${JUNCTION_SET:-}; do printf -- '--set %s ' "$kv"; done) \
  >"$data/junction.log" 2>&1 &
pid[junction]=$!; pids+=($!)

port[mosquitto]=28884
mkdir -p "$data/mosquitto"
# max_queued_messages 0: queue without limit like the other two, instead of dropping QoS 1 messages past 1000.
printf 'listener 28884 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location %s/\nmax_queued_messages 0\n' \
  "$data/mosquitto" >"$data/mosquitto.conf"
mosquitto -c "$data/mosquitto.conf" >"$data/mosquitto.log" 2>&1 &
pid[mosquitto]=$!; pids+=($!)

brokers=(junction mosquitto)
if [ "${ARTEMIS:-1}" != 0 ]; then
  # Artemis needs Netty 4.1: its own JVM on the classpath of benchmarks/peers/amqp/pom.xml.
  mvn -B -q -o -f benchmarks/peers/amqp/pom.xml dependency:build-classpath -Dmdep.outputFile="$data/peer.cp" >/dev/null
  port[artemis]=28885
  java -Xmx1g -Dlogback.configurationFile=benchmarks/peers/amqp/logback.xml \
    -cp "benchmarks/target/classes:$(cat "$data/peer.cp")" io.junction.bench.amqp.ArtemisPeer 28886 "$data/artemis" \
    28885 >"$data/artemis.log" 2>&1 &
  pid[artemis]=$!; pids+=($!)
  brokers+=(artemis)
fi
for b in "${brokers[@]}"; do await_port "${port[$b]}"; done
if [ -n "${pid[artemis]:-}" ]; then # its acceptors open before it is ready for clients
  for _ in $(seq 1 600); do grep -q "ARTEMIS READY" "$data/artemis.log" && break; sleep 0.1; done
fi

load() { # broker scenario publishers subscribers [seconds]
  java -Xmx1g -cp "$bench" io.junction.bench.mqtt.MqttLoad --port "${port[$1]}" --label "$1 $2" \
    --publishers "$3" --subscribers "$4" --topic "bench/$2/$RANDOM" --warmup 5 --duration "${5:-$seconds}" \
    | tee -a "$data/${6:-results}.txt" >&2 || true
}

# One unmeasured pass of both scenarios per broker first (PRIME seconds each): the two JVM brokers compile their
# paths during the first tens of seconds, so without it round 1 measured the JIT compiler as much as the broker.
prime="${PRIME:-30}"
if [ "$prime" -gt 0 ]; then
  for b in "${brokers[@]}"; do
    load "$b" fan-in 100 1 "$prime" primed
    load "$b" fan-out 1 100 "$prime" primed
  done
fi

for r in $(seq 1 "$rounds"); do
  for b in "${brokers[@]}"; do
    load "$b" fan-in 100 1
    load "$b" fan-out 1 100
  done
done

echo
echo "medians of $rounds rounds, ${seconds} s each (deliveries/s summed over subscribers; e2e = publish to delivery):"
printf '%-10s %-8s %14s %14s %10s %10s %9s\n' broker scenario publish/s deliver/s e2e_p50ms e2e_p99ms missing
for b in "${brokers[@]}"; do
  for s in fan-in fan-out; do
    grep "^$b $s " "$data/results.txt" | awk -v b="$b" -v s="$s" '
      function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1], NR] = kv[2] } n = NR }
      END { for (i = 1; i <= n; i++) { pub[i] = v["pub_per_s", i]; del[i] = v["deliver_per_s", i]; p50[i] = v["e2e_p50_ms", i]; p99[i] = v["e2e_p99_ms", i]; miss += v["missing", i] }
            printf "%-10s %-8s %14.0f %14.0f %10.2f %10.2f %9d\n", b, s, median(pub, n), median(del, n), median(p50, n), median(p99, n), miss }'
  done
done | tee "$data/table.txt"
echo
for s in fan-in fan-out; do
  j=$(awk -v s="$s" '$1 == "junction" && $2 == s {print $4}' "$data/table.txt")
  for b in "${brokers[@]}"; do
    [ "$b" = junction ] && continue
    o=$(awk -v b="$b" -v s="$s" '$1 == b && $2 == s {print $4}' "$data/table.txt")
    awk -v s="$s" -v b="$b" -v j="$j" -v o="$o" 'BEGIN { printf "%-8s junction / %-9s deliveries: %.2f\n", s, b, (o > 0 ? j / o : 0) }'
  done
done
for b in "${brokers[@]}"; do echo "RSS after the run: $b $(rss_mb "${pid[$b]}") MB ($(rss_parts "${pid[$b]}"))"; done
