#!/usr/bin/env bash
# CPU of an idle broker started as users start it (java -jar junction.jar, every protocol on, defaults): after
# SETTLE seconds (the JIT compilers mostly done), the CPU time the launcher and the broker JVM spend over MEASURE
# seconds with no client connected, as a share of one core, and the threads that spent it (the kernel's thread names,
# digits made #). Given several jars, measures each in turn (an A/B of idle costs).
# Needs: mvn -B -q -DskipTests package (broker/target/junction.jar).
# Usage: [SETTLE=60] [MEASURE=30] benchmarks/scripts/idle-cpu.sh [JAR ...]
set -euo pipefail
# One block, read whole before it runs: editing the file during a run must not change what the run does.
{
cd "$(dirname "$0")/../.."
settle="${SETTLE:-60}"
measure="${MEASURE:-30}"
[ $# -gt 0 ] || set -- broker/target/junction.jar
. benchmarks/scripts/lib/brokers.sh
bench_work

ticks() { awk '{print $14 + $15}' "$1" 2>/dev/null || echo 0; } # user + system, 1/100 s
for jar in "$@"; do
  [ -f "$jar" ] || { echo "no such jar: $jar" >&2; exit 1; }
  data="$work/data-$(now_ms)"
  java -jar "$jar" --data-dir "$data" >"$work/broker.log" 2>&1 &
  launcher=$!; pids+=("$launcher")
  await_line "$work/broker.log" "Junction ready" "$launcher" "Junction" 120
  sleep "$settle"
  procs="$launcher $(pgrep -P "$launcher" java || true)"
  declare -A before=()
  for p in $procs; do for t in /proc/"$p"/task/*; do before[$t]=$(ticks "$t/stat"); done; done
  sleep "$measure"
  total=0
  declare -A kinds=()
  for p in $procs; do
    for t in /proc/"$p"/task/*; do
      spent=$(( $(ticks "$t/stat") - ${before[$t]:-0} ))
      total=$((total + spent))
      kind="$(tr -s '0-9' '#' <"$t/comm" 2>/dev/null || echo gone)"
      kinds[$kind]=$(( ${kinds[$kind]:-0} + spent ))
    done
  done
  echo "$jar: idle $(awk -v t="$total" -v s="$measure" 'BEGIN { printf "%.1f", t / s }') % of a core over ${measure} s" \
       "(after ${settle} s; processes: $procs)"
  for k in "${!kinds[@]}"; do echo "${kinds[$k]} $k"; done | sort -rn | head -10 \
    | awk -v s="$measure" '$1 > 0 { n = $1; $1 = ""; printf "  %5.2f %%%s\n", n / s, $0 }'
  unset before kinds
  stop "$launcher"
done
}
