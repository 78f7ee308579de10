#!/usr/bin/env bash
# tui_detail_estimate.sh: while a run's items total is Velero's estimate (the run answer's
# items_estimated), the detail says "x of ~y" on its Items line and on its items part line, as
# the list says "x/~y".
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/idle.yaml" --quiet

check() { # cols rows
    tui_start "$1" "$2" --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait '● live'
    tui_wait '^B moving +InProgress .* [0-9]+/~1000 '
    tui_keys / m o v i n g Enter Enter
    tui_wait '^Backup moving +InProgress'
    tui_wait '^Items [^ ]+ [0-9]+ of ~1000 '
    tui_wait '^  items +[0-9]+ of ~1000 '
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
    tui_server_stop
}
check 120 40
check 80 24
echo "PASS tui_detail_estimate"
