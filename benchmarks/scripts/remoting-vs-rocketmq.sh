#!/usr/bin/env bash
# Junction's Remoting front-end against Apache RocketMQ (name server + broker from Maven Central), side by side in one
# run: the same rocketmq-client load (io.junction.bench.remoting.RemotingLoad: N threads of sync sends of 1 KiB bodies
# for a fixed time, then a push consumer draining the topic) against each broker, fresh data directory each time,
# brokers alternating (J, R, J, R, ...) per flush mode; then a table of medians and ratios, with each broker's
# resident memory after its run.
#
# Needs: curl, a built tree (mvn -B -q -DskipTests package), Maven to resolve RocketMQ's classpath once (cached in
# benchmarks/target). Usage:
#   benchmarks/scripts/remoting-vs-rocketmq.sh [SECONDS] [THREADS] [ROUNDS] [MODES]
#   e.g. benchmarks/scripts/remoting-vs-rocketmq.sh 30 32 2 "ASYNC SYNC"
# Environment: HEAP (broker heaps, default 1g), WARMUP (seconds, default 5), QUEUES (default 8), SIZE (default 1024),
# DRAINS (measured drains per run, each by a new group over the whole topic; the median is reported; default 3),
# WARMUP_DRAINS (unmeasured drains of the whole topic before those, so both brokers' consume paths are compiled; 1),
# MAX_LOAD (wait before each run until the 1-minute load average is below it, at most MAX_WAIT seconds, default 600;
# default: no wait),
# KEEP=1 keeps the work directory (logs, per-run output).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-30}"
threads="${2:-32}"
rounds="${3:-2}"
modes="${4:-ASYNC SYNC}"
heap="${HEAP:-1g}"
warmup="${WARMUP:-5}"
queues="${QUEUES:-8}"
size="${SIZE:-1024}"
drains="${DRAINS:-3}"
warmup_drains="${WARMUP_DRAINS:-1}"
jport=39876; jhttp=38080; nport=39877; bport=30911

. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/RemotingLoad.class
rocketmq_classpath
bench_work

load() { # label namesrv broker-pids -> RESULT line
  java -Xmx1g -cp "$classes:$rmqcp" io.junction.bench.remoting.RemotingLoad --namesrv "$2" --label "$1" \
       --threads "$threads" --seconds "$seconds" --warmup-seconds "$warmup" --size "$size" --queues "$queues" \
       --drains "$drains" --warmup-drains "$warmup_drains" --broker-pids "$3" \
       >"$run/load.txt" 2>"$run/load.err" || true
  grep "^$1: " "$run/load.txt" >&2 || true
  grep '^RESULT ' "$run/load.txt" || { echo "the load tool failed:" >&2; tail -20 "$run/load.err" >&2; exit 1; }
}

run_junction() { # mode
  java -Xmx"$heap" -jar "$jar" --data-dir "$run/data" --set remoting.port=$jport --set http.port=$jhttp \
       --set store.flush-mode="$1" --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false \
       --set http-cloudevents.enabled=false >"$run/broker.log" 2>&1 &
  local pid=$!; pids+=("$pid")
  await_line "$run/broker.log" "Junction ready" "$pid" "Junction"
  result="$(load junction "127.0.0.1:$jport" "$pid")"
  read -r rss_kb anon_kb file_kb <<<"$(rss "$pid")"
  stop "$pid"
  echo "$result rss_kb=$rss_kb anon_kb=$anon_kb file_kb=$file_kb ns_rss_kb=0" >"$run/result"
}

run_rocketmq() { # mode
  local flush=ASYNC_FLUSH; [ "$1" = SYNC ] && flush=SYNC_FLUSH
  mkdir -p "$run/home"
  printf 'listenPort=%s\nbindAddress=127.0.0.1\n' "$nport" >"$run/ns.conf"
  cat >"$run/broker.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-broker
brokerId=0
namesrvAddr=127.0.0.1:$nport
listenPort=$bport
haListenPort=$((bport + 1))
brokerIP1=127.0.0.1
storePathRootDir=$run/store
storePathCommitLog=$run/store/commitlog
flushDiskType=$flush
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
CONF
  local jvm=(-Drocketmq.home.dir="$run/home" -Duser.home="$run/home" -cp "$rmqcp")
  ROCKETMQ_HOME="$run/home" java -Xmx256m "${jvm[@]}" org.apache.rocketmq.namesrv.NamesrvStartup -c "$run/ns.conf" \
      >"$run/namesrv.log" 2>&1 &
  local ns=$!; pids+=("$ns")
  await_line "$run/namesrv.log" "boot success" "$ns" "RocketMQ name server"
  ROCKETMQ_HOME="$run/home" java -Xmx"$heap" "${jvm[@]}" org.apache.rocketmq.broker.BrokerStartup -c "$run/broker.conf" \
      >"$run/broker.log" 2>&1 &
  local broker=$!; pids+=("$broker")
  await_line "$run/broker.log" "boot success" "$broker" "RocketMQ broker"
  result="$(load rocketmq "127.0.0.1:$nport" "$broker,$ns")"
  read -r rss_kb anon_kb file_kb <<<"$(rss "$broker")"
  read -r ns_kb _ _ <<<"$(rss "$ns")"
  stop "$broker"; stop "$ns"
  echo "$result rss_kb=$rss_kb anon_kb=$anon_kb file_kb=$file_kb ns_rss_kb=$ns_kb" >"$run/result"
}

results="$work/results.txt"
: >"$results"
for mode in $modes; do
  for round in $(seq 1 "$rounds"); do
    for broker in junction rocketmq; do
      run="$work/$mode-$round-$broker"; mkdir -p "$run"
      wait_for_quiet
      loadavg="$(cut -d' ' -f1 /proc/loadavg)"
      echo "== $mode flush, round $round, $broker (load average $loadavg)" >&2
      "run_$broker" "$mode" # not in a subshell: the EXIT trap must know the brokers it started
      echo "mode=$mode round=$round load=$loadavg end_load=$(cut -d' ' -f1 /proc/loadavg) $(cat "$run/result")" \
        | tee -a "$results" >&2
      rm -rf "$run/data" "$run/store"
    done
  done
done

# Medians per mode and broker, then the ratios Junction / RocketMQ.
awk '
function field(name,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] } return "" }
function median(key,   n, i, j, t, a) {
  n = split(vals[key], a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(name) { return med["rocketmq", name] == 0 ? 0 : med["junction", name] / med["rocketmq", name] }
BEGIN { split("tps p50_ms p99_ms drain_rate broker_send_us broker_drain_us client_send_us rss_kb anon_kb file_kb ns_rss_kb", names, " ") }
{
  m = field("mode"); b = field("label"); modes[m] = 1; runs[m, b]++
  for (k in names) { key = m SUBSEP b SUBSEP names[k]; vals[key] = vals[key] (vals[key] == "" ? "" : " ") field(names[k]) }
}
END {
  printf "\n%-6s %-9s %4s %9s %8s %8s %9s %10s %10s %10s %7s %7s %7s %6s\n", "flush", "broker", "runs", "send/s", \
         "p50 ms", "p99 ms", "drain/s", "CPU us/s", "CPU us/d", "client/s", "RSS MB", "anon", "file", "+ns"
  for (m in modes) {
    for (bi = 1; bi <= 2; bi++) {
      b = bi == 1 ? "junction" : "rocketmq"
      for (k in names) med[b, names[k]] = median(m SUBSEP b SUBSEP names[k])
      printf "%-6s %-9s %4d %9.0f %8.2f %8.2f %9.0f %10.1f %10.1f %10.1f %7.0f %7.0f %7.0f %6.0f\n", m, b, runs[m, b], \
             med[b, "tps"], med[b, "p50_ms"], med[b, "p99_ms"], med[b, "drain_rate"], med[b, "broker_send_us"], \
             med[b, "broker_drain_us"], med[b, "client_send_us"], med[b, "rss_kb"] / 1024, med[b, "anon_kb"] / 1024, \
             med[b, "file_kb"] / 1024, med[b, "ns_rss_kb"] / 1024
    }
    printf "%-6s %-14s %8.2fx %7.2fx %7.2fx %8.2fx %9.2fx %9.2fx %10s %6.2fx %6.2fx %6.2fx   J / R; RSS vs broker + name server: %.2fx\n", \
           m, "ratio J/R", ratio("tps"), ratio("p50_ms"), ratio("p99_ms"), ratio("drain_rate"), ratio("broker_send_us"), \
           ratio("broker_drain_us"), "", ratio("rss_kb"), ratio("anon_kb"), ratio("file_kb"), \
           med["junction", "rss_kb"] / (med["rocketmq", "rss_kb"] + med["rocketmq", "ns_rss_kb"])
  }
  print "\nsend/s, p50/p99: measured send phase; drain/s: first to last delivery; CPU us/s, us/d: broker CPU time per"
  print "message sent / drained (RocketMQ: broker + name server); client/s: the load tool'"'"'s CPU per message sent;"
  print "RSS after the run (anon = heap and native, file = mapped log pages). Medians of the runs."
  print "Bars (issue 4, ASYNC): send/s and drain/s >= 1.50x RocketMQ, p99 no worse (ratio <= 1.00)."
}' "$results"
