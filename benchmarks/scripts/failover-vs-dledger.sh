#!/usr/bin/env bash
# Failover time of a 3-node Junction store group against Apache RocketMQ 5.3.3 in DLedger mode (3 brokers of one
# DLedger group, one name server), side by side in one run with the same client: one rocketmq-client producer
# (io.junction.bench.remoting.FailoverProbe: sync sends of 1 KiB one after another, the client's own retries, 3 s send
# timeout, 1 s route refresh) writes to the group; the script SIGKILLs the group's leader KILLS times (a few seconds
# after the group settled each time), restarts it on the same ports, and measures from the kill to the first
# acknowledgement of a send begun after it. Then a table: median and max per broker, and the ratio.
#
# Leaders: Junction's is the node whose GET /cluster says "acceptsWrites":true; RocketMQ's is the broker the name
# server lists as id 0 (a DLedger group's leader registers as id 0). Both run with their defaults for failure detection:
# Junction cluster.election-timeout-ms=1000; DLedger heartbeats every 2 s, a follower stands after 3 missed ones.
#
# Needs: curl, a built tree (mvn -B -q -DskipTests package), Maven to resolve RocketMQ's classpath once (cached in
# benchmarks/target). Usage:
#   benchmarks/scripts/failover-vs-dledger.sh [KILLS] [ORDER]      e.g. benchmarks/scripts/failover-vs-dledger.sh 5
# ORDER: "junction rocketmq" (default) or one of them. Environment: HEAP (each broker's heap, default 512m),
# SETTLE (seconds between a restart and the next kill, default 5), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
kills="${1:-5}"
order="${2:-junction rocketmq}"
heap="${HEAP:-512m}"
settle="${SETTLE:-5}"

jar="${JUNCTION_JAR:-broker/target/junction.jar}"
classes="benchmarks/target/classes"
[ -f "$jar" ] && [ -f "$classes/io/junction/bench/remoting/FailoverProbe.class" ] \
  || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }

version="$(sed -n 's:.*<rocketmq.version>\(.*\)</rocketmq.version>.*:\1:p' pom.xml | head -1)"
cpfile="benchmarks/target/rocketmq-${version}.classpath"
if [ ! -s "$cpfile" ]; then
  mvn -B -q -f benchmarks/peers/rocketmq/pom.xml dependency:build-classpath -Drocketmq.version="$version" \
      -Dmdep.outputFile="$PWD/$cpfile" >&2
fi
rmqcp="$(cat "$cpfile")"

work="$(mktemp -d)"
declare -A pid_of=()   # node index -> pid of the process running it now
declare -A log_of=()   # node index -> the log of its current process (a new file per start)
ns_pid=
pids=()                # every process this script started, for the cleanup
cleanup() {
  exec 3>&- 2>/dev/null || true
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }

await_line() { # file pattern pid what [seconds]
  local limit=$(( ${5:-90} * 10 ))
  for _ in $(seq 1 "$limit"); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { echo "$4 exited before it was ready:" >&2; tail -20 "$1" >&2; exit 1; }
    sleep 0.1
  done
  echo "$4 not ready within ${5:-90} s" >&2; tail -20 "$1" >&2; exit 1
}

count() { grep -c "$2" "$1" 2>/dev/null || true; }

# Ports below the ephemeral range (32768-60999 here), so that no client connection holds one when a node restarts.
# ------------------------------------------------------------------------------------------------------- Junction
jmembers="n1@127.0.0.1:21871,n2@127.0.0.1:21872,n3@127.0.0.1:21873"
junction_start() { # index
  local i="$1"
  log_of[$i]="$run/n$i-$(now_ms).log"
  java -Xmx"$heap" -jar "$jar" --data-dir "$run/n$i" --set cluster.node-id="n$i" --set cluster.members="$jmembers" \
       --set cluster.contract-port=$((21880 + i)) --set remoting.port=$((21900 + i)) --set http.port=$((21910 + i)) \
       --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false --set kafka.enabled=false \
       --set http-cloudevents.enabled=false >"${log_of[$i]}" 2>&1 &
  pid_of[$i]=$!; pids+=("$!")
}
junction_ready() { await_line "${log_of[$1]}" "Junction ready" "${pid_of[$1]}" "Junction n$1"; }
junction_leader() {
  for _ in $(seq 1 600); do
    for i in 1 2 3; do
      curl -s -m 1 "http://127.0.0.1:$((21910 + i))/cluster" 2>/dev/null | grep -q '"acceptsWrites":true' \
        && { echo "$i"; return 0; }
    done
    sleep 0.1
  done
  echo "no Junction leader within 60 s" >&2; exit 1
}
junction_namesrv() { echo "127.0.0.1:21901;127.0.0.1:21902;127.0.0.1:21903"; }

# ------------------------------------------------------------------------------------------------------- RocketMQ
rpeers="n1-127.0.0.1:22913;n2-127.0.0.1:22923;n3-127.0.0.1:22933"
rocketmq_setup() {
  mkdir -p "$run/home"
  printf 'listenPort=22876\nbindAddress=127.0.0.1\n' >"$run/ns.conf"
  ROCKETMQ_HOME="$run/home" java -Xmx256m -Drocketmq.home.dir="$run/home" -Duser.home="$run/home" -cp "$rmqcp" \
      org.apache.rocketmq.namesrv.NamesrvStartup -c "$run/ns.conf" >"$run/namesrv.log" 2>&1 &
  ns_pid=$!; pids+=("$ns_pid")
  await_line "$run/namesrv.log" "boot success" "$ns_pid" "RocketMQ name server"
  for i in 1 2 3; do
    mkdir -p "$run/r$i/home"
    cat >"$run/r$i.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-dledger
brokerId=0
namesrvAddr=127.0.0.1:22876
listenPort=$((22901 + 10 * i))
haListenPort=$((22902 + 10 * i))
brokerIP1=127.0.0.1
storePathRootDir=$run/r$i/store
storePathCommitLog=$run/r$i/store/commitlog
flushDiskType=ASYNC_FLUSH
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
enableDLegerCommitLog=true
dLegerGroup=bench-dledger
dLegerPeers=$rpeers
dLegerSelfId=n$i
CONF
  done
}
rocketmq_start() { # index
  local i="$1"
  log_of[$i]="$run/r$i-$(now_ms).log"
  ROCKETMQ_HOME="$run/r$i/home" java -Xmx"$heap" -Drocketmq.home.dir="$run/r$i/home" -Duser.home="$run/r$i/home" \
      -cp "$rmqcp" org.apache.rocketmq.broker.BrokerStartup -c "$run/r$i.conf" >"${log_of[$i]}" 2>&1 &
  pid_of[$i]=$!; pids+=("$!")
}
rocketmq_ready() { await_line "${log_of[$1]}" "boot success" "${pid_of[$1]}" "RocketMQ broker r$1"; }
rocketmq_leader() { # asks the probe which broker the name server lists as id 0
  for _ in $(seq 1 120); do
    local before; before="$(count "$run/probe.out" '^LEADER ')"
    echo LEADER >&3
    for _ in $(seq 1 50); do
      [ "$(count "$run/probe.out" '^LEADER ')" -gt "$before" ] && break
      sleep 0.1
    done
    local addr; addr="$(grep '^LEADER ' "$run/probe.out" | tail -1 | cut -d' ' -f2)"
    case "$addr" in
      *:22911) echo 1; return 0 ;;
      *:22921) echo 2; return 0 ;;
      *:22931) echo 3; return 0 ;;
    esac
    sleep 0.5
  done
  echo "no RocketMQ leader registered within about 2 minutes" >&2; exit 1
}
rocketmq_namesrv() { echo "127.0.0.1:22876"; }

# ------------------------------------------------------------------------------------------------------- the run
results="$work/results.txt"
: >"$results"
for broker in $order; do
  run="$work/$broker"; mkdir -p "$run"
  echo "== $broker: starting 3 nodes (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  [ "$broker" = rocketmq ] && rocketmq_setup
  for i in 1 2 3; do "${broker}_start" "$i"; done
  for i in 1 2 3; do "${broker}_ready" "$i"; done
  mkfifo "$run/probe.in"
  java -Xmx256m -cp "$classes:$rmqcp" io.junction.bench.remoting.FailoverProbe --namesrv "$("${broker}_namesrv")" \
       --topic "failover-$broker" <"$run/probe.in" >"$run/probe.out" 2>"$run/probe.err" &
  probe=$!; pids+=("$probe")
  exec 3>"$run/probe.in"
  await_line "$run/probe.out" "^READY" "$probe" "the probe" 120
  for k in $(seq 1 "$kills"); do
    sleep "$settle" # the group settles (the restarted node catches up); not a wait for an outcome
    leader="$("${broker}_leader")"
    at="$(now_ms)"
    echo "MARK $at" >&3
    kill -KILL "${pid_of[$leader]}"
    wait "${pid_of[$leader]}" 2>/dev/null || true # reaped here, without bash's "Killed" notice
    ms=timeout
    for _ in $(seq 1 1200); do
      line="$(grep "^FIRST $at " "$run/probe.out" || true)"
      [ -n "$line" ] && { ms="$(echo "$line" | cut -d' ' -f3)"; break; }
      sleep 0.1
    done
    echo "broker=$broker kill=$k leader=$leader first_ack_ms=$ms load=$(cut -d' ' -f1 /proc/loadavg)" \
      | tee -a "$results" >&2
    "${broker}_start" "$leader"
    "${broker}_ready" "$leader"
  done
  echo QUIT >&3; exec 3>&-
  wait "$probe" 2>/dev/null || true
  for i in 1 2 3; do kill -TERM "${pid_of[$i]}" 2>/dev/null || true; done
  for i in 1 2 3; do wait "${pid_of[$i]}" 2>/dev/null || true; done
  if [ -n "$ns_pid" ]; then kill -TERM "$ns_pid" 2>/dev/null || true; wait "$ns_pid" 2>/dev/null || true; ns_pid=''; fi
done

echo
echo "Failover: SIGKILL of the leader to the first acknowledged send begun after it ($kills kills each)"
echo "| broker | median ms | max ms | all ms |"
echo "| --- | --- | --- | --- |"
for broker in $order; do
  vals="$(grep "broker=$broker " "$results" | sed 's/.*first_ack_ms=\([^ ]*\).*/\1/' | tr '\n' ' ')"
  sorted="$(echo "$vals" | tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n || true)"
  n="$(echo "$sorted" | grep -c . || true)"
  if [ "$n" -gt 0 ]; then
    median="$(echo "$sorted" | sed -n "$(( (n + 1) / 2 ))p")"; max="$(echo "$sorted" | tail -1)"
  else
    median=-; max=-
  fi
  echo "| $broker | $median | $max | $vals|"
done
