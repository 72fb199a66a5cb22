#!/usr/bin/env bash
# Latency at equal offered load (the OpenMessaging Benchmark method): Junction and a peer broker get the same
# open-loop load from the same client at the same fixed rate, one after the other in one run, and the script prints
# send-ack and end-to-end latency p50/p99/p99.9/max (HdrHistogram, measured from each message's intended send time:
# coordinated omission corrected), the brokers' CPU per message and the ratios Junction / peer.
#
# The rate: RATE if given, else 50 % of the slowest peer's maximum (the brokers other than Junction), measured
# closed-loop (CALIBRATE seconds per broker) in the same run. Junction gets the same closed-loop pass, printed but not
# used for the rate: it warms its JIT as the peer's warms the peer's.
#
# Scenarios:
#   mqtt-fanin    100 publishers -> 1 subscriber, QoS 1, 64-byte payloads; Junction vs Eclipse Mosquitto (persistence on)
#   mqtt-fanout   1 publisher -> 100 subscribers, same; Junction vs Mosquitto
#   remoting      rocketmq-client 5.3.3 sync sends (THREADS sender threads) of 1 KiB, push consumer; Junction vs
#                 Apache RocketMQ 5.3.3 name server + broker (ASYNC flush on both)
#   jms           Qpid JMS persistent 1 KiB sends to a queue (PRODUCERS sender threads, 8; CONSUMERS listeners, 4);
#                 Junction (SYNC flush) vs ActiveMQ Artemis 2.40 (journal synced); CAL_MESSAGES per closed-loop phase
#   http          CloudEvents binary-mode POSTs of 1 KiB (THREADS sender threads, one request at a time each) and a
#                 push subscription to a local sink (end to end); no peer broker speaks CloudEvents, so the yardstick
#                 is this machine's HTTP path: a Netty server answering 202 without storing (HttpCeilingServer) at
#                 the same rate. The rate is 25 % of Junction's own closed-loop ingress maximum (the ceiling is always
#                 faster; at the fixed rate the push delivery doubles Junction's HTTP work and the sink runs in the load).
#
# Needs a built tree (mvn -B -q -DskipTests package), mosquitto (apt-get install mosquitto) for mqtt-*, Maven to
# resolve RocketMQ's classpath once for remoting. Usage:
#   benchmarks/scripts/fixed-rate.sh SCENARIO [RATE]
# Environment: MEASURE (measured seconds, 30), WARMUP (seconds at the rate before measuring, 10), CALIBRATE (closed-loop
# seconds per broker, 20), THREADS (remoting sender threads, 32), JUNCTION_JVM_ARGS (e.g. a JFR recording),
# KEEP=1 keeps the work directory.
set -euo pipefail
# The whole script is one block, which bash reads before running any of it: editing the file during a run (minutes
# long) would otherwise make bash read the rest from the shifted bytes of the new version.
{
cd "$(dirname "$0")/../.."
scenario="${1:?usage: fixed-rate.sh mqtt-fanin|mqtt-fanout|remoting|jms|http [RATE]}"
rate="${2:-}"
seconds="${MEASURE:-30}"
warmup="${WARMUP:-10}"
calibrate="${CALIBRATE:-20}"
threads="${THREADS:-32}"
bench="benchmarks/target/benchmarks.jar"
classes="benchmarks/target/classes"
jar="${JUNCTION_JAR:-broker/target/junction.jar}"
[ -f "$jar" ] && [ -f "$bench" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Ports of their own (2xxxx), so a side-by-side script running at the same time cannot answer in a broker's place;
# below Linux's ephemeral range (32768-60999), where a busy machine's outgoing connections can hold a port.
mqtt_j=23883; mqtt_m=23884; http_j=23880; http_c=23881; rem_j=23876; ns_r=23877; broker_r=23911; amqp_j=23672
amqp_a=23673
port_free() { ! (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null || { echo "port $1 is in use: not starting" >&2; exit 1; }; }
await_port() { for _ in $(seq 1 600); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on $1" >&2; exit 1; }
await_line() { # file pattern pid what
  for _ in $(seq 1 900); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { echo "$4 exited before it was ready:" >&2; tail -20 "$1" >&2; exit 1; }
    sleep 0.1
  done
  echo "$4 not ready within 90 s" >&2; tail -20 "$1" >&2; exit 1
}
loadavg() { cut -d' ' -f1 /proc/loadavg; }
field() { # line key -> value
  tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -1
}

declare -A port pid cpupids
brokers=()

start_junction() { # port, extra --set options
  port[junction]=$1; shift
  port_free "${port[junction]}"; port_free "$http_j"
  java -Xmx1g ${JUNCTION_JVM_ARGS:-} -jar "$jar" --data-dir "$work/junction" --set http.port="$http_j" "$@" >"$work/junction.log" 2>&1 &
  pid[junction]=$!; pids+=($!); cpupids[junction]=$!
  brokers+=(junction)
  await_line "$work/junction.log" "Junction ready" "${pid[junction]}" Junction
}

# ---------------------------------------------------------------------------------------------------- MQTT
mqtt_setup() {
  start_junction "$mqtt_j" --set mqtt.port="$mqtt_j" --set remoting.enabled=false --set grpc.enabled=false \
    --set amqp.enabled=false --set kafka.enabled=false
  port[mosquitto]=$mqtt_m
  port_free "$mqtt_m"
  mkdir -p "$work/mosquitto"
  # max_queued_messages 0: queue without limit like Junction, instead of dropping QoS 1 messages past 1000.
  printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location %s/\nmax_queued_messages 0\n' \
    "$mqtt_m" "$work/mosquitto" >"$work/mosquitto.conf"
  mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
  pid[mosquitto]=$!; pids+=($!); cpupids[mosquitto]=$!
  brokers+=(mosquitto)
  for b in "${brokers[@]}"; do await_port "${port[$b]}"; done
  case "$scenario" in
    mqtt-fanin) pubs=100; subs=1 ;;
    mqtt-fanout) pubs=1; subs=100 ;;
  esac
}

mqtt_closed_loop() { # broker -> prints the max messages/s it sustained (publishes it delivered to every subscriber)
  local line
  line=$(java -Xmx1g -cp "$bench" io.junction.bench.mqtt.MqttLoad --port "${port[$1]}" --label "$1 closed-loop" \
    --publishers "$pubs" --subscribers "$subs" --topic "bench/cal/$RANDOM" --warmup 5 --duration "$calibrate" || true)
  echo "$line" >&2
  awk -v p="$(field "$line" pub_per_s)" -v d="$(field "$line" deliver_per_s)" -v s="$subs" \
    'BEGIN { m = d / s; if (p < m) m = p; printf "%.0f", m }'
}

mqtt_fixed_rate() { # broker rate -> the report line
  java -Xmx1g -cp "$bench" io.junction.bench.mqtt.MqttLoad --mode fixed-rate --rate "$2" \
    --port "${port[$1]}" --label "$1" --publishers "$pubs" --subscribers "$subs" --topic "bench/rate/$RANDOM" \
    --warmup "$warmup" --duration "$seconds" --broker-pids "${cpupids[$1]}" || true
}

# ---------------------------------------------------------------------------------------------------- Remoting
remoting_setup() {
  local version cpfile
  version="$(sed -n 's:.*<rocketmq.version>\(.*\)</rocketmq.version>.*:\1:p' pom.xml | head -1)"
  cpfile="benchmarks/target/rocketmq-${version}.classpath"
  if [ ! -s "$cpfile" ]; then
    mvn -B -q -f benchmarks/peers/rocketmq/pom.xml dependency:build-classpath -Drocketmq.version="$version" \
        -Dmdep.outputFile="$PWD/$cpfile" >&2
  fi
  # The client needs Netty 4.1 (benchmarks.jar carries 4.2): the load runs from the classes on RocketMQ's classpath,
  # plus HdrHistogram from the local Maven repository.
  local hdr
  hdr="$(find ~/.m2/repository/org/hdrhistogram/HdrHistogram -name 'HdrHistogram-*.jar' | sort | tail -1)"
  loadcp="$classes:$(cat "$cpfile"):$hdr"
  start_junction "$rem_j" --set remoting.port="$rem_j" --set mqtt.enabled=false --set grpc.enabled=false \
    --set amqp.enabled=false --set kafka.enabled=false --set http-cloudevents.enabled=false \
    --set store.flush-mode=ASYNC
  port_free "$ns_r"; port_free "$broker_r"
  mkdir -p "$work/rmq/home"
  printf 'listenPort=%s\nbindAddress=127.0.0.1\n' "$ns_r" >"$work/ns.conf"
  cat >"$work/broker.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-broker
brokerId=0
namesrvAddr=127.0.0.1:$ns_r
listenPort=$broker_r
haListenPort=$((broker_r + 1))
brokerIP1=127.0.0.1
storePathRootDir=$work/rmq/store
storePathCommitLog=$work/rmq/store/commitlog
flushDiskType=ASYNC_FLUSH
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
CONF
  local jvm=(-Drocketmq.home.dir="$work/rmq/home" -Duser.home="$work/rmq/home" -cp "$(cat "$cpfile")")
  ROCKETMQ_HOME="$work/rmq/home" java -Xmx256m "${jvm[@]}" org.apache.rocketmq.namesrv.NamesrvStartup \
    -c "$work/ns.conf" >"$work/namesrv.log" 2>&1 &
  local ns=$!; pids+=($ns)
  await_line "$work/namesrv.log" "boot success" "$ns" "RocketMQ name server"
  ROCKETMQ_HOME="$work/rmq/home" java -Xmx1g "${jvm[@]}" org.apache.rocketmq.broker.BrokerStartup \
    -c "$work/broker.conf" >"$work/rmqbroker.log" 2>&1 &
  pid[rocketmq]=$!; pids+=($!); cpupids[rocketmq]="$!,$ns"
  port[rocketmq]=$ns_r
  brokers+=(rocketmq)
  await_line "$work/rmqbroker.log" "boot success" "${pid[rocketmq]}" "RocketMQ broker"
}

remoting_closed_loop() { # broker -> max sends/s
  local line
  line=$(java -Xmx1g -cp "$loadcp" io.junction.bench.remoting.RemotingLoad --namesrv "127.0.0.1:${port[$1]}" \
    --label "$1" --threads "$threads" --seconds "$calibrate" --warmup-seconds 5 --drains 1 \
    2>>"$work/load.err" | grep '^RESULT ' || true)
  echo "$1 closed-loop: $line" >&2
  field "$line" tps | awk '{printf "%.0f", $1}'
}

remoting_fixed_rate() { # broker rate
  java -Xmx1g -cp "$loadcp" io.junction.bench.remoting.RemotingFixedRate --namesrv "127.0.0.1:${port[$1]}" \
    --label "$1" --rate "$2" --threads "$threads" --warmup "$warmup" --duration "$seconds" \
    --broker-pids "${cpupids[$1]}" 2>>"$work/load.err" | tail -1 || true
}

# ---------------------------------------------------------------------------------------------------- JMS (AMQP 1.0)
amqp_setup() {
  # Artemis and Qpid JMS need Netty 4.1: their JVMs run on the classpath of benchmarks/peers/amqp/pom.xml.
  mvn -B -q -o -f benchmarks/peers/amqp/pom.xml dependency:build-classpath -Dmdep.outputFile="$work/peer.cp" >/dev/null \
    || mvn -B -q -f benchmarks/peers/amqp/pom.xml dependency:build-classpath -Dmdep.outputFile="$work/peer.cp" >&2
  local hdr
  hdr="$(find ~/.m2/repository/org/hdrhistogram/HdrHistogram -name 'HdrHistogram-*.jar' | sort | tail -1)"
  loadcp="$classes:$(cat "$work/peer.cp"):$hdr"
  logging="-Dlogback.configurationFile=benchmarks/peers/amqp/logback.xml"
  # Like with like: Junction acknowledges a persistent send after its group-commit fsync, Artemis after its journal
  # sync (ArtemisPeer: persistence on, NIO journal, journal-datasync).
  start_junction "$amqp_j" --set amqp.port="$amqp_j" --set store.flush-mode=SYNC --set remoting.enabled=false \
    --set grpc.enabled=false --set mqtt.enabled=false --set kafka.enabled=false --set http-cloudevents.enabled=false
  port_free "$amqp_a"
  java -Xmx1g "$logging" -cp "$loadcp" io.junction.bench.amqp.ArtemisPeer "$amqp_a" "$work/artemis" \
    >"$work/artemis.log" 2>&1 &
  pid[artemis]=$!; pids+=($!); cpupids[artemis]=$!
  port[artemis]=$amqp_a
  brokers+=(artemis)
  await_line "$work/artemis.log" "ARTEMIS READY" "${pid[artemis]}" Artemis
}

amqp_closed_loop() { # broker -> max persistent sends/s (8 producers, 4 consumers)
  local line
  line=$(java -Xmx512m "$logging" -cp "$loadcp" io.junction.bench.amqp.JmsQueueLoad "amqp://127.0.0.1:${port[$1]}" \
    "${CAL_MESSAGES:-20000}" 8 4 1024 "${pid[$1]}" "${CAL_MESSAGES:-20000}" 2>>"$work/load.err" | grep '^RESULT' || true)
  echo "$1 closed-loop: $line" >&2
  field "$line" produce_msgs_per_s
}

amqp_fixed_rate() { # broker rate
  java -Xmx512m "$logging" -cp "$loadcp" io.junction.bench.amqp.JmsFixedRate "amqp://127.0.0.1:${port[$1]}" "$2" \
    "$warmup" "$seconds" "${PRODUCERS:-8}" "${CONSUMERS:-4}" "$1" "${cpupids[$1]}" 2>>"$work/load.err" | tail -1 || true
}

# ---------------------------------------------------------------------------------------------------- HTTP (CloudEvents)
http_setup() {
  start_junction "$http_j" --set remoting.enabled=false --set grpc.enabled=false --set mqtt.enabled=false \
    --set amqp.enabled=false --set kafka.enabled=false
  port_free "$http_c"
  java -Xmx256m -cp "$bench" io.junction.bench.http.HttpCeilingServer "$http_c" 2 >"$work/ceiling.log" 2>&1 &
  pid[ceiling]=$!; pids+=($!); cpupids[ceiling]=$!
  port[ceiling]=$http_c
  brokers+=(ceiling)
  await_port "$http_c"
}

http_closed_loop() { # server -> max events/s
  local line
  line=$(java -Xmx512m -cp "$bench" io.junction.bench.http.HttpFixedRate --url "http://127.0.0.1:${port[$1]}" \
    --threads "$threads" --warmup 5 --duration "$calibrate" 2>>"$work/load.err" | grep '^RESULT' || true)
  echo "$1 closed-loop: $line" >&2
  field "$line" closed_loop_per_s
}

http_fixed_rate() { # server rate
  local push=()
  [ "$1" = junction ] && push=(--push)
  java -Xmx512m -cp "$bench" io.junction.bench.http.HttpFixedRate --url "http://127.0.0.1:${port[$1]}" \
    --label "$1" --rate "$2" --threads "$threads" --warmup "$warmup" --duration "$seconds" "${push[@]}" \
    --broker-pids "${cpupids[$1]}" 2>>"$work/load.err" | tail -1 || true
}

case "$scenario" in
  http) proto=http ;;
  mqtt-fanin|mqtt-fanout) proto=mqtt ;;
  remoting) proto=remoting ;;
  jms) proto=amqp ;;
  *) echo "unknown scenario $scenario" >&2; exit 1 ;;
esac
"${proto}_setup"
echo "scenario $scenario, brokers: ${brokers[*]}, load average at start $(loadavg)" >&2

if [ -z "$rate" ]; then
  slowest=""
  for b in "${brokers[@]}"; do
    max=$("${proto}_closed_loop" "$b")
    echo "closed-loop max $b: $max msg/s (load average $(loadavg))" >&2
    # Against peers the rate follows the slowest peer; against the HTTP ceiling, Junction is the slower one.
    [ "$b" = junction ] && [ "$proto" != http ] && continue
    if [ -z "$slowest" ] || [ "$max" -lt "$slowest" ]; then slowest=$max; fi
  done
  rate=$(( slowest / 2 ))
  # HTTP: the closed loop measures ingress alone; at the fixed rate Junction also pushes every event to the sink (an
  # HTTP request out per event in) and the load tool runs the sink, so half the ingress maximum overloads 2 cores.
  [ "$proto" = http ] && rate=$(( slowest / 4 ))
  echo "rate = $(( rate * 100 / slowest )) % of the slowest maximum ($slowest msg/s) = $rate msg/s" >&2
else
  for b in "${brokers[@]}"; do "${proto}_closed_loop" "$b" >/dev/null; done # JIT warm-up, same as the calibration
fi

: >"$work/results.txt"
for b in "${brokers[@]}"; do
  la=$(loadavg)
  line=$("${proto}_fixed_rate" "$b" "$rate")
  echo "$line load_avg=$la" | tee -a "$work/results.txt" >&2
done

echo
echo "$scenario at $rate msg/s offered, $seconds s measured after $warmup s (latency ms from the intended send time):"
printf '%-10s %8s %8s %8s %8s | %8s %8s %8s %8s | %9s %6s %6s %9s %7s %6s\n' broker send_p50 p99 p99.9 max e2e_p50 \
  p99 p99.9 max cpu_us/msg cores idle 'us/msg>idle' missing load
while read -r line; do
  b=${line%% *}
  printf '%-10s %8s %8s %8s %8s | %8s %8s %8s %8s | %9s %6s %6s %9s %7s %6s\n' "$b" \
    "$(field "$line" send_p50_ms)" "$(field "$line" send_p99_ms)" "$(field "$line" send_p999_ms)" \
    "$(field "$line" send_max_ms)" "$(field "$line" e2e_p50_ms)" "$(field "$line" e2e_p99_ms)" \
    "$(field "$line" e2e_p999_ms)" "$(field "$line" e2e_max_ms)" "$(field "$line" broker_cpu_us_per_msg)" \
    "$(field "$line" broker_cores)" "$(field "$line" broker_idle_cores)" \
    "$(field "$line" broker_cpu_us_per_msg_above_idle)" "$(field "$line" missing)" "$(field "$line" load_avg)"
done <"$work/results.txt"
j=$(grep '^junction ' "$work/results.txt" | head -1)
for b in "${brokers[@]}"; do
  [ "$b" = junction ] && continue
  o=$(grep "^$b " "$work/results.txt" | head -1)
  ratios=""
  for k in send_p50_ms send_p99_ms send_p999_ms e2e_p50_ms e2e_p99_ms e2e_p999_ms broker_cpu_us_per_msg \
    broker_cpu_us_per_msg_above_idle; do
    ratios+=$(awk -v k="$k" -v a="$(field "$j" "$k")" -v c="$(field "$o" "$k")" \
      'BEGIN { if (c > 0) printf " %s=%.2f", k, a / c; else printf " %s=n/a", k }')
  done
  echo "ratio junction/$b:$ratios"
done
exit
}
