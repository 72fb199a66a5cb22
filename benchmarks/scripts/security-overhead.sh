#!/usr/bin/env bash
# The cost of security per message: the same MQTT QoS 1 load (benchmarks' MqttLoad, 64-byte payloads: fan-in = 100
# publishers -> 1 subscriber, fan-out = 1 publisher -> 100 subscribers) against two Junction brokers on the same
# machine, one with security off and one with security on (every client authenticates as a tenant user with an ACL;
# each publish is authorized and metered against the namespace's quota, here unlimited-by-rate so nothing is refused:
# a 10^9 msg/s quota still runs the token bucket). Rounds alternate (off, on, off, on, ...); medians and the on/off
# ratio are printed. Bar: security on keeps >= 0.9 of the throughput. Needs: mvn -q -B -DskipTests package.
# Usage: benchmarks/scripts/security-overhead.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
seconds="${2:-20}"
bench="benchmarks/target/benchmarks.jar"
jar="${JUNCTION_JAR:-broker/target/junction.jar}"
data="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

await_port() { for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on $1" >&2; exit 1; }

common=(--set remoting.enabled=false --set grpc.enabled=false --set amqp.enabled=false)
java -Xmx1g -jar "$jar" --data-dir "$data/off" --set mqtt.port=28883 --set http.port=28080 "${common[@]}" \
  >"$data/off.log" 2>&1 &
pids+=($!)
java -Xmx1g -jar "$jar" --data-dir "$data/on" --set mqtt.port=28893 --set http.port=28090 "${common[@]}" \
  --set security.enabled=true --set security.secret-key=bench-key --set security.admin-password=bench-admin \
  >"$data/on.log" 2>&1 &
pids+=($!)
await_port 28883; await_port 28893; await_port 28090
admin() { JUNCTION_ADMIN_PASSWORD=bench-admin java -jar "$jar" admin --url http://127.0.0.1:28090 "$@" >/dev/null; }
admin user bench --namespace acme --set-password bench-pw
admin acl bench --allow 'Topic:*=PUB,SUB' --allow 'Group:*=ALL' --deny 'Topic:payroll=ALL'
admin quota acme --messages-per-second 1000000000 --max-connections 100000

load() { # label port scenario publishers subscribers [credentials...]
  local label=$1 port=$2 scenario=$3 pubs=$4 subs=$5; shift 5
  java -Xmx1g -cp "$bench" io.junction.bench.mqtt.MqttLoad --port "$port" --label "$label $scenario" \
    --publishers "$pubs" --subscribers "$subs" --topic "bench/$scenario/$RANDOM" --warmup 5 --duration "$seconds" "$@" \
    | tee -a "$data/results.txt" >&2 || true
}

for r in $(seq 1 "$rounds"); do
  for s in "fan-in 100 1" "fan-out 1 100"; do
    set -- $s
    load off 28883 "$1" "$2" "$3"
    load on 28893 "$1" "$2" "$3" --username bench --password bench-pw
  done
done

echo
echo "medians of $rounds rounds, ${seconds} s each (deliveries/s summed over subscribers):"
printf '%-5s %-8s %14s %14s %10s %9s\n' auth scenario publish/s deliver/s e2e_p50ms missing
for b in off on; do
  for s in fan-in fan-out; do
    grep "^$b $s " "$data/results.txt" | awk -v b="$b" -v s="$s" '
      function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1], NR] = kv[2] } n = NR }
      END { for (i = 1; i <= n; i++) { pub[i] = v["pub_per_s", i]; del[i] = v["deliver_per_s", i]; p50[i] = v["e2e_p50_ms", i]; miss += v["missing", i] }
            printf "%-5s %-8s %14.0f %14.0f %10.2f %9d\n", b, s, median(pub, n), median(del, n), median(p50, n), miss }'
  done
done | tee "$data/table.txt"
echo
for s in fan-in fan-out; do
  off=$(awk -v s="$s" '$1 == "off" && $2 == s {print $4}' "$data/table.txt")
  on=$(awk -v s="$s" '$1 == "on" && $2 == s {print $4}' "$data/table.txt")
  awk -v s="$s" -v a="$off" -v b="$on" 'BEGIN { printf "%-8s security on / off deliveries: %.2f\n", s, (a > 0 ? b / a : 0) }'
done
