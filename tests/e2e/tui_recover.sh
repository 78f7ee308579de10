#!/usr/bin/env bash
# tui_recover.sh: the header recovers on the first fresh answer. An API server that is down for
# long (connections refused) makes every reflector back off on its own schedule (up to 30 s,
# jittered, and they started together, so after a minute their next tries can all be 20-30 s
# away). While the server refuses, the liveness probe asks every second; the first answer makes
# every reflector try at once, so the lamp says live within a second or two rather than
# "retrying ... data stale" for another 20 s (the CI failure this test once had: 16 s).
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait 'B backup-done +Completed'

tui_sim_kill
tui_wait 'retrying|not responding' 20
# long enough for the backoffs to grow apart (0.8 s doubling to 30 s, jittered)
tui_wait 'not responding for [4-9][0-9]s' 90
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
t0=$SECONDS
tui_wait '● live' 30
took=$((SECONDS - t0))
echo "live again $took s after the server answered"
# the probe's second, a relist, and $SECONDS counting whole seconds
[ "$took" -le 3 ] || tui_fail "took $took s to say live again"
# a re-opened watch is confirmed current within a second or so, then nothing is stale
tui_wait_gone 'data stale' 4
tui_wait '^health OK' 4
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_recover: ok"
