#!/usr/bin/env bash
# tui_spark_zero.sh: a run stalled since before veltop started (idle-6m: nothing written for 6
# minutes) draws its rate sparkline on the baseline under "max 0.0/s", not as full blocks of the
# average its tracker was seeded with.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/idle.yaml" --quiet

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_keys / i d l e - 6 m Enter Enter
tui_wait '^Backup idle-6m +InProgress'
tui_wait '^Rate .* stalled 6m'
# a column for each 5 s veltop watched: every one of them on the baseline
tui_wait '^Items/s ▁+ max 0\.0/s ' 8
tui_wait '^Items/s ▁▁ max 0\.0/s ' 15
tui_screen | grep -E '^Items/s' | grep -q '[▂▃▄▅▆▇█]' && tui_fail "a stalled run's sparkline has blocks"
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_spark_zero"
