#!/usr/bin/env bash
# Sends through a proxy hop: Junction's proxy deployment against Apache RocketMQ 5.3.3 with its proxy in cluster mode
# (issue 25's bar: gRPC and Remoting sends >= 1.5x), side by side in one run. Systems, each started fresh (new data
# directories) in each round, everything on this machine's loopback:
#   rocketmq  RocketMQ's name server, one broker (ASYNC_FLUSH) and its proxy in cluster mode (-pm cluster)
#   proxy     Junction: one proxy (cluster.role=proxy) over one store group of one replica (cluster.role=store)
#   all       for reference (SYSTEMS="rocketmq proxy all"): Junction's combinable node (cluster.role=all), no hop
# The clients are given the proxy's endpoints only: gRPC its gRPC port; Remoting its Remoting port as the name server
# address (as RocketMQ 5 documents for Remoting clients through a proxy; Junction's proxy answers routes with itself).
# Loads (LOADS, both by default), each on a topic of its own of QUEUES queues made beforehand with mqadmin updateTopic
# (RocketMQ's proxy takes no topic creation; Junction's is given the same command through its proxy):
#   remoting  RemotingLoad (rocketmq-client 5.3.3): THREADS threads of sync sends of SIZE-byte bodies, WARMUP seconds
#             unmeasured (drained), SECONDS measured, then a push consumer drains the topic (every message must come)
#   grpc      GrpcLoad's send phase (rocketmq-client-java 5.x, GrpcSideBySide --endpoints): THREADS threads of blocking
#             sends sharing one Producer, WARMUP then SECONDS measured, then a SimpleConsumer drains the topic
# CPU time is read from /proc/<pid>/stat for every broker process (RocketMQ: name server, broker and proxy; Junction:
# the store and the proxy) over the measured send phase and charged to its messages; the proxies' share is shown
# apart. Rounds alternate the systems' order (odd rounds as listed, even rounds reversed), so a disturbance by another
# tenant falls on all alike. The table shows the medians of the rounds, the ratio Junction proxy / RocketMQ of each
# round and their median against the bar, and the load average of every run.
#
# Needs: curl, a built tree (mvn -B -q -DskipTests package), Maven to resolve RocketMQ's classpath with its proxy and
# tools once (benchmarks/peers/rocketmq-proxy, cached in benchmarks/target). Usage:
#   benchmarks/scripts/proxy-vs-rocketmq.sh [SECONDS] [ROUNDS]       e.g. benchmarks/scripts/proxy-vs-rocketmq.sh 30 3
# Environment: THREADS (32), WARMUP (20), QUEUES (8), SIZE (1024, Remoting; gRPC bodies are 1 KiB), HEAP (512m: the
# RocketMQ broker and proxy, the Junction store, proxy and combinable node; the name server has 256m), SYSTEMS
# ("rocketmq proxy"), LOADS ("remoting grpc"), MAX_LOAD (wait before each run until the 1-minute load average is below
# it), JUNCTION_JAR (another broker jar), KEEP=1 keeps the work directory (logs, each load's output).
set -euo pipefail
# One block, read whole before it runs: editing the file during a run must not change what the run does.
{
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
rounds="${2:-3}"
threads="${THREADS:-32}"
warmup="${WARMUP:-20}"
queues="${QUEUES:-8}"
size="${SIZE:-1024}"
heap="${HEAP:-512m}"
systems="${SYSTEMS:-rocketmq proxy}"
loads="${LOADS:-remoting grpc}"
# Ports of their own (26870 up, 27870 up), apart from the other scripts' (21870 to 25870).
gbase=26870
rbase=27870
proxy_grpc=true

. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/RemotingLoad.class
[ -f benchmarks/target/benchmarks.jar ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }
rocketmq_classpath rocketmq-proxy
bench_work

# Each start_<system> starts its processes and waits until they serve; sets remoting and grpc (the entry points),
# namesrv and cluster (where mqadmin makes topics), cpupids (every broker process) and proxypids (the proxies).
start_rocketmq() {
  rocketmq_proxy_start
  remoting="$(rocketmq_proxy_remoting)"; grpc="$(rocketmq_proxy_grpc)"
  namesrv="$(rocketmq_namesrv)"; cluster=BenchCluster
  cpupids="$ns_pid,${pid_of[rbroker]},${pid_of[rproxy]}"; proxypids="${pid_of[rproxy]}"
}
start_proxy() {
  group_start 1 1
  await_line "${log_of[g1.1]}" "Junction ready" "${pid_of[g1.1]}" "store g1.1"
  proxy_start 1 1 1
  await_line "${log_of[p1]}" "Junction ready" "${pid_of[p1]}" "proxy p1"
  proxy_reaches_leaders 1
  junction_entry
  cpupids="${pid_of[g1.1]},${pid_of[p1]}"; proxypids="${pid_of[p1]}"
}
start_all() {
  all_start
  await_line "${log_of[all]}" "Junction ready" "${pid_of[all]}" "combinable node"
  junction_entry
  cpupids="${pid_of[all]}"; proxypids=""
}
junction_entry() {
  remoting="127.0.0.1:$(proxy_remoting_port 1)"; grpc="127.0.0.1:$(proxy_grpc_port 1)"
  namesrv="$remoting"; cluster=JunctionCluster
}
stop_system() { # proxies first, then the brokers and stores, then the name server
  local k
  for k in "${!pid_of[@]}"; do case "$k" in p*|rproxy|all) stop "${pid_of[$k]}"; unset "pid_of[$k]" ;; esac; done
  for k in "${!pid_of[@]}"; do stop "${pid_of[$k]}"; unset "pid_of[$k]"; done
  if [ -n "$ns_pid" ]; then stop "$ns_pid"; ns_pid=''; fi
}

# Each load_<kind> runs one load against the started system on a new topic -> its RESULT line and its exit status
# (status=2: a send failed or the drain missed messages).
load_remoting() { # system topic
  local status=0
  java -Xmx1g -cp "$classes:$rmqcp" io.junction.bench.remoting.RemotingLoad --namesrv "$remoting" --label "$1" \
       --topic "$2" --threads "$threads" --seconds "$seconds" --warmup-seconds "$warmup" --size "$size" \
       --queues "$queues" --drains 1 --broker-pids "$cpupids" ${proxypids:+--proxy-pids "$proxypids"} \
       >"$run/remoting.txt" 2>"$run/remoting.err" || status=$?
  grep "^$1: " "$run/remoting.txt" >&2 || true
  load_result remoting "$status"
}
load_grpc() { # system topic
  local status=0
  java -Xmx1g -cp benchmarks/target/benchmarks.jar io.junction.bench.grpc.GrpcSideBySide --endpoints "$grpc" \
       --label "$1" --topic "$2" --threads "$threads" --seconds "$seconds" --warm-up-seconds "$warmup" \
       --broker-pids "$cpupids" ${proxypids:+--proxy-pids "$proxypids"} >"$run/grpc.txt" 2>"$run/grpc.err" \
    || status=$?
  grep -v '^RESULT ' "$run/grpc.txt" >&2 || true
  load_result grpc "$status"
}
load_result() { # kind status
  local line
  line="$(grep '^RESULT ' "$run/$1.txt")" \
    || { echo "the $1 load failed (exit $2):" >&2; tail -20 "$run/$1.err" >&2; exit 1; }
  echo "$line status=$2"
}

results="$work/results.txt"
: >"$results"
for round in $(seq 1 "$rounds"); do
  order="$systems"
  [ $((round % 2)) = 0 ] && order="$(tr ' ' '\n' <<<"$systems" | tac | tr '\n' ' ')"
  for system in $order; do
    run="$work/$round-$system"; mkdir -p "$run"
    wait_for_quiet
    echo "== round $round, $system (load average $(loadavg))" >&2
    "start_$system"
    for kind in $loads; do
      topic="bench-$kind-$round-$system"
      mqadmin_update_topic "$namesrv" "$cluster" "$topic" "$queues"
      start_load="$(loadavg)"
      result="$("load_$kind" "$system" "$topic")"
      echo "system=$system kind=$kind round=$round load=$start_load end_load=$(loadavg) $result" \
        | tee -a "$results" >&2
    done
    stop_system
    rm -rf "$run"/g?.? "$run"/p? "$run/all" "$run/rbroker"
  done
done

awk -v systems="$systems" -v loads="$loads" '
function field(name,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] } return "" }
function median(list,   n, i, j, t, a) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { split("tps p99_ms broker_send_us proxy_send_us client_send_us load", names, " ") }
{
  s = field("system"); k = field("kind"); r = field("round"); runs[k, s]++
  for (n in names) {
    key = k SUBSEP s SUBSEP names[n]; vals[key] = vals[key] (vals[key] == "" ? "" : " ") field(names[n])
  }
  tps[k, s, r] = field("tps")
  if (field("status") != 0) bad[k, s] = bad[k, s] " round " r " (" field("failed") " sends failed, " field("drained") \
    " received in the drain)"
}
END {
  ns = split(systems, sys, " "); nk = split(loads, kinds, " ")
  printf "\n%-9s %-9s %4s %9s %8s %9s %9s %9s %9s %6s\n", "load", "system", "runs", "send/s", "p99 ms", "msg/CPU-s", \
         "CPU us", "proxies", "client", "load"
  for (ki = 1; ki <= nk; ki++) for (si = 1; si <= ns; si++) {
    k = kinds[ki]; s = sys[si]; if (!((k, s) in runs)) continue
    for (n in names) med[k, s, names[n]] = median(vals[k SUBSEP s SUBSEP names[n]])
    printf "%-9s %-9s %4d %9.0f %8.2f %9.0f %9.1f %9.1f %9.1f %6.2f\n", k, s, runs[k, s], med[k, s, "tps"], \
           med[k, s, "p99_ms"], 1e6 / med[k, s, "broker_send_us"], med[k, s, "broker_send_us"], \
           med[k, s, "proxy_send_us"], med[k, s, "client_send_us"], med[k, s, "load"]
  }
  print ""
  for (ki = 1; ki <= nk; ki++) {
    k = kinds[ki]
    if (!((k, "proxy") in runs) || !((k, "rocketmq") in runs)) continue
    per = ""; list = ""
    for (r = 1; (k, "proxy", r) in tps; r++) if ((k, "rocketmq", r) in tps && tps[k, "rocketmq", r] > 0) {
      x = tps[k, "proxy", r] / tps[k, "rocketmq", r]; per = per sprintf(" %.2f", x); list = list " " x
    }
    m = median(list)
    printf "%s, Junction proxy / RocketMQ proxy: send/s per round%s, median %.2fx (bar >= 1.50: %s); CPU per " \
           "message %.2fx (of it the proxy %.2fx)\n", k, per, m, (m >= 1.5 ? "PASS" : "FAIL"), \
           med[k, "proxy", "broker_send_us"] / med[k, "rocketmq", "broker_send_us"], \
           med[k, "proxy", "proxy_send_us"] / med[k, "rocketmq", "proxy_send_us"]
    if ((k, "all") in runs) printf "%s, proxy hop: Junction proxy / combinable node: send/s %.2fx, CPU per " \
      "message %.2fx\n", k, med[k, "proxy", "tps"] / med[k, "all", "tps"], \
      med[k, "proxy", "broker_send_us"] / med[k, "all", "broker_send_us"]
  }
  for (key in bad) {
    split(key, kk, SUBSEP); printf "SENDS FAILED OR MESSAGES MISSING: %s load on %s:%s\n", kk[1], kk[2], bad[key]
  }
  print "\nsend/s, p99: the measured send phase (closed loop, sync sends); msg/CPU-s: messages per CPU-second of all"
  print "broker processes (RocketMQ: name server, broker, proxy; Junction: store and proxy); CPU us: their CPU per"
  print "message sent, of it the proxies'"'"'; client: the load tool'"'"'s; load: the 1-minute load average at each"
  print "load'"'"'s start. Medians of the rounds; the per-round ratios pair the systems'"'"' runs of the same round."
}' "$results"
exit 0
}
