#!/usr/bin/env bash
# Resident memory of the broker started as users start it (java -jar: HeapLauncher runs the broker in a child JVM with
# a capped heap and direct memory) while a Remoting load (benchmarks' RemotingLoad: sync sends of SIZE-byte bodies
# from 32 threads for SECONDS, then a push consumer draining the topic from its first message, i.e. catch-up reads of
# everything just written) fills the commit log. Samples the child's RssAnon and RssFile (/proc/<pid>/status) every
# second and prints them before the load, their peaks during it, and after it, with the load's own throughput lines.
# Needs: mvn -B -q -DskipTests package (broker/target/junction.jar, benchmarks/target/classes); the RocketMQ client's
# classpath is resolved as remoting-vs-rocketmq.sh does.
# Usage: [JUNCTION_JAR=...] [JUNCTION_SET="store.mapped-window=64m"] \
#        benchmarks/scripts/store-memory.sh [SECONDS] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
size="${2:-256}"
port=29876; http=29080
. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/RemotingLoad.class
rocketmq_classpath
bench_work

java -jar "$jar" --data-dir "$work/data" --set remoting.port=$port --set http.port=$http \
  --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false \
  $(for kv in ${JUNCTION_SET:-}; do printf -- '--set %s ' "$kv"; done) >"$work/broker.log" 2>&1 &
launcher=$!; pids+=("$launcher")
for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
(echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "broker did not start:" >&2; tail -20 "$work/broker.log" >&2; exit 1; }
# The broker is the launcher's child JVM (a launcher started with -Xmx of its own runs the broker in itself).
broker="$(pgrep -P "$launcher" java | head -1 || true)"
broker="${broker:-$launcher}"

# Anonymous and file-backed resident memory in MB (the library's rss gives kB with the total first).
rss_mb() { awk '/RssAnon/ {a = $2} /RssFile/ {f = $2} END {printf "%d %d\n", a / 1024, f / 1024}' "/proc/$1/status"; }
read -r anon0 file0 < <(rss_mb "$broker")
echo "broker pid $broker before the load: anonymous $anon0 MB, file-backed $file0 MB"

(while kill -0 "$broker" 2>/dev/null; do echo "$(date +%s) $(rss_mb "$broker")"; sleep 1; done) >"$work/samples" &
pids+=($!)
java -Xmx1g -cp "$classes:$rmqcp" io.junction.bench.remoting.RemotingLoad --namesrv 127.0.0.1:$port \
  --label junction --seconds "$seconds" --size "$size" --queues 8 --broker-pids "$broker" 2>&1 | grep -v '|-'
read -r anon1 file1 < <(rss_mb "$broker")
awk '{ if ($2 > a) a = $2; if ($3 > f) f = $3 } END { printf "peak during the load: anonymous %d MB, file-backed %d MB\n", a, f }' \
  "$work/samples"
echo "after the load: anonymous $anon1 MB, file-backed $file1 MB; data directory $(du -sm "$work/data" | cut -f1) MB"
