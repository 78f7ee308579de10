#!/usr/bin/env bash
# tui_signals.sh: the full screen ended by SIGTERM or SIGHUP exits as a program the signal killed
# (143, 129), after restoring the terminal (normal screen, cursor shown); q still exits 0.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 0; }

# the pid of veltop: the child of the shell tui_start runs in the pane
veltop_pid() {
    local sh pid i
    sh=$(tmux -L "$TUI_SOCK" list-panes -t veltop -F '#{pane_pid}')
    for i in $(seq 1 100); do
        pid=$(pgrep -P "$sh" | head -n 1)
        [ -n "$pid" ] && { echo "$pid"; return 0; }
        sleep 0.05
    done
    tui_fail "no veltop under the pane's shell $sh"
}

pane() { # format
    tmux -L "$TUI_SOCK" display-message -p -t veltop "$1"
}

for sig in TERM HUP; do
    tui_start 100 30 --demo --scenario empty
    tui_wait '● live'
    [ "$(pane '#{alternate_on}')" = 1 ] || tui_fail "the full screen is not on the alternate screen"
    kill -s "$sig" "$(veltop_pid)"
    status=$(tui_wait_exit)
    want=$((128 + $(kill -l "$sig")))
    [ "$status" = "$want" ] || tui_fail "SIG$sig: exit $status, want $want"
    [ "$(pane '#{alternate_on}')" = 0 ] || tui_fail "SIG$sig: the terminal was left on the alternate screen"
    [ "$(pane '#{cursor_flag}')" = 1 ] || tui_fail "SIG$sig: the cursor was left hidden"
    tui_server_stop
done

tui_start 100 30 --demo --scenario empty
tui_wait '● live'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q: not 0"
echo PASS
