#!/usr/bin/env bash
# Kafka side-by-side: Junction's Kafka front-end against Apache Kafka 4.4 (KRaft, one node in combined mode, from
# Maven Central: benchmarks/peers/kafka), the same load from Kafka's own tools against each, one broker at a time,
# alternating rounds and quoting medians:
#   - produce at full speed: ProducerPerformance, acks=all, idempotent (the client default), SIZE-byte records, once
#     to another topic first (WARM_PRODUCES, default 1), its rate printed as cold_produce_records_per_s, then measured:
#     a CPU profile of Junction's produce pass that followed one such pass still found 40 % of its CPU in the C2
#     compiler, so a pass on a fresh JVM measures its JIT as much as the broker;
#   - consume what was produced: ConsumerPerformance (a consumer group from the earliest offset), WARM_CONSUMES times
#     unmeasured (default 3; the first pass's rate is printed as first_consume_records_per_s) and then measured, a new
#     group each time. Each broker is fresh each round, and its JIT is still compiling for several passes: after two
#     produce passes and one consume, Junction's broker spent 20 % of its CPU in the C2 compiler over the next three
#     consumes, which ran at 121,000-141,000 records/s; after four, the next three ran at 169,000-177,000;
#   - latency at equal load: ProducerPerformance throttled to RATE records/s, p99 and p50 of the send latency over the
#     whole run, and the p99 of the steady state after the first WARMUP_SECONDS (default 5): the whole run's p99 is
#     mostly the producer's start (a fresh client JVM, metadata, producer id) and the burst that catches up with the
#     schedule after it; the steady state's is the brokers' own tail;
#   - each broker's CPU time (/proc, user + system) per record over the produce pass and the measured consume pass
#     (produce_cpu_us, consume_cpu_us): on 2 cores shared with the client tools, what a broker leaves them.
# Neither broker fsyncs before acknowledging (Kafka's default; Junction's default store.flush-mode=ASYNC). Neither
# deletes by disk usage: Kafka has no such rule, and Junction's (store.disk-max-used-ratio, 0.75) deleted the segments
# being consumed on a shared machine whose disk was 78 % used, stalling ConsumerPerformance until its timeout.
#
#   benchmarks/scripts/kafka-side-by-side.sh                    # 1 round, 500000 records of 1 KiB, 4 partitions
#   ROUNDS=3 RECORDS=1000000 RATE=20000 benchmarks/scripts/kafka-side-by-side.sh
#   CONSUMER_JFR=/tmp/jfr benchmarks/scripts/kafka-side-by-side.sh  # + a JFR of the measured consumer, per broker and round
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS="${ROUNDS:-1}"
RECORDS="${RECORDS:-500000}"
SIZE="${SIZE:-1024}"
PARTITIONS="${PARTITIONS:-4}"
RATE="${RATE:-10000}"
WARM_CONSUMES="${WARM_CONSUMES:-3}"
WARM_PRODUCES="${WARM_PRODUCES:-1}"
RATE_RECORDS="${RATE_RECORDS:-$((RATE * 20))}"
WARMUP_SECONDS="${WARMUP_SECONDS:-5}"
PORT="${PORT:-29092}"
CONTROLLER_PORT="${CONTROLLER_PORT:-29093}"
CONSUMER_JFR="${CONSUMER_JFR:-}"
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

if [ ! -f broker/target/junction.jar ]; then
    mvn -B -q -o -pl broker -am package -DskipTests
fi
mvn -B -q -f benchmarks/peers/kafka/pom.xml dependency:build-classpath -Dmdep.outputFile="$WORK/peer.cp" >/dev/null
PEER_CP="$(cat "$WORK/peer.cp")"

wait_port() {
    for _ in $(seq 1 600); do
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

tool() {
    java -Xmx512m ${TOOL_JVM_ARGS:-} -cp "$PEER_CP" "$@" 2>>"$WORK/tools.err"
}

cpu_ticks() { # utime + stime of the broker process, in clock ticks (Kafka's sendfile and writes count as its stime)
    awk '{print $14 + $15}' "/proc/$BROKER_PID/stat"
}

# One round of the three loads against the broker listening on $PORT ($1 names it): prints one RESULT line.
load() {
    local topic="perf-$RANDOM" produce consume latency t0 produce_ticks consume_ticks consumer_args="" cold="" first=""
    if [ -n "$CONSUMER_JFR" ]; then
        mkdir -p "$CONSUMER_JFR"
        consumer_args="-XX:StartFlightRecording=filename=$CONSUMER_JFR/$1-consumer-$round.jfr,settings=profile"
    fi
    for w in $(seq 1 "$WARM_PRODUCES"); do
        cold="$(tool org.apache.kafka.tools.ProducerPerformance --topic "$topic-warm$w" --num-records "$RECORDS" \
            --record-size "$SIZE" --throughput -1 \
            --producer-props bootstrap.servers="127.0.0.1:$PORT" acks=all linger.ms=5 | tail -1)"
    done
    t0="$(cpu_ticks)"
    produce="$(tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$RECORDS" \
        --record-size "$SIZE" --throughput -1 \
        --producer-props bootstrap.servers="127.0.0.1:$PORT" acks=all linger.ms=5 | tail -1)"
    produce_ticks=$(($(cpu_ticks) - t0))
    for w in $(seq 1 "$WARM_CONSUMES"); do
        consume="$(tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "127.0.0.1:$PORT" \
            --topic "$topic" --messages "$RECORDS" --timeout 60000 | tail -1)"
        if [ "$w" = 1 ]; then first="$consume"; fi
    done
    t0="$(cpu_ticks)"
    consume="$(TOOL_JVM_ARGS="$consumer_args" tool org.apache.kafka.tools.ConsumerPerformance \
        --bootstrap-server "127.0.0.1:$PORT" --topic "$topic" --messages "$RECORDS" --timeout 60000 | tail -1)"
    consume_ticks=$(($(cpu_ticks) - t0))
    latency="$(tool org.apache.kafka.tools.ProducerPerformance --topic "$topic-rate" --num-records "$RATE_RECORDS" \
        --record-size "$SIZE" --throughput "$RATE" --warmup-records $((RATE * WARMUP_SECONDS)) \
        --producer-props bootstrap.servers="127.0.0.1:$PORT" acks=all)"
    steady="$(grep 'steady state records sent' <<<"$latency" | tail -1)"
    latency="$(grep ' records sent,' <<<"$latency" | grep -v 'steady state' | tail -1)"
    # ProducerPerformance ends with "N records sent, X records/sec (..), .. ms 50th, .. ms 95th, .. ms 99th, .." and,
    # with warmup records, "N steady state records sent, .." in the same form;
    # ConsumerPerformance with "start, end, MB, MB/sec, records, records/sec, ...".
    echo "RESULT produce_records_per_s=$(sed -n 's/.*sent, \([0-9.]*\) records\/sec.*/\1/p' <<<"$produce")" \
        "cold_produce_records_per_s=$(sed -n 's/.*sent, \([0-9.]*\) records\/sec.*/\1/p' <<<"${cold:- }")" \
        "consume_records_per_s=$(awk -F', *' '{print $6}' <<<"$consume")" \
        "first_consume_records_per_s=$(awk -F', *' '{print $6}' <<<"${first:- }")" \
        "rate=$RATE p50_ms=$(sed -n 's/.* \([0-9.]*\) ms 50th.*/\1/p' <<<"$latency")" \
        "p99_ms=$(sed -n 's/.* \([0-9.]*\) ms 99th.*/\1/p' <<<"$latency")" \
        "steady_p99_ms=$(sed -n 's/.* \([0-9.]*\) ms 99th.*/\1/p' <<<"$steady")" \
        "produce_cpu_us=$(awk -v t="$produce_ticks" -v hz="$(getconf CLK_TCK)" -v n="$RECORDS" 'BEGIN {printf "%.2f", t / hz * 1e6 / n}')" \
        "consume_cpu_us=$(awk -v t="$consume_ticks" -v hz="$(getconf CLK_TCK)" -v n="$RECORDS" 'BEGIN {printf "%.2f", t / hz * 1e6 / n}')"
}

run_junction() {
    rm -rf "$WORK/junction"
    java -Xmx1g -jar broker/target/junction.jar --data-dir "$WORK/junction" \
        --set kafka.port="$PORT" --set kafka.topic-partitions="$PARTITIONS" --set store.segment-size=256m --set store.disk-max-used-ratio=0.98 --set store.disk-full-ratio=0.99 \
        --set kafka.group-initial-rebalance-delay-ms=0 --set http.port=0 \
        --set remoting.enabled=false --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false \
        --set http-cloudevents.enabled=false >"$WORK/junction.log" 2>&1 &
    BROKER_PID=$!
    wait_port
    load junction || { tail -20 "$WORK/junction.log" "$WORK/tools.err" >&2; return 1; }
    stop_broker
}

run_kafka() {
    rm -rf "$WORK/kafka"
    mkdir -p "$WORK/kafka"
    cat >"$WORK/kafka/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$WORK/kafka/logs
num.partitions=$PARTITIONS
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
    java -cp "$PEER_CP" kafka.tools.StorageTool format -t "$(java -cp "$PEER_CP" kafka.tools.StorageTool random-uuid)" \
        -c "$WORK/kafka/server.properties" >"$WORK/kafka/format.log" 2>&1
    java -Xmx1g -cp "$PEER_CP" kafka.Kafka "$WORK/kafka/server.properties" >"$WORK/kafka.log" 2>&1 &
    BROKER_PID=$!
    wait_port
    load kafka || { tail -20 "$WORK/kafka.log" "$WORK/tools.err" >&2; return 1; }
    stop_broker
}

echo "Kafka side-by-side: $ROUNDS rounds, $RECORDS records of $SIZE bytes, acks=all, $PARTITIONS partitions;" \
    "latency at $RATE records/s"
: >"$WORK/junction.results"
: >"$WORK/kafka.results"
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round junction  (load: $(uptime | sed 's/.*load average: //'))"
    run_junction | tee -a "$WORK/junction.results"
    echo "round $round kafka     (load: $(uptime | sed 's/.*load average: //'))"
    run_kafka | tee -a "$WORK/kafka.results"
done

median() { # field name, file
    sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2" | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
fields="produce_records_per_s consume_records_per_s p50_ms p99_ms steady_p99_ms produce_cpu_us consume_cpu_us"
if [ "$WARM_PRODUCES" -gt 0 ]; then fields="cold_produce_records_per_s $fields"; fi
if [ "$WARM_CONSUMES" -gt 0 ]; then fields="$fields first_consume_records_per_s"; fi
for f in $fields; do
    j="$(median "$f" "$WORK/junction.results")"
    k="$(median "$f" "$WORK/kafka.results")"
    awk -v f="$f" -v j="$j" -v k="$k" 'BEGIN { printf "MEDIAN %-22s junction=%-10s kafka=%-10s ratio=%.2f\n", f, j, k, j / k }'
done
