#!/usr/bin/env bash
# Throughput and tail latency of replication: a 3-replica Junction store group against Apache RocketMQ 5.3.3 in
# DLedger mode (3 brokers of one DLedger group, one name server) and a single-node Junction, side by side in one run
# with the same rocketmq-client load (Remoting sync sends of SIZE-byte bodies, 8 queues):
#   1. saturation: io.junction.bench.remoting.RemotingLoad, THREADS sender threads of sync sends for SECONDS after
#      WARMUP seconds (then a push consumer drains the topic, every message must arrive);
#   2. equal fixed rate: io.junction.bench.remoting.RemotingFixedRate at RATE sends/s (default: half of DLedger's
#      saturation throughput in round 1), send-ack and end-to-end latency from each message's intended send time
#      (HdrHistogram, coordinated omission corrected), RATE_WARMUP seconds at the rate, then MEASURE seconds measured.
# Every system starts fresh (new data directories) in each round; rounds run DLedger, 3-replica Junction, single
# Junction in turn, so a disturbance by another tenant falls on all three alike. The table shows the medians of the
# rounds and the ratios; the load average is printed with every run.
#
# Both replicated systems acknowledge a send once a majority holds it (ASYNC flush: in the page cache, not forced);
# the client is given the leader: Junction's leader node's Remoting address (its GET /cluster says it takes writes),
# RocketMQ's name server (which lists the DLedger leader as the group's master).
#
# Needs: curl, a built tree (mvn -B -q -DskipTests package), Maven to resolve RocketMQ's classpath once (cached in
# benchmarks/target). Usage:
#   benchmarks/scripts/cluster-vs-dledger.sh [SECONDS] [ROUNDS]      e.g. benchmarks/scripts/cluster-vs-dledger.sh 20 3
# Environment: THREADS (32), WARMUP (60), RATE (sends/s at the fixed rate; default half of DLedger's saturation),
# RATE_WARMUP (10), MEASURE (20), SIZE (1024), HEAP (each broker's heap, 512m), SYSTEMS ("dledger junction3
# junction1"), MAX_LOAD (wait before each run until the 1-minute load average is below it), KEEP=1 keeps the work
# directory.
set -euo pipefail
# One block, read whole before it runs: editing the file during a run must not change what the run does.
{
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
rounds="${2:-3}"
threads="${THREADS:-32}"
# A minute: three fresh JVMs on two cores spent 42 to 48 % of their CPU in the C2 compiler during a 5 s warm-up and
# 20 s measured, and still 20 to 28 % a minute later (benchmarks/README.md, "With a minute's warm-up").
warmup="${WARMUP:-60}"
rate="${RATE:-}"
rate_warmup="${RATE_WARMUP:-10}"
measure="${MEASURE:-20}"
size="${SIZE:-1024}"
heap="${HEAP:-512m}"
systems="${SYSTEMS:-dledger junction3 junction1}"
# Ports of their own, so that failover-vs-dledger.sh (21870/22870) can run beside it without answering in its place.
jbase=23870
rbase=24870

. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/RemotingFixedRate.class
rocketmq_classpath
# The client needs Netty 4.1 (benchmarks.jar carries 4.2): the load runs from the classes on RocketMQ's classpath,
# plus HdrHistogram from the local Maven repository.
hdr="$(find ~/.m2/repository/org/hdrhistogram/HdrHistogram -name 'HdrHistogram-*.jar' | sort | tail -1)"
loadcp="$classes:$rmqcp:$hdr"
bench_work

field() { # line key -> value
  tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -1
}

# Each start_<system> sets namesrv (what the client is given) and cpupids (the processes whose CPU is counted).
start_dledger() {
  rocketmq_setup
  for i in 1 2 3; do rocketmq_start "$i"; done
  for i in 1 2 3; do rocketmq_ready "$i"; done
  namesrv="$(rocketmq_namesrv)"
  cpupids="${pid_of[1]},${pid_of[2]},${pid_of[3]},$ns_pid"
}
stop_dledger() { rocketmq_stop_all; }

start_junction3() {
  for i in 1 2 3; do junction_start "$i"; done
  for i in 1 2 3; do junction_ready "$i"; done
  namesrv="127.0.0.1:$(junction_remoting_port "$(junction_leader)")"
  cpupids="${pid_of[1]},${pid_of[2]},${pid_of[3]}"
}
stop_junction3() { for i in 1 2 3; do stop "${pid_of[$i]}"; done; }

start_junction1() {
  junction_single_start
  namesrv="127.0.0.1:$(junction_remoting_port 0)"
  cpupids="${pid_of[0]}"
}
stop_junction1() { stop "${pid_of[0]}"; }

saturation() { # system -> RESULT line
  java -Xmx1g -cp "$loadcp" io.junction.bench.remoting.RemotingLoad --namesrv "$namesrv" --label "$1" \
       --threads "$threads" --seconds "$seconds" --warmup-seconds "$warmup" --size "$size" --queues 8 --drains 1 \
       --broker-pids "$cpupids" >"$run/load.txt" 2>"$run/load.err" || true
  grep "^$1: " "$run/load.txt" >&2 || true
  grep '^RESULT ' "$run/load.txt" || { echo "the load tool failed:" >&2; tail -20 "$run/load.err" >&2; exit 1; }
}

fixed_rate() { # system rate -> the report line
  java -Xmx1g -cp "$loadcp" io.junction.bench.remoting.RemotingFixedRate --namesrv "$namesrv" --label "$1" \
       --rate "$2" --threads "$threads" --warmup "$rate_warmup" --duration "$measure" --size "$size" --queues 8 \
       --broker-pids "$cpupids" 2>"$run/rate.err" | tail -1 || true
}

results="$work/results.txt"
: >"$results"
for round in $(seq 1 "$rounds"); do
  for system in $systems; do
    run="$work/$round-$system"; mkdir -p "$run"
    wait_for_quiet
    start_load="$(loadavg)"
    echo "== round $round, $system (load average $start_load)" >&2
    "start_$system"
    sat="$(saturation "$system")"
    if [ -z "$rate" ]; then
      rate="$(field "$sat" tps | awk '{printf "%.0f", $1 / 2}')"
      echo "fixed rate for every system: $rate sends/s (half of $system's saturation)" >&2
    fi
    fix="$(fixed_rate "$system" "$rate")"
    echo "$system fixed rate: $fix" >&2
    "stop_$system"
    echo "system=$system round=$round load=$start_load end_load=$(loadavg) tps=$(field "$sat" tps)" \
         "p50_ms=$(field "$sat" p50_ms) p99_ms=$(field "$sat" p99_ms) failed=$(field "$sat" failed)" \
         "rate=$rate achieved=$(field "$fix" achieved_per_s) rate_failed=$(field "$fix" failed)" \
         "rate_missing=$(field "$fix" missing) send_p50_ms=$(field "$fix" send_p50_ms)" \
         "send_p99_ms=$(field "$fix" send_p99_ms) e2e_p99_ms=$(field "$fix" e2e_p99_ms)" \
         "broker_cpu_us=$(field "$fix" broker_cpu_us_per_msg)" | tee -a "$results" >&2
    rm -rf "$run"/n? "$run"/r? "$run/single"
  done
done

awk '
function field(name,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] } return "" }
function median(key,   n, i, j, t, a) {
  n = split(vals[key], a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { split("tps p50_ms p99_ms achieved send_p50_ms send_p99_ms e2e_p99_ms broker_cpu_us load", names, " ") }
{
  s = field("system"); runs[s]++; rate = field("rate")
  for (k in names) { key = s SUBSEP names[k]; vals[key] = vals[key] (vals[key] == "" ? "" : " ") field(names[k]) }
}
END {
  printf "\n%-10s %4s %9s %9s %9s | at %s/s: %9s %9s %9s %9s %8s %6s\n", "system", "runs", "send/s", "p50 ms", \
         "p99 ms", rate, "achieved", "send p50", "send p99", "e2e p99", "CPU us", "load"
  split("dledger junction3 junction1", order, " ")
  for (o = 1; o <= 3; o++) {
    s = order[o]; if (!(s in runs)) continue
    for (k in names) med[s, names[k]] = median(s SUBSEP names[k])
    printf "%-10s %4d %9.0f %9.2f %9.2f | %12s %9.0f %9.2f %9.2f %9.2f %8.1f %6.2f\n", s, runs[s], med[s, "tps"], \
           med[s, "p50_ms"], med[s, "p99_ms"], "", med[s, "achieved"], med[s, "send_p50_ms"], med[s, "send_p99_ms"], \
           med[s, "e2e_p99_ms"], med[s, "broker_cpu_us"], med[s, "load"]
  }
  if (("junction3" in runs) && ("dledger" in runs)) {
    t = med["junction3", "tps"] / med["dledger", "tps"]; p = med["junction3", "send_p99_ms"] / med["dledger", "send_p99_ms"]
    printf "\n3-replica Junction / DLedger: saturation throughput %.2fx (bar >= 1.50: %s), send p99 at the fixed rate " \
           "%.2fx (bar <= 1.00: %s)\n", t, (t >= 1.5 ? "PASS" : "FAIL"), p, (p <= 1.0 ? "PASS" : "FAIL")
  }
  if (("junction3" in runs) && ("junction1" in runs)) {
    t = med["junction3", "tps"] / med["junction1", "tps"]
    printf "3-replica / single-node Junction: saturation throughput %.2fx (bar >= 0.50: %s), send p99 at the fixed " \
           "rate %.2fx\n", t, (t >= 0.5 ? "PASS" : "FAIL"), med["junction3", "send_p99_ms"] / med["junction1", "send_p99_ms"]
  }
  print "send/s, p50/p99: saturation (closed loop); at the rate: send-ack and end-to-end latency from the intended send"
  print "time; CPU us: the brokers'"'"' CPU per message at the rate (all three nodes, RocketMQ with its name server);"
  print "load: the 1-minute load average at each run'"'"'s start. Medians of the rounds."
}' "$results"
exit 0
}
