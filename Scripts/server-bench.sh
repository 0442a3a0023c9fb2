#!/usr/bin/env bash
# Server benchmark: requests/s and p99 latency of two queries at 1 and 16 connections, loopback only.
# Needs `wrk` (apt-get install wrk) and a release build: swift build -c release --product cardealer.
# Usage: Scripts/server-bench.sh [--people N] [--data PATH]   (extra flags go to `cardealer serve`)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/cardealer
OUT=$(mktemp)
"$BIN" serve --port 0 "$@" >"$OUT" &
PID=$!
trap 'kill $PID 2>/dev/null' EXIT
for _ in $(seq 1 600); do grep -q '^Serving ' "$OUT" && break; sleep 0.1; done
ROOT=$(sed -n 's/^Serving //p' "$OUT" | head -1)
printf '%-48s %5s %12s %10s\n' query conns "requests/s" "p99"
for query in 'Person?$top=50&$expand=PersonCar/Car' 'Person(1)?$expand=PersonCar,PersonCar/Car'; do
    for conns in 1 16; do
        result=$(wrk -t "$(( conns < 2 ? 1 : 2 ))" -c "$conns" -d 10s --latency -H 'Accept: application/json' "$ROOT$query")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$result")
        p99=$(awk '$1 == "99%" {print $2}' <<<"$result")
        printf '%-48s %5s %12s %10s\n' "$query" "$conns" "$rps" "$p99"
    done
done
