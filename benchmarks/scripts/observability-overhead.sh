#!/usr/bin/env bash
# The cost of observing traffic: the same MQTT QoS 1 load (benchmarks' MqttLoad, 64-byte payloads, fan-in =
# 100 publishers -> 1 subscriber on topic "bench") against three Junction brokers on the same machine:
#   off     metrics.enabled=false: the message core unwrapped (no rocketmq_* traffic meters, spans or message trace)
#   metrics the default: every send, delivery and ack counted under RocketMQ's metric names
#   trace   the default plus trace.topics=bench: the broker writes a RocketMQ trace record for every publish and
#           delivery of the topic to RMQ_SYS_TRACE_TOPIC
# Rounds alternate (off, metrics, trace, off, ...); medians and the ratios to "off" are printed, and each broker's CPU
# per delivered message (from /proc: steadier than the rates on a machine shared with other work).
# Bars (issue 26): metrics on keeps >= 0.95 of the throughput; trace on for the topic >= 0.80.
# Needs: mvn -q -B -DskipTests package. Usage: benchmarks/scripts/observability-overhead.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
seconds="${2:-15}"
bench="benchmarks/target/benchmarks.jar"
jar="${JUNCTION_JAR:-broker/target/junction.jar}"
data="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

await_port() { for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on $1" >&2; exit 1; }

common=(--set remoting.enabled=false --set grpc.enabled=false --set amqp.enabled=false --set kafka.enabled=false)
start() { # label mqtt-port http-port settings...
  local label=$1 mqtt=$2 http=$3; shift 3
  java -Xmx1g -jar "$jar" --data-dir "$data/$label" --set mqtt.port="$mqtt" --set http.port="$http" "${common[@]}" \
    "$@" >"$data/$label.log" 2>&1 &
  pids+=($!)
}
start off 28883 28080 --set metrics.enabled=false
start metrics 28893 28090
start trace 28903 28100 --set trace.topics=bench
await_port 28883; await_port 28893; await_port 28903

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # the process's user + system CPU, in clock ticks
hz=$(getconf CLK_TCK)
load() { # label port broker-pid
  local before after line
  before=$(ticks "$3")
  line=$(java -Xmx1g -cp "$bench" io.junction.bench.mqtt.MqttLoad --port "$2" --label "$1 fan-in" \
    --publishers 100 --subscribers 1 --topic "bench/$RANDOM" --warmup 5 --duration "$seconds" || true)
  after=$(ticks "$3")
  # The broker's CPU per delivered message over the whole run (warm-up and drain included): unlike the rate, it
  # hardly moves when other processes take the machine's cores.
  echo "$line" | awk -v t=$((after - before)) -v hz="$hz" '{ for (i = 3; i <= NF; i++) { split($i, kv, "=");
      if (kv[1] == "delivered") d = kv[2] } printf "%s broker_cpu_us_per_msg=%.2f\n", $0, (d > 0 ? t * 1e6 / hz / d : 0) }' \
    | tee -a "$data/results.txt" >&2
}

for r in $(seq 1 "$rounds"); do
  load off 28883 "${pids[0]}"
  load metrics 28893 "${pids[1]}"
  load trace 28903 "${pids[2]}"
done

echo
echo "medians of $rounds rounds, ${seconds} s each, fan-in 100 -> 1 (deliveries/s):"
printf '%-8s %14s %14s %10s %9s\n' broker publish/s deliver/s e2e_p50ms missing
for b in off metrics trace; do
  grep "^$b fan-in " "$data/results.txt" | awk -v b="$b" '
    function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1], NR] = kv[2] } n = NR }
    END { for (i = 1; i <= n; i++) { pub[i] = v["pub_per_s", i]; del[i] = v["deliver_per_s", i]; p50[i] = v["e2e_p50_ms", i]; miss += v["missing", i] }
          printf "%-8s %14.0f %14.0f %10.2f %9d\n", b, median(pub, n), median(del, n), median(p50, n), miss }'
done | tee "$data/table.txt"
echo
off=$(awk '$1 == "off" {print $3}' "$data/table.txt")
for b in metrics trace; do
  on=$(awk -v b="$b" '$1 == b {print $3}' "$data/table.txt")
  awk -v b="$b" -v a="$off" -v c="$on" 'BEGIN { printf "%-8s / off deliveries: %.2f\n", b, (a > 0 ? c / a : 0) }'
done
metrics=$(awk '$1 == "metrics" {print $3}' "$data/table.txt")
trace=$(awk '$1 == "trace" {print $3}' "$data/table.txt")
awk -v a="$metrics" -v c="$trace" 'BEGIN { printf "trace    / metrics deliveries: %.2f (trace alone)\n", (a > 0 ? c / a : 0) }'
# per round, trace / off and trace / metrics of the same round (rounds run back to back, so they share the noise)
for r in $(seq 1 "$rounds"); do
  awk -v r="$r" '$1 ~ /^(off|metrics|trace)$/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "deliver_per_s") v[$1, ++n[$1]] = kv[2] } }
    END { printf "round %d: off %.0f metrics %.0f trace %.0f  trace/off %.2f  trace/metrics %.2f\n", r, v["off", r], v["metrics", r], v["trace", r],
          (v["off", r] > 0 ? v["trace", r] / v["off", r] : 0), (v["metrics", r] > 0 ? v["trace", r] / v["metrics", r] : 0) }' "$data/results.txt"
done
# CPU per message: medians, and trace's against off and metrics (the cost the traced topic's messages pay)
for b in off metrics trace; do
  grep "^$b fan-in " "$data/results.txt" | awk -v b="$b" '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "broker_cpu_us_per_msg") v[NR] = kv[2] } n = NR }
    END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
          printf "%s %.2f\n", b, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }'
done > "$data/cpu.txt"
awk '{ c[$1] = $2 } END { printf "broker CPU per message (median, us): off %.2f  metrics %.2f  trace %.2f\n", c["off"], c["metrics"], c["trace"];
  printf "throughput a CPU-bound broker keeps with trace on: %.2f of off, %.2f of metrics\n", c["off"] / c["trace"], c["metrics"] / c["trace"] }' "$data/cpu.txt"
scrape=$(curl -s "http://127.0.0.1:28100/metrics")
messages=$(echo "$scrape" | awk -F'} ' '/^junction_messages_in_total\{topic="RMQ_SYS_TRACE_TOPIC"/ {s += $2} END {printf "%.0f", s}')
records=$(echo "$scrape" | awk '/^junction_trace_records_stored_total/ {s += $NF} END {printf "%.0f", s}')
dropped=$(echo "$scrape" | awk '/^junction_trace_records_dropped_total/ {s += $NF} END {printf "%.0f", s}')
echo "trace broker: $records trace records stored in $messages trace messages, $dropped dropped"
