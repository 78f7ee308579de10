#!/usr/bin/env bash
# tui_slow_link.sh: veltop through veltop-sim's emulated slow link (--latency, --bandwidth): the
# runs are on screen while the volume lists are still arriving, their volume bytes marked
# "loading..." (not 0, not a partial sum) and the lamp not yet live; once the volume lists land
# every run shows its whole volume bytes.
. "$(dirname "$0")/tui_lib.bash" || exit 1

# three finished backups with 80 pod volumes each: 240 PodVolumeBackups (~240 KB of list, sent
# uncompressed with --no-gzip) against three small backups, at 40 KB/s per connection
SCEN="$TUI_DIR/slow.yaml"
{
    echo "runs:"
    for b in 1 2 3; do
        echo "  - kind: backup"
        echo "    name: slow-$b"
        echo "    start: -${b}h"
        echo "    resources: [{name: pods, items: 10}]"
        echo "    volumes:"
        for v in $(seq 1 80); do
            echo "      - {pod: db-$v, namespace: shop, volume: data, uploader: kopia, size: 1Mi, rate: 1Mi}"
        done
    done
} >"$SCEN"
tui_sim_start --scenario "$SCEN" --quiet --no-gzip --latency 50 --bandwidth 40000
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"

# the runs first, their volume bytes still loading, the lamp not live
# (rows come as the backups list arrives: wait for each)
tui_wait 'B slow-1 +Completed +.* loading\.\.\.' 15
tui_wait 'B slow-2 +Completed +.* loading\.\.\.' 15
tui_wait 'B slow-3 +Completed +.* loading\.\.\.' 15
screen=$(tui_screen)
echo "$screen" | grep -Eq 'B slow-1 +Completed +.* loading\.\.\.' || tui_fail "slow-1 not loading"
echo "$screen" | grep -Eq 'B slow-2 +Completed +.* loading\.\.\.' || tui_fail "slow-2 not loading"
echo "$screen" | grep -q ' live' && tui_fail "live before the volume lists arrived"
echo "$screen" | grep -Eq 'slow-[123] .* 0 B/' && tui_fail "volume bytes shown as zero while loading"

# then the whole volume bytes: 80 x 1 MiB each
tui_wait 'live' 60
tui_wait 'B slow-1 +Completed +.* 80\.0 MiB/80\.0 MiB'
tui_wait 'B slow-3 +Completed +.* 80\.0 MiB/80\.0 MiB'
tui_wait_gone 'loading\.\.\.'
tui_keys q
tui_wait_exit
echo "PASS"
