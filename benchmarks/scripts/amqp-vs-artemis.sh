#!/usr/bin/env bash
# AMQP 1.0 side-by-side: Junction (store.flush-mode=SYNC) against ActiveMQ Artemis 2.40 embedded (persistence on,
# NIO journal synced before a durable send is acknowledged), the same Qpid JMS load (JmsQueueLoad) against each,
# alternating A, B, A, B ... and quoting medians. See benchmarks/README.md.
#
#   benchmarks/scripts/amqp-vs-artemis.sh                 # 3 rounds, 200000 warm-up + 200000 messages, 8 producers, 4 consumers
#   ROUNDS=5 MESSAGES=100000 WARMUP=100000 benchmarks/scripts/amqp-vs-artemis.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS="${ROUNDS:-3}"
MESSAGES="${MESSAGES:-200000}"
PRODUCERS="${PRODUCERS:-8}"
CONSUMERS="${CONSUMERS:-4}"
SIZE="${SIZE:-1024}"
# Messages of the warm-up round (another queue, not measured) before the measured one, on the same fresh broker: both
# JVMs then run compiled code rather than spending the measured phases in their JIT compilers (after 50,000, a profile
# of the measured consume still found C2 taking half of Junction's CPU: pop and ack run once per batch and are
# compiled late).
WARMUP="${WARMUP:-200000}"
PORT="${PORT:-25672}"
WORK="$(mktemp -d)"
BROKER_PID=""

cleanup() {
    if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
        kill "$BROKER_PID" 2>/dev/null || true
        wait "$BROKER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

if [ ! -f broker/target/junction.jar ] || [ ! -f benchmarks/target/classes/io/junction/bench/amqp/JmsQueueLoad.class ]; then
    mvn -B -q -o -pl broker,benchmarks -am package -DskipTests
fi
mvn -B -q -o -f benchmarks/peers/amqp/pom.xml dependency:build-classpath -Dmdep.outputFile="$WORK/peer.cp" >/dev/null
PEER_CP="benchmarks/target/classes:$(cat "$WORK/peer.cp")"
# Warnings only in the Artemis and load JVMs (logback's default would log at DEBUG and slow both down).
PEER_LOGGING="-Dlogback.configurationFile=benchmarks/peers/amqp/logback.xml"

wait_port() {
    for _ in $(seq 1 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    echo "nothing listens on $PORT" >&2
    return 1
}

stop_broker() {
    kill "$BROKER_PID"
    wait "$BROKER_PID" 2>/dev/null || true
    BROKER_PID=""
}

load() {
    java -Xmx512m "$PEER_LOGGING" -cp "$PEER_CP" io.junction.bench.amqp.JmsQueueLoad "amqp://127.0.0.1:$PORT" \
        "$MESSAGES" "$PRODUCERS" "$CONSUMERS" "$SIZE" "$BROKER_PID" "$WARMUP" 2>"$WORK/load.err" | grep '^RESULT' \
        || { cat "$WORK/load.err" >&2; return 1; }
}

# CPU seconds a process used so far (user + system), from /proc.
cpu_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"
}

# Runs the load against the broker started as $BROKER_PID and appends the broker's CPU per message.
load_and_measure() {
    local before after
    before="$(cpu_seconds "$BROKER_PID")"
    local result
    result="$(load)" || { echo "load failed; broker log tail:" >&2; tail -20 "$WORK"/*.log >&2; return 1; }
    after="$(cpu_seconds "$BROKER_PID")"
    awk -v r="$result" -v b="$before" -v a="$after" -v n="$MESSAGES" -v w="$WARMUP" 'BEGIN {
        printf "%s broker_cpu_us_per_msg=%.0f\n", r, (a - b) * 1e6 / (n + w) }'
}

run_junction() {
    rm -rf "$WORK/junction"
    java -Xmx1g -jar broker/target/junction.jar --data-dir "$WORK/junction" \
        --set store.flush-mode=SYNC --set store.segment-size=256m --set amqp.port="$PORT" --set http.port=0 \
        --set remoting.enabled=false --set grpc.enabled=false --set mqtt.enabled=false \
        --set http-cloudevents.enabled=false >"$WORK/junction.log" 2>&1 &
    BROKER_PID=$!
    wait_port
    load_and_measure
    stop_broker
}

run_artemis() {
    rm -rf "$WORK/artemis"
    java -Xmx1g "$PEER_LOGGING" -cp "$PEER_CP" io.junction.bench.amqp.ArtemisPeer "$PORT" "$WORK/artemis" >"$WORK/artemis.log" 2>&1 &
    BROKER_PID=$!
    wait_port
    load_and_measure
    stop_broker
}

echo "AMQP side-by-side: $ROUNDS rounds, $MESSAGES persistent ${SIZE}-byte messages, $PRODUCERS producers, $CONSUMERS consumers"
: >"$WORK/junction.results"
: >"$WORK/artemis.results"
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round junction  (load: $(uptime | sed 's/.*load average: //'))"
    run_junction >"$WORK/last.result"
    cat "$WORK/last.result" | tee -a "$WORK/junction.results"
    echo "round $round artemis   (load: $(uptime | sed 's/.*load average: //'))"
    run_artemis >"$WORK/last.result"
    cat "$WORK/last.result" | tee -a "$WORK/artemis.results"
done

median() { # field name, file
    sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
jp="$(median produce_msgs_per_s "$WORK/junction.results")"
jc="$(median consume_msgs_per_s "$WORK/junction.results")"
ap="$(median produce_msgs_per_s "$WORK/artemis.results")"
ac="$(median consume_msgs_per_s "$WORK/artemis.results")"
echo "MEDIAN junction produce=$jp consume=$jc msg/s"
echo "MEDIAN artemis  produce=$ap consume=$ac msg/s"
awk -v jp="$jp" -v jc="$jc" -v ap="$ap" -v ac="$ac" 'BEGIN {
    printf "RATIO produce %.2fx  consume %.2fx  (bar: >= 1.5x on both)\n", jp / ap, jc / ac }'
