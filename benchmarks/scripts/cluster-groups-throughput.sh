#!/usr/bin/env bash
# Throughput and CPU per message with 1, 2 and 3 store groups behind two proxies, and the cost of the proxy hop
# against a combinable node (issue 25's benchmark). Systems, each started fresh (new data directories) in each round:
#   all      one combinable node (cluster.role=all: Remoting front-end and the only replica of a one-member group)
#   proxy1   one proxy over one store group
#   groups1  two proxies over one store group
#   groups2  two proxies over two store groups (the first holds the metadata)
#   groups3  two proxies over three store groups
# Store groups have REPLICAS `store` replicas each (default 1). The same load against each: RemotingLoad
# (rocketmq-client, THREADS threads of sync sends of SIZE-byte bodies, split over two producers: against two proxies
# one producer through each, otherwise both through the one entry point) on a new topic of QUEUES queues, made through
# the first entry point, which places logical queue q on group q mod G; WARMUP seconds unmeasured, then SECONDS
# measured, then a push consumer (through the first entry point) drains the topic, every message must arrive.
# CPU time is read from /proc/<pid>/stat for every broker process (stores and proxies) over the measured send phase
# and the drain, and charged to their messages: per-core efficiency = messages per CPU-second of all broker
# processes; the proxies' share and the stores' share are reported apart. Rounds alternate the systems' order (odd
# rounds as listed, even rounds reversed), so a disturbance by another tenant falls on all alike; the table shows the
# medians of the rounds and the ratios; the load average is printed with every run. After each load, the broker
# processes' CPU while idle is read over IDLE seconds (default 5): what the cluster spends with no traffic (mirror
# refreshes, heartbeats, metrics), part of every per-message figure, the more so the lower the rate.
#
# Needs: curl, a built tree (mvn -B -q -DskipTests package), Maven to resolve RocketMQ's client classpath once
# (cached in benchmarks/target). Usage:
#   benchmarks/scripts/cluster-groups-throughput.sh [SECONDS] [ROUNDS] [REPLICAS]   e.g. ... 20 3
# Environment: THREADS (32), WARMUP (20), QUEUES (12: 12, 6 and 4 per group), SIZE (1024), STORE_HEAP (256m),
# PROXY_HEAP (384m: the proxies' and the combinable node's), IDLE (5), SYSTEMS ("all proxy1 groups1 groups2 groups3"),
# MAX_LOAD (wait before each run until the 1-minute load average is below it), JUNCTION_JAR (another broker jar, for
# an A/B), KEEP=1 keeps the work directory.
set -euo pipefail
# One block, read whole before it runs: editing the file during a run must not change what the run does.
{
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
rounds="${2:-3}"
replicas="${3:-1}"
threads="${THREADS:-32}"
warmup="${WARMUP:-20}"
queues="${QUEUES:-12}"
size="${SIZE:-1024}"
idle="${IDLE:-5}"
heap=256m
store_heap="${STORE_HEAP:-256m}"
proxy_heap="${PROXY_HEAP:-384m}"
systems="${SYSTEMS:-all proxy1 groups1 groups2 groups3}"
# Ports of their own (25870 up), apart from the other cluster scripts' (21870, 23870, 24870).
gbase=25870

. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/RemotingLoad.class
rocketmq_classpath
# The client needs Netty 4.1 (benchmarks.jar carries 4.2): the load runs from the classes on RocketMQ's classpath.
loadcp="$classes:$rmqcp"
bench_work

field() { # line key -> value
  tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -1
}

# Each start_<system> starts its processes and waits until they serve; sets entry (the producers' name servers, comma
# separated), namesrv (the drain's), cpupids (every broker process) and proxypids (the proxies among them).
start_all() {
  all_start
  await_line "${log_of[all]}" "Junction ready" "${pid_of[all]}" "combinable node"
  namesrv="127.0.0.1:$(proxy_remoting_port 1)"; entry="$namesrv,$namesrv"
  cpupids="${pid_of[all]}"; proxypids=""
}
start_proxies() { # groups proxies
  local g r p
  stores=""
  for g in $(seq 1 "$1"); do group_start "$g" "$replicas"; done
  for g in $(seq 1 "$1"); do
    for r in $(seq 1 "$replicas"); do
      await_line "${log_of["g$g.$r"]}" "Junction ready" "${pid_of["g$g.$r"]}" "store g$g.$r"
      stores="${stores:+$stores,}${pid_of["g$g.$r"]}"
    done
  done
  proxypids=""; entry=""
  for p in $(seq 1 "$2"); do proxy_start "$p" "$1" "$replicas"; done
  for p in $(seq 1 "$2"); do
    await_line "${log_of["p$p"]}" "Junction ready" "${pid_of["p$p"]}" "proxy p$p"
    proxy_reaches_leaders "$p"
    proxypids="${proxypids:+$proxypids,}${pid_of["p$p"]}"
    entry="${entry:+$entry,}127.0.0.1:$(proxy_remoting_port "$p")"
  done
  [ "$2" = 1 ] && entry="$entry,$entry"
  namesrv="127.0.0.1:$(proxy_remoting_port 1)"
  cpupids="$stores,$proxypids"
}
start_proxy1() { start_proxies 1 1; }
start_groups1() { start_proxies 1 2; }
start_groups2() { start_proxies 2 2; }
start_groups3() { start_proxies 3 2; }
stop_system() { # stops every process of the run; proxies first
  local k
  for k in "${!pid_of[@]}"; do case "$k" in p*|all) stop "${pid_of[$k]}"; unset "pid_of[$k]" ;; esac; done
  for k in "${!pid_of[@]}"; do stop "${pid_of[$k]}"; unset "pid_of[$k]"; done
}

# CPU milliseconds the processes spent so far (utime + stime of /proc/<pid>/stat, in ticks of 10 ms).
cpu_ms() { # pid,pid...
  local p t=0
  for p in ${1//,/ }; do
    t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
  done
  echo $((t * 10))
}

# The topic's placement as the first entry point's GET /cluster shows it ("g1;g2;g1;g2..."), "-" on a combinable node.
placement() { # topic
  curl -s -m 5 "http://127.0.0.1:$(proxy_http_port 1)/cluster" 2>/dev/null \
    | grep -o "\"$1\":\"[^\"]*\"" | head -1 | cut -d'"' -f4 | grep . || echo -
}

load() { # system -> RESULT line
  java -Xmx1g -cp "$loadcp" io.junction.bench.remoting.RemotingLoad --namesrv "$namesrv" --label "$1" \
       --producer-namesrvs "$entry" --threads "$threads" --seconds "$seconds" --warmup-seconds "$warmup" \
       --size "$size" --queues "$queues" --drains 1 --broker-pids "$cpupids" \
       ${proxypids:+--proxy-pids "$proxypids"} >"$run/load.txt" 2>"$run/load.err" || true
  grep "^$1: " "$run/load.txt" >&2 || true
  grep '^RESULT ' "$run/load.txt" || { echo "the load tool failed:" >&2; tail -20 "$run/load.err" >&2; exit 1; }
}

results="$work/results.txt"
: >"$results"
for round in $(seq 1 "$rounds"); do
  order="$systems"
  [ $((round % 2)) = 0 ] && order="$(tr ' ' '\n' <<<"$systems" | tac | tr '\n' ' ')"
  for system in $order; do
    run="$work/$round-$system"; mkdir -p "$run"
    wait_for_quiet
    start_load="$(loadavg)"
    echo "== round $round, $system (load average $start_load)" >&2
    "start_$system"
    result="$(load "$system")"
    where="$(placement "$(field "$result" topic)")"
    idle_all="$(cpu_ms "$cpupids")"; idle_proxies="$(cpu_ms "$proxypids")"
    sleep "$idle"
    idle_all=$(( ($(cpu_ms "$cpupids") - idle_all) / idle ))
    idle_proxies=$(( ($(cpu_ms "$proxypids") - idle_proxies) / idle ))
    stop_system
    echo "system=$system round=$round load=$start_load end_load=$(loadavg) placement=$where idle_ms=$idle_all idle_proxy_ms=$idle_proxies $result" \
      | tee -a "$results" >&2
    rm -rf "$run"/g?.? "$run"/p? "$run/all"
  done
done

awk -v replicas="$replicas" '
function field(name,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] } return "" }
function median(key,   n, i, j, t, a) {
  n = split(vals[key], a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { split("tps p99_ms broker_send_us proxy_send_us store_send_us client_send_us drain_rate broker_drain_us " \
              "proxy_drain_us idle_ms idle_proxy_ms per_client load", names, " ") }
{
  s = field("system"); runs[s]++; place[s] = field("placement")
  $0 = $0 " store_send_us=" (field("broker_send_us") - field("proxy_send_us")) \
       " per_client=" (field("client_send_us") > 0 ? field("broker_send_us") / field("client_send_us") : 0)
  for (k in names) { key = s SUBSEP names[k]; vals[key] = vals[key] (vals[key] == "" ? "" : " ") field(names[k]) }
}
END {
  printf "\n%-8s %4s %9s %8s %9s %9s %9s %9s %9s %7s %9s %9s %9s %9s %6s\n", "system", "runs", "send/s", "p99 ms", \
         "msg/CPU-s", "CPU us", "proxies", "stores", "client", "/client", "drain/s", "drain us", "proxies", "idle ms/s", \
         "load"
  split("all proxy1 groups1 groups2 groups3", order, " ")
  for (o = 1; o <= 5; o++) {
    s = order[o]; if (!(s in runs)) continue
    for (k in names) med[s, names[k]] = median(s SUBSEP names[k])
    printf "%-8s %4d %9.0f %8.2f %9.0f %9.1f %9.1f %9.1f %9.1f %7.2f %9.0f %9.1f %9.1f %4d/%-4d %6.2f\n", s, runs[s], \
           med[s, "tps"], \
           med[s, "p99_ms"], 1e6 / med[s, "broker_send_us"], med[s, "broker_send_us"], med[s, "proxy_send_us"], \
           med[s, "store_send_us"], med[s, "client_send_us"], med[s, "per_client"], med[s, "drain_rate"], \
           med[s, "broker_drain_us"], \
           med[s, "proxy_drain_us"], med[s, "idle_ms"], med[s, "idle_proxy_ms"], med[s, "load"]
  }
  for (o = 3; o <= 5; o++) if (order[o] in runs) printf "placement, %s: %s\n", order[o], \
    place[order[o]] == "-" ? "none (one group: the topic lives wholly on g1)" : place[order[o]]
  print ""
  if ("groups1" in runs) for (o = 4; o <= 5; o++) {
    s = order[o]; if (!(s in runs)) continue
    printf "%s / groups1: throughput %.2fx, per-core efficiency %.2fx (in client units %.2fx), proxies'"'"' CPU per " \
           "message %.2fx, stores'"'"' %.2fx\n", s, med[s, "tps"] / med["groups1", "tps"], \
           med["groups1", "broker_send_us"] / med[s, "broker_send_us"], med["groups1", "per_client"] / med[s, "per_client"], \
           med[s, "proxy_send_us"] / med["groups1", "proxy_send_us"], med[s, "store_send_us"] / med["groups1", "store_send_us"]
  }
  if ("all" in runs) for (o = 2; o <= 3; o++) {
    s = order[o]; if (!(s in runs)) continue
    printf "proxy hop, %s / all: throughput %.2fx, CPU per message %.2fx (in client units %.2fx; proxies %.0f%% of " \
           "it); drain %.2fx, drain CPU per message %.2fx\n", s, med[s, "tps"] / med["all", "tps"], \
           med[s, "broker_send_us"] / med["all", "broker_send_us"], med[s, "per_client"] / med["all", "per_client"], \
           100 * med[s, "proxy_send_us"] / med[s, "broker_send_us"], med[s, "drain_rate"] / med["all", "drain_rate"], \
           med[s, "broker_drain_us"] / med["all", "broker_drain_us"]
  }
  printf "\nStore groups of %d replica(s). send/s, p99: the measured send phase (closed loop, sync sends); msg/CPU-s: messages\n", replicas
  print "per CPU-second of all broker processes (per-core efficiency); CPU us: their CPU per message sent, of it the"
  print "proxies'"'"' and the stores'"'"' shares; client: the load tool'"'"'s; /client: the brokers'"'"' CPU per message in units of"
  print "the client'"'"'s (whose work per message is the same against every system: a yardstick that other tenants'"'"' load"
  print "inflates alike, median of the runs'"'"' ratios); drain/s, drain us: the push consumer'"'"'s rate and"
  print "the brokers'"'"' CPU per message drained (of it the proxies'"'"'); idle ms/s: the brokers'"'"' CPU while idle after"
  print "the load, all / of it the proxies'"'"' (CPU ms per second); load: the 1-minute load average at each run'"'"'s start."
  print "Medians of the rounds."
}' "$results"
exit 0
}
