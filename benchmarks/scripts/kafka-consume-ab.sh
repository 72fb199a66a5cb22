#!/usr/bin/env bash
# Kafka produce and consume A/B: Junction jars against each other (say, before and after a change to the produce or
# fetch path), one at a time, alternating, a fresh broker each run. Per run, the produce phase: WARM_PRODUCES
# unmeasured ProducerPerformance passes (the produce path's JIT), then one measured pass of RECORDS records of 1 KiB
# into 4 partitions (acks=all, idempotent, linger.ms=5) whose records/s is printed and over which the broker's CPU time
# (/proc/<pid>/stat) gives the CPU per produced record. Then the consume phase: WARM_CONSUMES unmeasured
# ConsumerPerformance passes (the fetch path's JIT), then MEASURED passes of RECORDS records whose records/s are
# printed and over which the broker's CPU time gives the CPU per consumed record. CPU per record is the figure that
# stays comparable on a machine other work shares. JFR=1 records each measured phase (settings=profile) into the run's
# directory (produce.jfr, consume.jfr), kept with KEEP=1. Deleting by disk usage is off (as in
# kafka-side-by-side.sh): on a shared machine's fuller disk it deleted the segments being consumed.
#
#   benchmarks/scripts/kafka-consume-ab.sh /tmp/before.jar broker/target/junction.jar
#   ROUNDS=3 JFR=1 KEEP=1 benchmarks/scripts/kafka-consume-ab.sh broker/target/junction.jar
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS="${ROUNDS:-3}"
RECORDS="${RECORDS:-500000}"
WARM_PRODUCES="${WARM_PRODUCES:-1}"
WARM_CONSUMES="${WARM_CONSUMES:-2}"
MEASURED="${MEASURED:-3}"
JFR="${JFR:-0}"
KEEP="${KEEP:-0}"
PORT="${PORT:-29192}"
[ "$#" -ge 1 ] || { echo "usage: $0 JAR [JAR ...]" >&2; exit 2; }
WORK="$(mktemp -d)"
BROKER_PID=""

cleanup() {
    if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
        kill "$BROKER_PID" 2>/dev/null || true
        wait "$BROKER_PID" 2>/dev/null || true
    fi
    if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

mvn -B -q -f benchmarks/peers/kafka/pom.xml dependency:build-classpath -Dmdep.outputFile="$WORK/peer.cp" >/dev/null
PEER_CP="$(cat "$WORK/peer.cp")"

tool() {
    java -Xmx512m -cp "$PEER_CP" "$@" 2>>"$WORK/tools.err"
}

cpu_ticks() { # utime + stime of the broker, in clock ticks
    awk '{print $14 + $15}' "/proc/$BROKER_PID/stat"
}

produce() { # one ProducerPerformance pass of RECORDS records; prints its records/s
    # "N records sent, R records/sec (M MB/sec), ...": the 4th field
    tool org.apache.kafka.tools.ProducerPerformance --topic perf --num-records "$RECORDS" --record-size 1024 \
        --throughput -1 --producer-props bootstrap.servers="127.0.0.1:$PORT" acks=all linger.ms=5 \
        | tail -1 | awk '{printf "%d", $4}'
}

run() { # jar, run directory
    local jar="$1" dir="$2" consume rates="" before after produce_rate produce_ticks
    mkdir -p "$dir"
    java -Xmx1g -jar "$jar" --data-dir "$dir/data" --set kafka.port="$PORT" --set kafka.topic-partitions=4 \
        --set store.segment-size=256m --set store.disk-max-used-ratio=0.98 --set store.disk-full-ratio=0.99 --set kafka.group-initial-rebalance-delay-ms=0 --set http.port=0 \
        --set remoting.enabled=false --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false \
        --set http-cloudevents.enabled=false >"$dir/broker.log" 2>&1 &
    BROKER_PID=$!
    for _ in $(seq 1 600); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
        sleep 0.1
    done
    for _ in $(seq 1 "$WARM_PRODUCES"); do
        produce >/dev/null
    done
    [ "$JFR" = 1 ] && jcmd "$BROKER_PID" JFR.start name=produce settings=profile filename="$dir/produce.jfr" >/dev/null
    before="$(cpu_ticks)"
    produce_rate="$(produce)"
    after="$(cpu_ticks)"
    produce_ticks=$((after - before))
    [ "$JFR" = 1 ] && jcmd "$BROKER_PID" JFR.stop name=produce >/dev/null
    for _ in $(seq 1 "$WARM_CONSUMES"); do
        tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "127.0.0.1:$PORT" --topic perf \
            --messages "$RECORDS" --timeout 60000 >/dev/null
    done
    [ "$JFR" = 1 ] && jcmd "$BROKER_PID" JFR.start name=ab settings=profile filename="$dir/consume.jfr" >/dev/null
    before="$(cpu_ticks)"
    for _ in $(seq 1 "$MEASURED"); do
        # "start, end, MB, MB/sec, records, records/sec, ...": the 6th field
        consume="$(tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "127.0.0.1:$PORT" \
            --topic perf --messages "$RECORDS" --timeout 60000 | tail -1)"
        rates="$rates $(awk -F', *' '{printf "%d", $6}' <<<"$consume")"
    done
    after="$(cpu_ticks)"
    [ "$JFR" = 1 ] && jcmd "$BROKER_PID" JFR.stop name=ab >/dev/null
    kill "$BROKER_PID"
    wait "$BROKER_PID" 2>/dev/null || true
    BROKER_PID=""
    [ "$KEEP" = 1 ] || rm -rf "$dir/data"
    awk -v pt="$produce_ticks" -v pr="$produce_rate" -v n1="$RECORDS" \
        -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n=$((RECORDS * MEASURED)) -v r="$rates" \
        'BEGIN { printf "produce_cpu_us_per_record=%.2f produce_records_per_s=%s consume_cpu_us_per_record=%.2f consume_records_per_s=%s\n",
                 pt / hz * 1e6 / n1, pr, t / hz * 1e6 / n, r }'
}

echo "Kafka produce and consume A/B: $ROUNDS rounds, $RECORDS records of 1 KiB, 4 partitions, $WARM_PRODUCES warm + 1 measured produce and $WARM_CONSUMES warm + $MEASURED measured consume passes per run"
for round in $(seq 1 "$ROUNDS"); do
    i=0
    for jar in "$@"; do
        i=$((i + 1))
        echo "round $round jar $i $jar (load: $(cut -d' ' -f1-3 /proc/loadavg)) $(run "$jar" "$WORK/r$round-j$i")"
    done
done
