# Sourced by the side-by-side scripts (not run): starting, waiting for and stopping Junction and Apache RocketMQ
# processes, and the helpers around them. The caller has cd'd to the repository root, runs with `set -euo pipefail`,
# and sets before calling:
#   run   the directory of the current run (logs, data directories)
#   heap  the brokers' -Xmx
# Processes started here are recorded in `pids` (killed by bench_cleanup, the EXIT trap bench_work installs), the
# current process of a numbered node in `pid_of[i]` and its log in `log_of[i]`.

pids=()                # every process the script started, for the cleanup
declare -A pid_of=()   # node index -> pid of the process running it now
declare -A log_of=()   # node index -> the log of its current process (a new file per start)

# The work directory ($work) and the EXIT trap that kills what was started and removes it (KEEP=1 keeps it).
bench_work() {
  work="$(mktemp -d)"
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
}
bench_cleanup() {
  { exec 3>&-; } 2>/dev/null || true
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}

# Fails unless the broker jar and the benchmark class CLASS (a path under benchmarks/target/classes) are built.
bench_require_build() { # class-file
  jar="${JUNCTION_JAR:-broker/target/junction.jar}"
  classes="benchmarks/target/classes"
  [ -f "$jar" ] && [ -f "$classes/$1" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }
}

# Sets rmqcp: the classpath of RocketMQ of the version the parent pom pins, resolved by Maven once and cached in
# benchmarks/target. PEER names the pom under benchmarks/peers: rocketmq (default: broker, name server, client) or
# rocketmq-proxy (the same and the proxy, the client and mqadmin's tools with it).
rocketmq_classpath() { # [peer]
  local peer="${1:-rocketmq}" version cpfile
  version="$(sed -n 's:.*<rocketmq.version>\(.*\)</rocketmq.version>.*:\1:p' pom.xml | head -1)"
  cpfile="benchmarks/target/${peer}-${version}.classpath"
  if [ ! -s "$cpfile" ]; then
    mvn -B -q -f "benchmarks/peers/$peer/pom.xml" dependency:build-classpath -Drocketmq.version="$version" \
        -Dmdep.outputFile="$PWD/$cpfile" >&2
  fi
  rmqcp="$(cat "$cpfile")"
}

now_ms() { date +%s%3N; }

# Waits until FILE holds a line matching PATTERN; fails (with the file's tail) if PID exits first or after SECONDS.
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

# Waits until 127.0.0.1:PORT accepts a connection; fails (with the log's tail) if PID exits first or after SECONDS.
await_port() { # port pid what log [seconds]
  local limit=$(( ${5:-90} * 10 ))
  for _ in $(seq 1 "$limit"); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "$3 exited before it was ready:" >&2; tail -20 "$4" >&2; exit 1; }
    sleep 0.1
  done
  echo "$3 not listening on $1 within ${5:-90} s" >&2; tail -20 "$4" >&2; exit 1
}

# SIGTERM, then SIGKILL after 30 s.
stop() { # pid
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 1 300); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true
}

rss() { # pid -> "rss_kb anon_kb file_kb"
  awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {print r, a, f}' "/proc/$1/status"
}

# With MAX_LOAD set: waits (at most MAX_WAIT seconds, default 600) until the 1-minute load average is below it.
wait_for_quiet() {
  [ -n "${MAX_LOAD:-}" ] || return 0
  for _ in $(seq 1 $(( ${MAX_WAIT:-600} / 5 ))); do
    awk -v max="$MAX_LOAD" '{exit !($1 < max)}' /proc/loadavg && return 0
    sleep 5
  done
}

loadavg() { cut -d' ' -f1 /proc/loadavg; }

# ---------------------------------------------------------------------------------------- Junction, 3-node store group
# Ports from jbase (default 21870; below the ephemeral range 32768-60999, so that no client connection holds one when
# a node restarts): Raft jbase+i, contract server jbase+10+i, Remoting jbase+30+i, HTTP jbase+40+i. JUNCTION_SET adds
# "key=value ..." settings to every node.
jbase="${jbase:-21870}"
junction_members() { echo "n1@127.0.0.1:$((jbase + 1)),n2@127.0.0.1:$((jbase + 2)),n3@127.0.0.1:$((jbase + 3))"; }
junction_remoting_port() { echo $((jbase + 30 + $1)); }
junction_http_port() { echo $((jbase + 40 + $1)); }
junction_start() { # index
  local i="$1" kv
  local extra=()
  for kv in ${JUNCTION_SET:-}; do extra+=(--set "$kv"); done
  log_of[$i]="$run/n$i-$(now_ms).log"
  java -Xmx"$heap" -jar "$jar" --data-dir "$run/n$i" --set cluster.node-id="n$i" \
       --set cluster.members="$(junction_members)" --set cluster.contract-port=$((jbase + 10 + i)) \
       --set remoting.port="$(junction_remoting_port "$i")" --set http.port="$(junction_http_port "$i")" \
       --set grpc.enabled=false --set mqtt.enabled=false --set amqp.enabled=false --set kafka.enabled=false \
       --set http-cloudevents.enabled=false "${extra[@]}" >"${log_of[$i]}" 2>&1 &
  pid_of[$i]=$!; pids+=("$!")
}
junction_ready() { await_line "${log_of[$1]}" "Junction ready" "${pid_of[$1]}" "Junction n$1"; }
# The index of the node whose GET /cluster says it takes writes.
junction_leader() {
  for _ in $(seq 1 600); do
    for i in 1 2 3; do
      curl -s -m 1 "http://127.0.0.1:$(junction_http_port "$i")/cluster" 2>/dev/null \
        | grep -q '"acceptsWrites":true' && { echo "$i"; return 0; }
    done
    sleep 0.1
  done
  echo "no Junction leader within 60 s" >&2; exit 1
}
junction_namesrv() {
  echo "127.0.0.1:$(junction_remoting_port 1);127.0.0.1:$(junction_remoting_port 2);127.0.0.1:$(junction_remoting_port 3)"
}

# A single Junction node (no cluster) on the ports of node index 0 (Remoting jbase+30, HTTP jbase+40).
junction_single_start() {
  local kv
  local extra=()
  for kv in ${JUNCTION_SET:-}; do extra+=(--set "$kv"); done
  log_of[0]="$run/single-$(now_ms).log"
  java -Xmx"$heap" -jar "$jar" --data-dir "$run/single" --set remoting.port="$(junction_remoting_port 0)" \
       --set http.port="$(junction_http_port 0)" --set grpc.enabled=false --set mqtt.enabled=false \
       --set amqp.enabled=false --set kafka.enabled=false --set http-cloudevents.enabled=false "${extra[@]}" \
       >"${log_of[0]}" 2>&1 &
  pid_of[0]=$!; pids+=("$!")
  junction_ready 0
}

# ------------------------------------------------------- Junction store groups (role store), proxies, a combinable node
# Store groups g1..gN of R `store` replicas each (g1 holds the metadata) and proxies over all of them, ports from gbase
# (default 25870): group g's replica r Raft gbase+10g+r, contract server gbase+100+10g+r, HTTP gbase+200+10g+r; proxy
# p Remoting gbase+300+p, HTTP gbase+400+p, gRPC gbase+500+p. Every front-end but Remoting is off, and gRPC when
# proxy_grpc=true. Heaps: store_heap, proxy_heap (default heap). Node keys in pid_of/log_of: "g<g>.<r>" for a replica,
# "p<p>" for a proxy, "all" for the combinable node.
gbase="${gbase:-25870}"
group_contracts() { # group replicas -> host:port,... of its contract servers
  local r out=""
  for r in $(seq 1 "$2"); do out="${out:+$out,}127.0.0.1:$((gbase + 100 + 10 * $1 + r))"; done
  echo "$out"
}
group_start() { # group replicas: starts its replicas (not waiting)
  local g="$1" n="$2" r kv members=""
  local extra=()
  for kv in ${JUNCTION_SET:-}; do extra+=(--set "$kv"); done
  for r in $(seq 1 "$n"); do members="${members:+$members,}n$r@127.0.0.1:$((gbase + 10 * g + r))"; done
  for r in $(seq 1 "$n"); do
    log_of["g$g.$r"]="$run/g$g.$r-$(now_ms).log"
    java -Xmx"${store_heap:-$heap}" -jar "$jar" --data-dir "$run/g$g.$r" --set cluster.role=store \
         --set cluster.node-id="n$r" --set cluster.members="$members" \
         --set cluster.contract-port=$((gbase + 100 + 10 * g + r)) --set http.port=$((gbase + 200 + 10 * g + r)) \
         "${extra[@]}" >"${log_of["g$g.$r"]}" 2>&1 &
    pid_of["g$g.$r"]=$!; pids+=("$!")
  done
}
proxy_remoting_port() { echo $((gbase + 300 + $1)); }
proxy_http_port() { echo $((gbase + 400 + $1)); }
proxy_grpc_port() { echo $((gbase + 500 + $1)); }
proxy_start() { # index groups replicas: a proxy over store groups g1..g<groups> (cluster.store-groups), not waiting
  local p="$1" g kv spec=""
  local extra=()
  for kv in ${JUNCTION_SET:-}; do extra+=(--set "$kv"); done
  for g in $(seq 1 "$2"); do spec="${spec:+$spec;}g$g=$(group_contracts "$g" "$3")"; done
  log_of["p$p"]="$run/p$p-$(now_ms).log"
  java -Xmx"${proxy_heap:-$heap}" -jar "$jar" --data-dir "$run/p$p" --set cluster.role=proxy \
       --set cluster.store-groups="$spec" --set remoting.port="$(proxy_remoting_port "$p")" \
       --set http.port="$(proxy_http_port "$p")" --set grpc.enabled="${proxy_grpc:-false}" \
       --set grpc.port="$(proxy_grpc_port "$p")" --set mqtt.enabled=false --set amqp.enabled=false \
       --set kafka.enabled=false --set http-cloudevents.enabled=false "${extra[@]}" >"${log_of["p$p"]}" 2>&1 &
  pid_of["p$p"]=$!; pids+=("$!")
}
# Waits until a proxy's /health says it reaches every group's leader with recent metadata.
proxy_reaches_leaders() { # index
  for _ in $(seq 1 600); do
    curl -s -m 1 "http://127.0.0.1:$(proxy_http_port "$1")/health" 2>/dev/null | grep -q '"reachesLeader":true' \
      && return 0
    sleep 0.1
  done
  echo "proxy p$1 reaches no leader within 60 s" >&2; tail -20 "${log_of["p$1"]}" >&2; exit 1
}
# A combinable node (cluster.role=all): front-ends and the only replica of a one-member store group, on proxy 1's
# Remoting, HTTP and gRPC ports and group 1's Raft and contract ports.
all_start() {
  local kv
  local extra=()
  for kv in ${JUNCTION_SET:-}; do extra+=(--set "$kv"); done
  log_of[all]="$run/all-$(now_ms).log"
  java -Xmx"${proxy_heap:-$heap}" -jar "$jar" --data-dir "$run/all" --set cluster.node-id=n1 \
       --set cluster.members="n1@127.0.0.1:$((gbase + 11))" --set cluster.contract-port=$((gbase + 111)) \
       --set remoting.port="$(proxy_remoting_port 1)" --set http.port="$(proxy_http_port 1)" \
       --set grpc.enabled="${proxy_grpc:-false}" --set grpc.port="$(proxy_grpc_port 1)" --set mqtt.enabled=false \
       --set amqp.enabled=false --set kafka.enabled=false --set http-cloudevents.enabled=false "${extra[@]}" \
       >"${log_of[all]}" 2>&1 &
  pid_of[all]=$!; pids+=("$!")
}

# ----------------------------------------------------------------------------- RocketMQ DLedger: 3 brokers, 1 name server
# Ports from rbase (default 22870): name server rbase+6, broker i listens on rbase+31+10i (HA +1, DLedger +2).
# Needs rmqcp (rocketmq_classpath). ns_pid: the name server's pid.
rbase="${rbase:-22870}"
ns_pid=
rocketmq_namesrv() { echo "127.0.0.1:$((rbase + 6))"; }
rocketmq_broker_port() { echo $((rbase + 31 + 10 * $1)); }
rocketmq_namesrv_start() {
  mkdir -p "$run/home"
  printf 'listenPort=%s\nbindAddress=127.0.0.1\n' $((rbase + 6)) >"$run/ns.conf"
  ROCKETMQ_HOME="$run/home" java -Xmx256m -Drocketmq.home.dir="$run/home" -Duser.home="$run/home" -cp "$rmqcp" \
      org.apache.rocketmq.namesrv.NamesrvStartup -c "$run/ns.conf" >"$run/namesrv.log" 2>&1 &
  ns_pid=$!; pids+=("$ns_pid")
  await_line "$run/namesrv.log" "boot success" "$ns_pid" "RocketMQ name server"
}
# The name server and three brokers' configuration of one DLedger group (ASYNC_FLUSH: a send is acknowledged once a
# majority holds it, like Junction's default flush mode).
rocketmq_setup() {
  rocketmq_namesrv_start
  local peers="n1-127.0.0.1:$((rbase + 43));n2-127.0.0.1:$((rbase + 53));n3-127.0.0.1:$((rbase + 63))"
  for i in 1 2 3; do
    mkdir -p "$run/r$i/home"
    cat >"$run/r$i.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-dledger
brokerId=0
namesrvAddr=$(rocketmq_namesrv)
listenPort=$(rocketmq_broker_port "$i")
haListenPort=$(( $(rocketmq_broker_port "$i") + 1 ))
brokerIP1=127.0.0.1
storePathRootDir=$run/r$i/store
storePathCommitLog=$run/r$i/store/commitlog
flushDiskType=ASYNC_FLUSH
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
enableDLegerCommitLog=true
dLegerGroup=bench-dledger
dLegerPeers=$peers
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
# Which broker index a broker address (host:port, as the name server lists it) belongs to.
rocketmq_index_of() { # address
  for i in 1 2 3; do
    case "$1" in *:"$(rocketmq_broker_port "$i")") echo "$i"; return 0 ;; esac
  done
  return 1
}
rocketmq_stop_all() {
  for i in 1 2 3; do [ -n "${pid_of[$i]:-}" ] && stop "${pid_of[$i]}"; done
  if [ -n "$ns_pid" ]; then stop "$ns_pid"; ns_pid=''; fi
}

# ------------------------------------------------- RocketMQ with its proxy in cluster mode: name server, broker, proxy
# Ports from rbase: name server rbase+6 (as above), broker rbase+71 (its VIP channel rbase+69, HA rbase+72), proxy
# Remoting rbase+76 and gRPC rbase+81. Needs rmqcp from `rocketmq_classpath rocketmq-proxy`. Heaps: heap (broker and
# proxy), 256m (name server). Keys in pid_of/log_of: rbroker, rproxy; ns_pid: the name server's.
rocketmq_proxy_remoting() { echo "127.0.0.1:$((rbase + 76))"; }
rocketmq_proxy_grpc() { echo "127.0.0.1:$((rbase + 81))"; }
# Starts the three and waits until each serves. The broker flushes asynchronously (ASYNC_FLUSH, as Junction's default
# flush mode) and creates topics and groups on first use.
rocketmq_proxy_start() {
  local jvm=(-Drocketmq.home.dir="$run/home" -Duser.home="$run/home" -cp "$rmqcp")
  rocketmq_namesrv_start
  cat >"$run/rbroker.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-broker
brokerId=0
namesrvAddr=$(rocketmq_namesrv)
listenPort=$((rbase + 71))
haListenPort=$((rbase + 72))
bindAddress=127.0.0.1
brokerIP1=127.0.0.1
storePathRootDir=$run/rbroker/store
storePathCommitLog=$run/rbroker/store/commitlog
flushDiskType=ASYNC_FLUSH
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
CONF
  log_of[rbroker]="$run/rbroker-$(now_ms).log"
  ROCKETMQ_HOME="$run/home" java -Xmx"$heap" "${jvm[@]}" org.apache.rocketmq.broker.BrokerStartup \
      -c "$run/rbroker.conf" >"${log_of[rbroker]}" 2>&1 &
  pid_of[rbroker]=$!; pids+=("$!")
  await_line "${log_of[rbroker]}" "boot success" "${pid_of[rbroker]}" "RocketMQ broker"
  printf '{"rocketMQClusterName": "BenchCluster", "namesrvAddr": "%s", "proxyMode": "cluster",%s\n' \
      "$(rocketmq_namesrv)" " \"grpcServerPort\": $((rbase + 81)), \"remotingListenPort\": $((rbase + 76))}" \
      >"$run/rmq-proxy.json"
  log_of[rproxy]="$run/rproxy-$(now_ms).log"
  ROCKETMQ_HOME="$run/home" java -Xmx"$heap" "${jvm[@]}" org.apache.rocketmq.proxy.ProxyStartup \
      -pc "$run/rmq-proxy.json" -pm cluster >"${log_of[rproxy]}" 2>&1 &
  pid_of[rproxy]=$!; pids+=("$!")
  await_port $((rbase + 81)) "${pid_of[rproxy]}" "RocketMQ proxy (gRPC)" "${log_of[rproxy]}"
  await_port $((rbase + 76)) "${pid_of[rproxy]}" "RocketMQ proxy (Remoting)" "${log_of[rproxy]}"
}
# Creates TOPIC with QUEUES read and write queues on every broker of CLUSTER as the name server NAMESRV lists them
# (mqadmin updateTopic, from rmqcp of `rocketmq_classpath rocketmq-proxy`): RocketMQ's proxy creates no topic itself,
# neither for a gRPC route query nor for a Remoting client's createTopic ("request type 17 not supported").
mqadmin_update_topic() { # namesrv cluster topic queues
  mkdir -p "$run/home"
  ROCKETMQ_HOME="$run/home" java -Xmx256m -Drocketmq.home.dir="$run/home" -Duser.home="$run/home" -cp "$rmqcp" \
      org.apache.rocketmq.tools.command.MQAdminStartup updateTopic -n "$1" -c "$2" -t "$3" -r "$4" -w "$4" \
      >>"$run/mqadmin.log" 2>&1 \
    || { echo "mqadmin updateTopic $3 failed:" >&2; tail -20 "$run/mqadmin.log" >&2; exit 1; }
}
