#!/usr/bin/env bash
# tui_basic.sh: veltop against veltop-sim's basic scenario in tmux: the list shows the runs and
# phases; a filter and Enter open the detail whose resource rows show the scenario's "x of y";
# values move; [ ] step runs; Esc; sort keys keep the selection on its run; f follows; Ctrl-L;
# resizes (80x24, 60x20, 40x10 too small, back); the sim killed ->
# "retrying" with the data kept; restarted on the same port -> live again; Ctrl-C quits with 0.
. "$(dirname "$0")/tui_lib.bash" || exit 1

SCEN="$FIXTURES_DIR/scenarios/basic.yaml"
tui_sim_start --scenario "$SCEN" --quiet --resource-progress
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"

# the list: every run with its phase
tui_wait 'live'
tui_wait 'B backup-inprogress +InProgress'
tui_wait 'B backup-done +Completed +.* 55/55'
tui_wait 'B backup-failed +Failed +.* 10/20'
tui_wait 'B backup-partial +PartiallyFailed +.* 30/30'
tui_wait 'B backup-partial +PartiallyFailed +.* 3/1( |$)'
tui_wait 'R restore-done +Completed +.* 55/55'
tui_wait 'R restore-inprogress +InProgress'

# filter as you type, Enter keeps it, Enter opens the detail
tui_keys /
tui_keys -l 'backup-in'
tui_wait 'filter: /backup-in'
tui_wait '1 of 6 runs'
tui_wait_gone 'backup-done'
tui_keys Enter
tui_wait 'filter: /backup-in .*Esc clears'
tui_keys Enter
tui_wait '^Backup backup-inprogress +InProgress'
# per-resource rows show the scenario's totals (pods: 40 + 4 added by plugins)
tui_wait '^  namespaces +.* 3 of 3 +done'
tui_wait '^  deployments.apps +.* of 12 '
tui_wait '^  configmaps +.* of 30 '
tui_wait '^  secrets +.* of 18 '
tui_wait '^  pods +.* of (40|44) '
tui_wait '^Rate .*ETA'
# values change on screen as the sim advances
items=$(tui_line '^Items ')
tui_wait_change '^Items ' "$items" 15

# ] and [ step through the list's order without leaving the detail screen
tui_keys ']'
tui_wait 'last run of the list'
tui_keys Escape
tui_wait 'filter: /backup-in'
tui_keys Escape
tui_wait_gone 'filter:'
tui_wait 'B backup-done'
tui_keys Enter
tui_wait '^Backup backup-inprogress'
tui_keys ']'
tui_wait '^Backup backup-partial +PartiallyFailed'
tui_wait '^Errors 3 +Warnings 1'
tui_keys ']'
tui_wait '^Backup backup-failed +Failed'
tui_wait '^Failure reason rpc error: code = Unavailable desc = error reading from server: EOF'
tui_keys '['
tui_keys '['
tui_wait '^Backup backup-inprogress'
tui_keys Escape
tui_wait 'NAME +PHASE'

# help and back
tui_keys '?'
tui_wait 'follow the newest run in progress'
tui_keys Escape
tui_wait 'NAME +PHASE'

# sort keys: by name the rows reorder and the selection stays on its run (backup-inprogress, where
# [ [ left it: second by start, third by name)
first_row() { tui_screen | grep -E -A1 'NAME[↑↓]? +PHASE' | tail -n 1; }
tui_keys 2
tui_wait 's:sort\(name\)'
[[ "$(first_row)" =~ ^B\ backup-done\  ]] || tui_fail "sort by name: first row $(first_row)"
tui_keys Enter
tui_wait '^Backup backup-inprogress +InProgress'
tui_keys Escape
tui_keys 3
tui_wait 's:sort\(phase\)'
[[ "$(first_row)" =~ InProgress ]] || tui_fail "sort by phase: first row $(first_row)"
tui_keys 1
tui_wait 's:sort\(start\)'
[[ "$(first_row)" =~ ^R\ restore-inprogress\  ]] || tui_fail "sort by start: first row $(first_row)"
# f follows the newest run in progress (restore-inprogress, started last) from anywhere
tui_keys G f
tui_wait 'f:follow\(on\)'
tui_keys Enter
tui_wait '^Restore restore-inprogress +InProgress +from backup-done'
tui_keys Escape f
tui_wait_gone 'follow\(on\)'
# Ctrl-L repaints everything
tui_keys C-l
tui_wait 'B backup-done +Completed +.* 55/55'

# resize: 80x24 still usable, 60x20 too small, back
tui_resize 80 24
tui_wait 'B backup-inprogress +InProgress +.* [0-9]+/~11[0-9] '
tui_wait 'B backup-partial +PartFailed +.* 30/30 +.* 3/1( |$)'
tui_wait_gone 'VOLUME BYTES'
# 60x20 lays out too (fewer columns); 40x10 is too small (tui_sizes.sh covers both in detail)
tui_resize 60 20
tui_wait '^B backup-inprogress +InProgress '
tui_resize 40 10
tui_wait '^ +terminal too small: *$'
tui_wait '^ +40x10 *$'
tui_resize 120 40
tui_wait 'B backup-inprogress +InProgress'
tui_wait 'R restore-done +Completed'

# the sim goes away: retrying, data kept and marked stale; it comes back: live again
tui_sim_kill
tui_wait 'retrying \(attempt [0-9]+, next in [0-9]+s\)' 30
tui_wait 'data stale'
tui_wait 'B backup-done +Completed +.* 55/55'
tui_sim_start --scenario "$SCEN" --quiet --resource-progress
tui_wait '● live' 45
tui_wait_gone 'retrying|stale' 10
tui_wait 'B backup-done +Completed'

# Ctrl-C quits cleanly too
tui_keys C-c
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_basic: ok"
