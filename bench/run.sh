#!/bin/sh
# run.sh: builds the benchmarks and veltop in BUILD_DIR and runs them all, one line per figure with
# its target beside it (bench/README.md says what each measures). Usage: sh bench/run.sh BUILD_DIR
# BENCH_QUICK=1 shortens the timed runs (idle 30 s instead of 60, 100 latency samples not 200).
set -u
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
BENCHES="bench_watch bench_latency bench_firstframe bench_idle bench_logs bench_eta bench_wan bench_metrics bench_fleet bench_fleet300"
cmake --build "$BUILD" -j "$(nproc)" --target veltop $BENCHES >/dev/null || {
    echo "bench: build failed" >&2
    exit 1
}
export VELTOP="$BUILD/veltop"
if [ "${BENCH_QUICK:-0}" = 1 ]; then IDLE_S=30 LAT_N=100; else IDLE_S=60 LAT_N=200; fi

echo "# veltop benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores," \
    "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
fail=0
# each benchmark stops by itself; timeout is only a guard against a hung one
run() {
    limit=$1
    shift
    timeout -k 10 "$limit" "$@" || {
        echo "bench: $(basename "$1") failed or timed out (status $?)"
        fail=1
    }
}

# 4. watch events decoded and applied per second (client, reflector, decoder, store)
out=$(timeout -k 10 300 "$BUILD/bench_watch") || fail=1
echo "$out" | awk '{
    print; for (i = 1; i <= NF; i++) if ($i == "events/s") rate = $(i - 1)
    printf "watch events/s: %d (target >= 100000) %s\n", rate, (rate >= 100000 ? "ok" : "MISSED") }'
# 1. a counter change on the server reaching the terminal
run 300 "$BUILD/bench_latency" "$LAT_N"
# 2. first full frame and peak memory, 10 000 backups + 50 000 volumes, and a smaller cluster
run 600 "$BUILD/bench_firstframe" 10000 30
run 300 "$BUILD/bench_firstframe" 500 30
# 3. idle CPU and bytes written to the terminal
run 300 "$BUILD/bench_idle" "$IDLE_S"
# 5. the 1 000 000-line log in the pager's line store
run 300 "$BUILD/bench_logs" 1000000
# 6. the run ETA against the real end over the sim's scenarios (simulated time, in-process)
run 120 "$BUILD/bench_eta" 1
# 7. the first frame through the sim's emulated slow link, side by side with kubectl; and a VPN
# across an ocean (no target there: what it takes)
run 600 "$BUILD/bench_wan" 10000 50 2500000 60
run 300 env BENCH_NO_KUBECTL=1 "$BUILD/bench_wan" 10000 150 625000 60
# 8. veltop --serve: scrape latency and memory, 10 000 backups + 50 000 volumes, 20 in flight
run 300 "$BUILD/bench_metrics" 10000 1000 20

# 9. a fleet of 20 clusters behind slow links, one black-holed
run 600 "$BUILD/bench_fleet" 20 2000 50 2500000 1
# 10. 300 contexts on loopback (200 runs + 1 000 volumes each, 3 in flight), soft limit 1024
run 900 "$BUILD/bench_fleet300" 300 200 3 5 15
exit $fail
