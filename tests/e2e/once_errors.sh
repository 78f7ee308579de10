#!/usr/bin/env bash
# once_errors.sh: `veltop --once` reports the first real error with the server's message (exit 1,
# one line on stderr), not "timed out listing Velero's resources" because the other list was
# still on its way: restores forbidden while backups answer slowly, every request 500, every
# request 429, backups forbidden (named as such: "forbidden: <the server's message>").
. "$(dirname "$0")/tui_lib.bash" || exit 1

once_err() { # faults expected-stderr
    TUI_SIM_PORT=""
    tui_sim_start --scenario empty --quiet --faults "$1"
    local rc=0
    "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
    tui_sim_kill
    [ "$rc" = 1 ] || tui_fail "$1: exit $rc, stderr: $(cat "$TUI_DIR/err")"
    [ "$(cat "$TUI_DIR/err")" = "$2" ] || tui_fail "$1: stderr '$(cat "$TUI_DIR/err")', want '$2'"
    [ -s "$TUI_DIR/out" ] && tui_fail "$1: stdout not empty"
    echo "$1: ok"
}

once_err forbid=restores,slow=backups \
    'veltop: forbidden: restores.velero.io is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "restores" in API group "velero.io" in the namespace "velero"'
once_err forbid=backups \
    'veltop: forbidden: backups.velero.io is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "backups" in API group "velero.io" in the namespace "velero"'
once_err error500=1 \
    'veltop: an error on the server ("injected fault") has prevented the request from succeeding (HTTP 500 InternalError)'
once_err error429=1 \
    'veltop: the server has received too many requests and has asked us to try again later (HTTP 429 TooManyRequests)'
echo "once_errors: ok"
