#!/usr/bin/env bash
# tui_volumes_first_sight.sh: a pod volume idle for 7 minutes by its managedFields time when
# veltop starts is "stalled 7m..." on the volumes screen and the detail's volume rows at once,
# with no rate and no ETA of its own; the moving total (All volumes, the detail's Volumes line)
# is the other volume's 10 MiB/s alone, and both screens give the same totals and count it as
# stalled (they render the run's answer).
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/volume_idle.yaml" --quiet

# the moving rate: 10 MiB/s of redis-0 alone, 9.0-11.9 as measured (with postgres-0's 2.8 MiB/s
# average it read 13)
RATE='(9\.[0-9]|1[01]\.[0-9]) MiB/s'

check() { # cols rows
    tui_start "$1" "$2" --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait '● live'
    tui_wait '^B vols '
    tui_keys Enter
    tui_wait '^Backup vols +InProgress'
    # at first sight: within veltop's first 30 s its own tracker cannot call it stalled yet (the
    # detail's volume rows: where there is room for them)
    [ "$2" -lt 40 ] ||
        tui_wait 'PVB payments/postgres-0:pgdata +(kopia +)?InProgress .* stalled 7m[0-9]{2}s$' 8
    tui_wait "^Volumes 0 of 2 done, 2 active, 1 stalled +[0-9.]+ GiB of 107\.4 GiB  $RATE\$" 8
    tui_wait '^  pod volumes .*\(one'
    tui_keys v
    tui_wait '^Volumes of backup vols  2 volumes: 2 in progress \(1 stalled\), 0 finished$'
    tui_wait "^All volumes [^ ]+ [0-9.]+ GiB / 107\.4 GiB  $RATE  ETA [0-9hms]+\+\$" 8
    tui_wait '^[^ ]*res-0:pgdata +(kopia +)?InProgress .* stalled 7m[0-9]{2}s$' 8
    # the moving volume has a rate and an ETA
    tui_line 'redis-0:data' | grep -Eq "InProgress .* $RATE +[0-9]+h[0-9]{2}m\$" ||
        tui_fail "redis-0:data row: $(tui_line 'redis-0:data')"
    # the two screens give the same bytes and rate (the run's answer; a new sample between the
    # two captures may move them: three tries)
    local i d v
    for i in 1 2 3; do
        v=$(tui_line '^All volumes' | sed -E 's/^All volumes [^ ]+ ([^/]+) \/ ([0-9.]+ GiB)  ([0-9.]+ MiB\/s).*/\1 of \2  \3/')
        tui_keys Escape
        tui_wait '^Backup vols +InProgress'
        d=$(tui_line '^Volumes 0 of 2' | sed -E 's/.*stalled +//')
        [ "$d" = "$v" ] && break
        tui_keys v
        tui_wait '^All volumes'
    done
    [ -n "$d" ] && [ "$d" = "$v" ] || tui_fail "the detail says '$d', the volumes screen '$v'"
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
    tui_server_stop
}
check 120 40
check 80 24
echo "PASS tui_volumes_first_sight"
