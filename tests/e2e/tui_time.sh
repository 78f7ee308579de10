#!/usr/bin/env bash
# tui_time.sh: times on screen say their zone. In a zone two hours east of UTC (TZ=XYZ-2) the
# header clock reads the local time followed by "XYZ" and the detail's start time has seconds and
# the zone; with --utc the same start time reads two hours earlier followed by "UTC", as does the
# header clock.
. "$(dirname "$0")/tui_lib.bash" || exit 1
export TZ=XYZ-2

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-done +Completed'

# the header clock: HH:MM:SS and the zone, the local time of that zone (either side of a minute)
tui_wait "^ veltop .* ($(date +%H:%M)|$(date -d '-1 min' +%H:%M)):[0-9]{2} XYZ\$"

tui_keys /
tui_keys -l 'backup-done'
tui_keys Enter Enter
tui_wait '^Backup backup-done +Completed'
tui_wait '^Started [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} XYZ  Completed [0-9:-]+ ([0-9:]+ )? Duration '
local_started=$(tui_line '^Started ' | sed -E 's/^Started ([0-9-]+ [0-9:]+) XYZ .*/\1/')
[[ "$local_started" =~ ^[0-9-]{10}\ [0-9:]{8}$ ]] || tui_fail "start time: $local_started"
tui_keys q
tui_wait_exit >/dev/null
tui_server_stop

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig" --utc
tui_wait 'B backup-done +Completed'
tui_wait "^ veltop .* ($(date -u +%H:%M)|$(date -u -d '-1 min' +%H:%M)):[0-9]{2} UTC\$"
tui_keys /
tui_keys -l 'backup-done'
tui_keys Enter Enter
tui_wait '^Backup backup-done +Completed'
utc_started=$(date -u -d "$local_started +0200" '+%Y-%m-%d %H:%M:%S')
tui_wait "^Started $utc_started UTC  Completed "
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_time: ok"
