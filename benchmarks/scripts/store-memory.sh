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
jar="${JUNCTION_JAR:-broker/target/junction.jar}"
classes="benchmarks/target/classes"
port=29876; http=29080
[ -f "$jar" ] && [ -f "$classes/io/junction/bench/remoting/RemotingLoad.class" ] \
  || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }
version="$(sed -n 's:.*<rocketmq.version>\(.*\)</rocketmq.version>.*:\1:p' pom.xml | head -1)"
cpfile="benchmarks/target/rocketmq-${version}.classpath"
if [ ! -s "$cpfile" ]; then
  mvn -B -q -f benchmarks/peers/rocketmq/pom.xml dependency:build-classpath -Drocketmq.version="$version" \
      -Dmdep.outputFile="$PWD/$cpfile" >&2
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

java -jar "$jar" --data-dir "$work/data" --set remoting.port=$port --set http.port=$http \
  --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false \
  $(for kv in ${JUNCTION_SET:-}; do printf -- '--set %s ' "$kv"; done) >"$work/broker.log" 2>&1 &
launcher=$!; pids+=("$launcher")
for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
(echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "broker did not start:" >&2; tail -20 "$work/broker.log" >&2; exit 1; }
# The broker is the launcher's child JVM (a launcher started with -Xmx of its own runs the broker in itself).
broker="$(pgrep -P "$launcher" java | head -1 || true)"
broker="${broker:-$launcher}"

rss() { awk '/RssAnon/ {a = $2} /RssFile/ {f = $2} END {printf "%d %d\n", a / 1024, f / 1024}' "/proc/$1/status"; }
read -r anon0 file0 < <(rss "$broker")
echo "broker pid $broker before the load: anonymous $anon0 MB, file-backed $file0 MB"

(while kill -0 "$broker" 2>/dev/null; do echo "$(date +%s) $(rss "$broker")"; sleep 1; done) >"$work/samples" &
pids+=($!)
java -Xmx1g -cp "$classes:$(cat "$cpfile")" io.junction.bench.remoting.RemotingLoad --namesrv 127.0.0.1:$port \
  --label junction --seconds "$seconds" --size "$size" --queues 8 --broker-pids "$broker" 2>&1 | grep -v '|-'
read -r anon1 file1 < <(rss "$broker")
awk '{ if ($2 > a) a = $2; if ($3 > f) f = $3 } END { printf "peak during the load: anonymous %d MB, file-backed %d MB\n", a, f }' \
  "$work/samples"
echo "after the load: anonymous $anon1 MB, file-backed $file1 MB; data directory $(du -sm "$work/data" | cut -f1) MB"
