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

. benchmarks/scripts/lib/brokers.sh
bench_require_build io/junction/bench/remoting/FailoverProbe.class
rocketmq_classpath
bench_work

# Ports below the ephemeral range (32768-60999 here), so that no client connection holds one when a node restarts:
# the library's defaults (Junction from 21870, RocketMQ from 22870).
rocketmq_leader() { # asks the probe which broker the name server lists as id 0
  for _ in $(seq 1 120); do
    local before; before="$(count "$run/probe.out" '^LEADER ')"
    echo LEADER >&3
    for _ in $(seq 1 50); do
      [ "$(count "$run/probe.out" '^LEADER ')" -gt "$before" ] && break
      sleep 0.1
    done
    local addr; addr="$(grep '^LEADER ' "$run/probe.out" | tail -1 | cut -d' ' -f2)"
    rocketmq_index_of "$addr" && return 0
    sleep 0.5
  done
  echo "no RocketMQ leader registered within about 2 minutes" >&2; exit 1
}

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
  if [ -n "$ns_pid" ]; then stop "$ns_pid"; ns_pid=''; fi
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
