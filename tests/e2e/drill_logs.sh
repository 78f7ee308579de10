#!/usr/bin/env bash
# drill_logs.sh: the logs screen against veltop-sim (basic.yaml): a finished backup's stored log
# shows its first and last lines, search finds a known line, the level filter and `e` reach the
# warning/error lines, `w` writes the log; a backup in progress shows its live log growing.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --resource-progress
cd "$TUI_DIR" || exit 1 # veltop's working directory: where `w` writes a relative name
tui_start 140 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'backup-done' 15

# select backup-done with the list filter, open its stored log
tui_keys / ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
tui_keys l
tui_wait 'Log of backup backup-done +stored log, [0-9]+ lines' 20
tui_wait 'msg="Setting up backup temp file" backup=velero/backup-done' 5
tui_screen | grep -q 'LIVE' && tui_fail "a finished backup must show its stored log"

# last line with G
tui_keys G
tui_wait 'msg="Backed up a total of 55 items" backup=velero/backup-done' 5
tui_keys g
tui_wait 'msg="Setting up backup temp file"' 5

# search for a known line that is not on the first page, then n wraps to it again
tui_keys / ; tui_keys "Waiting for completion" Enter
tui_wait 'msg="Waiting for completion of PVB" backup=velero/backup-done' 5
tui_screen | grep -q 'msg="Setting up backup temp file"' && tui_fail "search did not move the view"
tui_keys n
tui_wait 'msg="Waiting for completion of PVB"' 5

# level filter: warnings and worse only (backup-done has 2 warnings)
tui_keys L L
tui_wait 'level>=warning' 5
[ "$(tui_screen | grep -c 'level=warning')" -eq 2 ] || tui_fail "expected exactly the 2 warning lines"
tui_screen | grep -q 'level=info' && tui_fail "info lines shown with the warning filter"
# w writes what is shown: the 2 warning lines, under the absolute path of the name typed
tui_keys w
tui_wait 'write log to: backup-done.log' 5
tui_keys C-u ; tui_keys "warn.log" Enter
tui_wait "wrote 2 lines at level warning to $TUI_DIR/warn.log\$" 5
[ "$(grep -c 'level=warning' "$TUI_DIR/warn.log")" = 2 ] && [ "$(wc -l <"$TUI_DIR/warn.log")" = 2 ] ||
    tui_fail "warn.log: $(cat "$TUI_DIR/warn.log")"
# and never overwrites a file
tui_keys w
tui_keys C-u ; tui_keys "warn.log" Enter
tui_wait "$TUI_DIR/warn.log exists: not overwritten \(w again with another name\)" 5
[ "$(wc -l <"$TUI_DIR/warn.log")" = 2 ] || tui_fail "warn.log was overwritten"
# a level no line has: the screen says the filter matches nothing (backup-done has no error)
tui_keys L L L L # warning -> info -> debug -> all -> error
tui_wait 'level>=error' 5
tui_wait '^the level filter \(error or worse\) matches none of the [0-9]+ lines$' 5
tui_keys L L L L
tui_wait_gone 'level>=' 5

# write the log to a file
tui_keys w
tui_wait 'write log to: backup-done.log' 5
tui_keys C-u ; tui_keys "$TUI_DIR/out.log" Enter
tui_wait "wrote [0-9]+ lines to $TUI_DIR/out.log\$" 5
head -n 1 "$TUI_DIR/out.log" | grep -q 'msg="Setting up backup temp file"' || tui_fail "written file lacks the first line"
tail -n 1 "$TUI_DIR/out.log" | grep -q 'msg="Backed up a total of 55 items"' || tui_fail "written file lacks the last line"

# n and N: the next match moves the view on, the previous one back to where it was
tui_keys g
tui_wait '^rows 1-[0-9]+ of' 5
tui_screen | grep -q 'msg="Processing item"' && tui_fail "the first page should have no Processing item line"
tui_keys / ; tui_keys C-u ; tui_keys "Processing item" Enter
tui_wait 'msg="Processing item" backup=velero/backup-done' 5
tui_wait_gone '^rows 1-[0-9]+ of' 5
p1=$(tui_line '^rows [0-9]+-[0-9]+ of')
tui_keys n
tui_wait_change '^rows [0-9]+-[0-9]+ of' "$p1" 5
tui_keys N
tui_wait "^${p1}" 5

# wrap: long lines (longer than 140 columns) continue on the next row; off again: one row each
tui_keys g
tui_wait 'msg="Setting up backup temp file"' 5
[ "$(tui_screen | sed -n '4,38p' | grep -vc '^time="')" -eq 0 ] || tui_fail "a row that is not a line start without wrap"
tui_keys W
tui_wait '^rows .*  wrap' 5
[ "$(tui_screen | sed -n '4,38p' | grep -vc '^time="')" -gt 0 ] || tui_fail "no continuation rows with wrap on"
tui_keys W
tui_wait_gone '^rows .*  wrap' 5

# a partially failed backup: `e` jumps to its error lines, shown in the error colour
tui_keys Escape Escape
tui_keys / ; tui_keys C-u ; tui_keys "backup-partial" Enter
tui_wait '^B backup-partial' 5
tui_keys l
tui_wait 'Log of backup backup-partial +stored log, [0-9]+ lines' 20
tui_screen | grep -q 'level=error' && tui_fail "the first page should have no error line"
tui_keys e
tui_wait '^time="[^"]*" level=error msg="Error backing up item" backup=velero/backup-partial' 5
p1=$(tui_line '^rows [0-9]+-[0-9]+ of')
tui_keys e
tui_wait_change '^rows [0-9]+-[0-9]+ of' "$p1" 5 # the second of its 3 errors
esc=$(tmux -L "$TUI_SOCK" capture-pane -p -e -t veltop)
err_row=$(printf '%s\n' "$esc" | grep -m1 'level=error')
info_row=$(printf '%s\n' "$esc" | grep -m1 'level=info')
[ "$err_row" != "$(printf '%s' "$err_row" | sed 's/\x1b\[[0-9;]*m//g')" ] || tui_fail "error line has no colour"
case "$err_row" in *$'\e['*3[1-9]*m*level=error* | *$'\e['*9[0-9]*m*level=error* | *$'\e['*38\;5\;*m*level=error*) ;;
*) tui_fail "error line not coloured: $err_row" ;;
esac
[ "$(printf '%s' "$info_row" | grep -c $'\e\\[[0-9;]*3[1-7]m')" -eq 0 ] || tui_fail "info line coloured: $info_row"

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
