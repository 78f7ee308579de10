#!/usr/bin/env bash
# wait_line.sh: `veltop --wait` on a run whose whole progress line is wider than the terminal:
# on a terminal at 80 and 100 columns one line rewritten in place, never wrapped (fields give
# way, the numbers stay whole); in a pipe every line stamped with its RFC 3339 time and a line
# repeated at most every --interval.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait_slow.yaml" --quiet
KC="$TUI_DIR/kubeconfig"
RUN=nightly-20260601010000

# on a terminal of COLS columns: exactly one progress line, within the width, through redraws
one_line_at() {
    local cols=$1 line rows
    tui_start "$cols" 10 --kubeconfig "$KC" --wait backup/$RUN
    tui_wait "^backup $RUN  InProgress  items [0-9]+/~?60  "
    # three redraws (the items move every second)
    for _ in 1 2 3; do
        line=$(tui_line "^backup $RUN ")
        tui_wait_change "^backup $RUN " "$line"
    done
    rows=$(tui_screen | grep -c .)
    [ "$rows" = 1 ] || tui_fail "$cols columns: $rows lines on screen: $(tui_screen)"
    line=$(tui_line "^backup $RUN ")
    [ "${#line}" -lt "$cols" ] || tui_fail "$cols columns: a line of ${#line}: $line"
    # what stays: the phase, the items and the ETA (an estimate, or none and why)
    echo "$line" | grep -Eq "^backup $RUN  InProgress  items [0-9]+/~?60  .*eta [^ ]+" ||
        tui_fail "$cols columns: $line"
    tui_keys C-c
    tui_wait_exit >/dev/null
    # a fresh tmux server for the next start: a new client racing the old one's exit fails
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
    TUI_SOCK="$TUI_SOCK-n"
}
one_line_at 80
one_line_at 100

# piped: each line starts with its time (RFC 3339: UTC with --utc, else local with its offset);
# --interval 0 writes every change (the items move every second), --interval 4s at most a line
# every 4 s while nothing but the figures changes
TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}'
rc=0
"$VELTOP" --kubeconfig "$KC" --wait backup/$RUN --utc --interval 0 --timeout 5s >"$TUI_DIR/out0" 2>/dev/null || rc=$?
[ "$rc" = 6 ] || tui_fail "--interval 0: exit $rc"
n0=$(grep -Ec "^${TS}Z backup $RUN  InProgress  items [0-9]+/~?60  " "$TUI_DIR/out0")
[ "$n0" = "$(wc -l <"$TUI_DIR/out0")" ] || tui_fail "--utc: $(cat "$TUI_DIR/out0")"
[ "$n0" -ge 4 ] || tui_fail "--interval 0: $n0 lines in 5 s: $(cat "$TUI_DIR/out0")"
rc=0
TZ=XST-05:30 "$VELTOP" --kubeconfig "$KC" --wait backup/$RUN --interval 4s --timeout 9s >"$TUI_DIR/out4" 2>/dev/null || rc=$?
[ "$rc" = 6 ] || tui_fail "--interval 4s: exit $rc"
n4=$(grep -Ec "^$TS\+05:30 backup $RUN  InProgress  " "$TUI_DIR/out4")
[ "$n4" = "$(wc -l <"$TUI_DIR/out4")" ] || tui_fail "local time: $(cat "$TUI_DIR/out4")"
# the first line, one at 4 s and one at 8 s, and a verdict that changed (first sight) at most
[ "$n4" -ge 2 ] && [ "$n4" -le 4 ] || tui_fail "--interval 4s: $n4 lines in 9 s: $(cat "$TUI_DIR/out4")"
echo "PASS wait_line"
