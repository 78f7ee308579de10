#!/usr/bin/env bash
# tui_inflight_first.sh: in flight first (issue 27). The history's volume lists (those without a
# label selector) answer 8 s late (--faults slow-history=8000): the run in flight shows its
# volume bytes while the header says the history is loading and the finished run's bytes say
# "loading..."; then the history arrives, the loading line goes, the lamp says live and the
# finished run has its bytes. --once waits for the history: its figures are whole.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/inflight_first.yaml" --quiet \
    --faults slow-history=8000

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
# the run in flight with its volume bytes, the history not joined yet: on one screen
tui_wait '^B live-1 +InProgress .* [0-9.]+ GiB/97\.7 GiB$' 6
s=$(tui_screen)
grep -Eq '● loading history: [0-9]+ volumes listed' <<<"$s" ||
    tui_fail "no loading line beside the run in flight: $s"
grep -Eq '^B old-1 +Completed .* loading\.\.\.$' <<<"$s" ||
    tui_fail "the finished run's bytes are not 'loading...' while its volumes are not listed: $s"
# then the history: the loading line goes, the lamp is live, the finished run has its bytes
tui_wait '^B old-1 +Completed .* 300\.0 MiB/300\.0 MiB$' 15
tui_wait '● live' 5
tui_wait_gone 'loading history' 5
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
tui_server_stop

# --once waits for every list, the history's too: exact, not a part
out=$("$VELTOP" --once --kubeconfig "$TUI_DIR/kubeconfig" 2>&1) || tui_fail "--once failed: $out"
grep -Eq '^old-1 +Backup +Completed .* 300\.0 MiB/300\.0 MiB ' <<<"$out" ||
    tui_fail "--once did not wait for the history's volumes: $out"
grep -Eq '^live-1 +Backup +InProgress .* [0-9.]+ GiB/97\.7 GiB ' <<<"$out" ||
    tui_fail "--once: the run in flight: $out"
echo "PASS tui_inflight_first"
