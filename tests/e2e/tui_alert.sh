#!/usr/bin/env bash
# tui_alert.sh: runs that finish or fail while veltop watches set the terminal title and run
# --notify with the event in the environment (one call per event, not for runs already finished
# at start); --no-bell leaves the title alone; a slow, steady run (an item every 5 s) is no
# stall, as its answer says.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait.yaml" --quiet
EV="$TUI_DIR/events"
: >"$EV"
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig" \
    --notify 'echo "$VELTOP_EVENT|$VELTOP_KIND|$VELTOP_RUN|$VELTOP_PHASE" >>'"$EV"
tui_wait '● live'
tui_wait '^B ok +Completed' 30
tui_wait '^R ok-r +Completed' 30
# every event once, in any order
end=$((SECONDS + 20))
while [ "$(wc -l <"$EV")" -lt 4 ] && [ "$SECONDS" -le "$end" ]; do sleep 0.1; done
sort "$EV" >"$TUI_DIR/got"
printf '%s\n' 'failed|backup|bad|Failed' 'failed|backup|partial|PartiallyFailed' \
    'finished|backup|ok|Completed' 'finished|restore|ok-r|Completed' >"$TUI_DIR/want"
diff "$TUI_DIR/want" "$TUI_DIR/got" >&2 || tui_fail "notify events"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
case "$title" in
"veltop: backup "*|"veltop: restore "*) ;;
*) tui_fail "title: '$title'" ;;
esac
tui_keys q
tui_wait_exit >/dev/null
# a fresh tmux server for the next start: a new client racing the old one's exit fails
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-n"

# started after everything ended: no events; --no-bell: the title is not touched
: >"$EV"
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig" --no-bell \
    --notify 'echo "$VELTOP_EVENT" >>'"$EV"
tui_wait '^B ok +Completed'
tui_keys q
tui_wait_exit >/dev/null
[ -s "$EV" ] && tui_fail "events for runs finished before veltop started: $(cat "$EV")"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}' 2>/dev/null || true)
case "$title" in "veltop: "*) tui_fail "--no-bell set the title: $title" ;; esac
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-s"

# an item every 5 s: watched from its first items past the 30 s a first sight allows, and past
# its eighth write, neither the list, the header nor --notify says stalled
tui_sim_kill
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait_slow.yaml" --quiet
: >"$EV"
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig" --notify 'echo "$VELTOP_EVENT $VELTOP_RUN" >>'"$EV"
tui_wait '^B steady +InProgress +\S+ +[0-9]+/~?200 +0\.2/s ' 30
tui_wait '^B steady +InProgress +\S+ +([89]|[1-9][0-9])/~?200 ' 90
tui_screen | grep -q 'stall' && tui_fail "a slow, steady run said stalled: $(tui_screen)"
[ -s "$EV" ] && tui_fail "events for runs that move: $(cat "$EV")"
tui_keys q
tui_wait_exit >/dev/null
echo "PASS tui_alert"
