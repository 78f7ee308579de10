#!/usr/bin/env bash
# wait_exit.sh: `veltop --wait backup/NAME` for scripts and CI: a line per change when stdout is
# not a terminal (items, bytes, the rate of what it waits on, ETA, what it waits on), each
# stamped with its RFC 3339 time, one updating line on a terminal, and the exit status of the
# outcome: 0 Completed, 3 PartiallyFailed, 4 Failed, 1 unreachable or not found, 2 usage.
. "$(dirname "$0")/tui_lib.bash" || exit 1

export TZ=UTC # the lines' times: local, with the zone's offset (+00:00 here)
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait.yaml" --quiet
KC="$TUI_DIR/kubeconfig"

# run_wait TARGET WANT_RC: runs --wait with stdout to a file, checks the exit status
run_wait() {
    local rc=0
    timeout 60 "$VELTOP" --kubeconfig "$KC" --wait "$1" >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
    [ "$rc" = "$2" ] || { cat "$TUI_DIR/out" "$TUI_DIR/err" >&2; tui_fail "--wait $1: exit $rc, want $2"; }
}

TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}'
run_wait backup/ok 0
# (its total "~40" while the item pass runs; "40/40" once the log shows every item done and the
# run waits on its volume, as --once and the list say it: a loaded machine may see only that)
grep -Eq "^$TS\+00:00 backup ok  InProgress  items [0-9]+/~?40  bytes [0-9.]+ [KM]?i?B/4\.0 MiB  rate [^ ]+( [KM]?i?B/s)?  eta " "$TUI_DIR/out" ||
    tui_fail "no progress line with items and bytes: $(cat "$TUI_DIR/out")"
grep -Eq "^$TS\+00:00 backup ok  Completed  items 40/40  bytes 4\.0 MiB/4\.0 MiB  rate [0-9.]+/s  eta -\$" "$TUI_DIR/out" ||
    tui_fail "no final progress line: $(cat "$TUI_DIR/out")"
tail -n 1 "$TUI_DIR/out" | grep -Eq '^backup ok finished: Completed after [0-9]+s$' ||
    tui_fail "last line: $(tail -n 1 "$TUI_DIR/out")"
# a line per change: every progress line stamped, no two equal consecutive lines but for their
# time, no carriage returns
[ "$(grep -Ec "^$TS\+00:00 backup ok  " "$TUI_DIR/out")" = "$(($(wc -l <"$TUI_DIR/out") - 1))" ] ||
    tui_fail "a line without its time: $(cat "$TUI_DIR/out")"
[ "$(cut -d' ' -f2- "$TUI_DIR/out" | uniq | wc -l)" = "$(wc -l <"$TUI_DIR/out")" ] || tui_fail "repeated lines"
grep -q $'\r' "$TUI_DIR/out" && tui_fail "carriage returns in a pipe"

run_wait backup/partial 3
tail -n 1 "$TUI_DIR/out" | grep -Eq '^backup partial finished: PartiallyFailed after' || tui_fail "partial"
run_wait backup/bad 4
grep -Eq "^$TS\+00:00 backup bad  Failed  items 20/40 " "$TUI_DIR/out" || tui_fail "bad: $(cat "$TUI_DIR/out")"
# a run that did not complete: why, after the end line
grep -A1 -E '^backup bad finished: Failed after' "$TUI_DIR/out" | tail -n 1 |
    grep -qx 'failure reason: rpc error: code = Unavailable' || tui_fail "no failure reason: $(cat "$TUI_DIR/out")"
run_wait restore/ok-r 0
tail -n 1 "$TUI_DIR/out" | grep -Eq '^restore ok-r finished: Completed after' || tui_fail "restore"
run_wait backup/nope 1
grep -q '^veltop: backup nope not found in namespace velero$' "$TUI_DIR/err" || tui_fail "not found: $(cat "$TUI_DIR/err")"

# usage errors: 2
rc=0; "$VELTOP" --kubeconfig "$KC" --wait nightly >/dev/null 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 2 ] || tui_fail "--wait nightly: exit $rc"
grep -q "invalid --wait 'nightly': expected backup/NAME or restore/NAME" "$TUI_DIR/err" || tui_fail "usage message"
rc=0; "$VELTOP" --kubeconfig "$KC" --wait backup/ok --once >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || tui_fail "--wait --once: exit $rc"
rc=0; "$VELTOP" --kubeconfig "$KC" --wait backup/ok --interval 1x >/dev/null 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 2 ] || tui_fail "--interval 1x: exit $rc"
grep -q "invalid --interval '1x'" "$TUI_DIR/err" || tui_fail "--interval usage: $(cat "$TUI_DIR/err")"
rc=0; "$VELTOP" --kubeconfig "$KC" --once --interval 5s >/dev/null 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 2 ] || tui_fail "--interval without --wait: exit $rc"

# on a terminal: one line rewritten in place, then the verdict on the next line
tui_start 120 10 --kubeconfig "$KC" --wait backup/ok
tui_wait '^backup ok finished: Completed after [0-9]+s'
[ "$(tui_wait_exit)" = 0 ] || tui_fail "tty: exit status"
[ "$(tui_screen | grep -c '^backup ok ')" = 2 ] || tui_fail "tty: more than one progress line"
tui_screen | grep -Eq '^backup ok  Completed  items 40/40' || tui_fail "tty: final progress line"
# a fresh tmux server for the next start: a new client racing the old one's exit fails
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-n"

# unreachable: 1, with the reason
tui_sim_kill
rc=0; timeout 60 "$VELTOP" --kubeconfig "$KC" --wait backup/ok >/dev/null 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 1 ] || tui_fail "unreachable: exit $rc"
grep -q '^veltop: ' "$TUI_DIR/err" || tui_fail "unreachable: no reason"
echo "PASS wait_exit"
