#!/usr/bin/env bash
# tui_describe_live.sh: describe follows the object. A PodVolumeBackup's bytesDone moves in the
# pager while the reader stays where they scrolled to ("live (T)"); o shows it as YAML
# (kubectl's layout) and as velero describe's summary (with its pod volumes, as --details); when the API server stops answering the
# header says plainly that the text is a snapshot and when it was taken.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/describe_live.yaml" --speed 5 --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B moving +InProgress'
tui_keys v
tui_wait 'Volumes of backup moving'
# bytes moved already (Velero writes bytesDone from its first update on)
tui_wait '^shop/db-0:data +kopia +InProgress .* [1-9][0-9.]* (MiB|GiB) / ' 30
tui_keys Enter
tui_wait '^Describe PodVolumeBackup moving-[a-z0-9]{5} +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
# YAML as kubectl prints it
tui_keys o
tui_wait 'lines as YAML'
tui_wait '^apiVersion: velero.io/v1$'
tui_wait '^kind: PodVolumeBackup$'
tui_wait '^  creationTimestamp: "[0-9-]+T[0-9:]+Z"$'
# scrolled down to the progress: the place is kept while the numbers move
tui_keys /
tui_keys -l bytesDone
tui_keys Enter
tui_wait 'match 1 of 1'
tui_wait '^    bytesDone: [0-9]+$'
top=$(tui_screen | sed -n 4p)
first=$(tui_line '^    bytesDone: ')
tui_wait_change '^    bytesDone: ' "$first" 30
[ "$(tui_screen | sed -n 4p)" = "$top" ] || tui_fail "the reader's place moved: '$top' -> '$(tui_screen | sed -n 4p)'"
tui_wait 'live \([0-9:]{8}\)'
# d: velero describe's shape for the run (k9s' d)
tui_keys Escape Escape
tui_wait 'Backups & Restores *$'
tui_keys d
tui_wait 'lines as velero describe'
tui_wait '^Name: +moving$'
tui_wait '^Phase: +InProgress$'
tui_wait '^Storage Location: +default$'
tui_keys G
tui_wait '^Items backed up so far: +[0-9]+$'  # a run in flight, in velero's words
# its pod volumes as --details lists them, from the volumes veltop watches
tui_wait '^  Pod Volume Backups - kopia:$'
tui_wait '^    In Progress:$'
tui_wait '^      shop/db-0: data \([0-9]+\.[0-9]{2}%\)$'
# the API server goes away: a snapshot, and since when
tui_sim_kill
tui_wait 'snapshot of [0-9:]{8} \(refresh failed: ' 30
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_describe_live"
