#!/usr/bin/env bash
# Time from a SIGKILL to a broker that serves again: the floor of every failover. For each jar given (e.g. main's and
# a change's), rounds alternate jar by jar; each round loads the broker (HTTP CloudEvents posts, 1 KiB, from one
# curl process), SIGKILLs it in the middle of the load, starts it again on the same data directory and measures:
# wall time from the new process's start to GET /health 200, and the store's own "recovered in" figure. The commit log
# uses the default 1 GiB segment unless SEGMENT is set. Medians per jar are printed. Bar: ready <= 1.5 s after a
# SIGKILL with a 1 GiB segment. Needs: mvn -q -B -DskipTests package.
# Usage: benchmarks/scripts/restart-after-crash.sh [ROUNDS] [JAR...]   (default: 5 rounds, broker/target/junction.jar)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-5}"
shift || true
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=(broker/target/junction.jar)
segment="${SEGMENT:-1g}"
work="$(mktemp -d)"
pid=""
cleanup() { [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

ports=(--set remoting.port=29876 --set grpc.port=28081 --set mqtt.port=21883 --set amqp.port=25672
       --set http.port=28180)
start() { # jar data log: starts the broker (pid), waits for /health 200, sets ready_ms to how long that took
  local t0 t1
  t0=$(date +%s%N)
  java -Xmx512m -jar "$1" --data-dir "$2" --set store.segment-size="$segment" "${ports[@]}" >"$3" 2>&1 &
  pid=$!
  until [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:28180/health 2>/dev/null)" = 200 ]; do
    kill -0 "$pid" 2>/dev/null || { echo "broker exited:" >&2; cat "$3" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(date +%s%N)
  ready_ms=$(((t1 - t0) / 1000000))
}

body="$(head -c 1024 /dev/zero | tr '\0' 'x')"
for i in $(seq 1 3000); do
  printf 'url = "http://127.0.0.1:28180/topics/restart"\nrequest = POST\nheader = "ce-id: e%d"\n' "$i"
  printf 'header = "ce-source: bench"\nheader = "ce-type: t"\nheader = "ce-specversion: 1.0"\n'
  printf 'header = "content-type: text/plain"\ndata = "%s"\noutput = /dev/null\nnext\n' "$body"
done >"$work/load.curl"

for r in $(seq 1 "$rounds"); do
  for j in "${!jars[@]}"; do
    data="$work/data-$j"
    start "${jars[$j]}" "$data" "$work/first.log"
    curl -s -K "$work/load.curl" 2>/dev/null &
    loader=$!
    sleep "1.$((RANDOM % 9 + 1))"          # kill at a random moment of the load
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true
    kill "$loader" 2>/dev/null || true; wait "$loader" 2>/dev/null || true
    start "${jars[$j]}" "$data" "$work/again.log"
    ms=$ready_ms
    rec=$(grep -o 'Store recovered in [0-9]* ms' "$work/again.log" | grep -o '[0-9]*' || echo "?")
    log=$(grep -o 'log [0-9]*\.\.[0-9]*' "$work/again.log" | head -1)
    echo "round $r jar $j: ready ${ms} ms, store recovered in ${rec} ms ($log)" | tee -a "$work/results.txt"
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  done
done

echo
echo "medians of $rounds SIGKILLs (segment $segment):"
for j in "${!jars[@]}"; do
  grep " jar $j:" "$work/results.txt" | awk -v jar="${jars[$j]}" '
    function median(a, n,   i, k, t) { for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (a[k] < a[i]) { t = a[i]; a[i] = a[k]; a[k] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { split($6, x, " "); ready[NR] = $6 + 0; rec[NR] = $11 + 0; if ($6 + 0 > max) max = $6 + 0 }
    END { printf "%-60s ready %5d ms (max %5d)  store recovery %5d ms\n", jar, median(ready, NR), max, median(rec, NR) }'
done
