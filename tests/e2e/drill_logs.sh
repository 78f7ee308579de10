#!/usr/bin/env bash
# drill_logs.sh: the logs screen against veltop-sim (basic.yaml): a finished backup's stored log
# shows its first and last lines, search finds a known line, the level filter and `e` reach the
# warning/error lines, `w` writes the log; a backup in progress shows its live log growing.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 140 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'backup-done' 15

# select backup-done with the list filter, open its stored log
tui_keys / ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
tui_keys l
tui_wait 'Log of backup backup-done +stored log, [0-9]+ lines' 20
tui_wait 'msg="Setting up backup log" backup=velero/backup-done' 5
tui_screen | grep -q 'LIVE' && tui_fail "a finished backup must show its stored log"

# last line with G
tui_keys G
tui_wait 'msg="Backed up a total of 55 items" backup=velero/backup-done' 5
tui_keys g
tui_wait 'msg="Setting up backup log"' 5

# search for a known line that is not on the first page, then n wraps to it again
tui_keys / ; tui_keys "Waiting for all pod volume" Enter
tui_wait 'msg="Waiting for all pod volume backups to complete" backup=velero/backup-done' 5
tui_screen | grep -q 'msg="Setting up backup log"' && tui_fail "search did not move the view"
tui_keys n
tui_wait 'msg="Waiting for all pod volume backups to complete"' 5

# level filter: warnings and worse only (backup-done has 2 warnings)
tui_keys f f
tui_wait 'level>=warning' 5
[ "$(tui_screen | grep -c 'level=warning')" -eq 2 ] || tui_fail "expected exactly the 2 warning lines"
tui_screen | grep -q 'level=info' && tui_fail "info lines shown with the warning filter"
tui_keys f f f
tui_wait_gone 'level>=' 5

# write the log to a file
tui_keys w
tui_wait 'write log to: backup-done.log' 5
tui_keys C-u ; tui_keys "$TUI_DIR/out.log" Enter
tui_wait "wrote [0-9]+ lines to $TUI_DIR/out.log" 5
head -n 1 "$TUI_DIR/out.log" | grep -q 'msg="Setting up backup log"' || tui_fail "written file lacks the first line"
tail -n 1 "$TUI_DIR/out.log" | grep -q 'msg="Backed up a total of 55 items"' || tui_fail "written file lacks the last line"

# a backup in progress: the live log of the Velero pod, lines keep arriving
tui_keys Escape Escape
tui_keys / ; tui_keys C-u ; tui_keys "backup-inprogress" Enter
tui_wait '^B backup-inprogress' 5
tui_keys l
tui_wait 'LIVE log of backup backup-inprogress +[0-9]+ lines, following +\(in progress, no stored log yet; streaming from pod velero-[a-z0-9-]+\)' 20
first=$(tui_line 'LIVE log of backup')
tui_wait_change 'LIVE log of backup' "$first" 15
tui_wait 'msg="Processing item" backup=velero/backup-inprogress' 10
tui_screen | grep -E 'backup=velero/(backup-done|backup-failed|backup-partial|every5)|restore=velero/' &&
    tui_fail "lines of other runs in the live log"
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
