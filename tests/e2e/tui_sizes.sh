#!/usr/bin/env bash
# tui_sizes.sh: every terminal size. 60x16: the list keeps whole names (fewer columns), the detail
# is compact and complete to "Item operations", a long name whole (wrapped) in its title, help
# wraps, footers keep "?:help"; 40x10: a message that fits
# the width, and keys typed meanwhile do nothing (back at 80x24 the list is as it was); columns
# size to their content: NAME is as wide as the longest name at 80, 120, 200 and 250 columns (not
# narrower at 120 than at 80, not 150 wide at 250), the bar at most 30 wide; a long run name is
# whole in the detail's title when it fits; the volumes screen's ETA and STARTED columns hold
# "stall 10m09s" and "11-29 01:23".
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/flow.yaml" --quiet
LONG=flow-a-very-long-backup-name-that-is-longer-than-sixty-three-characters # 71 characters
tui_start 60 16 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B flow-du +'
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS( +ETA)? *$'
tui_wait '^B flow-partial +[A-Za-z]+ '
tui_screen | tail -n 1 | grep -qE '  \?:help( |$)' || tui_fail "60x16 footer: $(tui_screen | tail -n 1)"
# the detail's title: a long name whole, wrapped under itself, the phase beside its end (no row
# lost: the detail still reaches the item operations)
tui_keys /
tui_keys -l sixty-three
tui_keys Enter
tui_wait '^B flow-a.*characters +[A-Za-z]+ ' 30
tui_keys Enter
tui_wait '^Backup flow-a-very-long-backup-name-that-is-longer-than-sixt$'
tui_wait '^ {7}y-three-characters  [A-Za-z]+$'
tui_wait '^Started (not yet|[0-9:]{8} UTC  Completed )'
tui_keys Escape Escape
tui_wait_gone 'filter:'
# the detail, compact: everything down to the item operations fits 16 rows
tui_keys /
tui_keys -l flow-failed
tui_keys Enter
tui_wait '^B flow-failed +Failed' 30
tui_keys Enter
tui_wait '^Backup flow-failed +Failed$'
tui_wait '^Errors 1  Warnings 0  Hooks 0 attempted, 0 failed$'
tui_wait '^Item operations 0 of 0 completed, 0 failed$'
tui_wait '^Failure reason boom$'
# help wraps its words at 60 columns (under themselves) and scrolls
tui_keys '?' G
tui_wait '^   o +describe as JSON, YAML \(as kubectl\) or$'
tui_wait '^ {18}velero describe$'
tui_wait '^ from the start average\.$'
tui_keys Escape
tui_wait '^Backup flow-failed +Failed$'
# the volumes screen: the selected volume's message wraps at the bottom; a name too wide for
# POD/VOLUME drops its namespace before it is cut (the pod stays readable)
tui_keys v
tui_wait '^web-0:data +[A-Z][a-z]+ '
tui_wait '^PodVolumeBackup flow-failed-[a-z0-9]{5} data path canceled: the$'
tui_wait '^backup failed$'
tui_keys Escape
tui_wait '^Backup flow-failed +Failed$'
tui_keys Escape Escape
tui_wait_gone 'filter:'

# 40x10: too small; the message fits; keys do nothing meanwhile
tui_resize 40 10
tui_wait '^ +terminal too small: *$'
tui_wait '^ +40x10 *$'
tui_wait '^ +needs 60x16 *$'
tui_wait '^ +q quits *$'
tui_screen | awk 'length($0) > 40 { exit 1 }' || tui_fail "a line wider than 40 columns"
tui_keys j j Enter v
tui_resize 80 24
tui_wait 'NAME +PHASE'
tui_screen | grep -q 'Detail\|Volumes of' && tui_fail "keys typed while too small opened a screen"
# the selection did not move either (j j): Enter opens the run selected before, flow-failed
tui_keys Enter
tui_wait '^Backup flow-failed +Failed$' 
tui_keys Escape

# NAME sized to its content: the longest name (71) is cut in the middle at 80 columns (20, a
# quarter of the width, and what the columns that fit leave; its end survives), whole at 200
name_col() { tui_screen | grep -E '^  NAME' | sed -E 's/^(  NAME +)PHASE.*/\1/' | awk '{print length($0) - 2}'; }
tui_wait "^B flow-a-v…-three-characters "
w80=$(name_col)
[ "$w80" = 27 ] || tui_fail "NAME at 80 columns: $w80 wide (want 26 and a space)"
tui_resize 120 30
tui_wait "^  NAME +PHASE +PROGRESS +ITEMS +RATE +ETA +STARTED"
w120=$(name_col)
[ "$w120" -ge "$w80" ] || tui_fail "NAME narrower at 120 ($w120) than at 80 ($w80)"
tui_resize 200 50
tui_wait "^B $LONG +Completed"
[ "$(name_col)" = 72 ] || tui_fail "NAME at 200 columns: $(name_col) wide (want 71 and a space)"
tui_resize 250 30
tui_wait "^B $LONG +Completed"
[ "$(name_col)" = 72 ] || tui_fail "NAME at 250 columns: $(name_col) wide"
bar=$(tui_screen | grep -E "^B $LONG " | grep -oE '[█▉▊▋▌▍▎▏░]+' | head -n 1)
[ "${#bar}" = 30 ] || tui_fail "bar at 250 columns: ${#bar} wide (want 30)"

# the detail's title: the whole long name beside its phase
tui_resize 120 30
tui_keys /
tui_keys -l flow-a-very
tui_keys Enter Enter
tui_wait "^Backup $LONG  Completed\$"
tui_keys Escape Escape

# the volumes screen at 200 columns: ETA 13 wide, STARTED 12
tui_resize 200 50
tui_keys /
tui_keys -l flow-du
tui_keys Enter v
tui_wait 'Volumes of backup flow-du'
tui_wait 'RATE +ETA {10}STARTED {5}MESSAGE'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_sizes: ok"
