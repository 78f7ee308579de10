#!/usr/bin/env bash
# tui_health_unknown.sh: health is never "OK" on what veltop cannot see. With the pods forbidden
# and nothing else wrong, the list's header says "health unknown: cannot read pods: forbidden"
# (it used to say "health OK"), the health screen says so on the server and node-agent lines (not
# "0/3 ready, 3 nodes without one"), and --once --json has health.ok null with the reason. With
# the backups forbidden, no schedule is OVERDUE "none yet": its last backup is unknown, with why,
# and the lamp names the refusal ("forbidden"), not an outage.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }

tui_sim_start --scenario fleet-healthy --faults forbid=pods --quiet
rc=0
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" || rc=$?
[ "$rc" = 5 ] || tui_fail "--once with pods forbidden: status $rc, $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json health: $(cat "$TUI_DIR/once.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["health"] == {"ok": None, "summary": "schedules 1  BSL 1/1 available",
                       "unknown": "cannot read pods: forbidden"}, d["health"]
assert d["nodeAgents"] is None and d["velero"] is None, d
PY
# the table has no health column: stderr says health is unknown, and why
rc=0
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once.txt" 2>"$TUI_DIR/once.err" || rc=$?
[ "$rc" = 5 ] || tui_fail "--once table with pods forbidden: status $rc"
grep -qx 'veltop: health unknown: cannot read pods: forbidden' "$TUI_DIR/once.err" ||
    tui_fail "--once table stderr: $(cat "$TUI_DIR/once.err")"
tui_start 130 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^health unknown: cannot read pods: forbidden +schedules 1 +BSL 1/1 available +\(H: details\)'
tui_screen | grep -q '^health OK' && tui_fail "health OK while the pods cannot be read"
tui_keys H
tui_wait '^Velero server$'
tui_wait '^Node agents \(DaemonSet node-agent: 3 desired\) *$'
[ "$(tui_screen | grep -c '^  unknown: cannot read pods: forbidden *$')" = 2 ] ||
    tui_fail "server and node-agent lines: $(tui_screen)"
tui_screen | grep -Eq 'ready|without one' && tui_fail "node-agents counted while the pods cannot be read: $(tui_screen)"
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
tui_server_stop
tui_sim_kill
TUI_SIM_PORT=""

# the backups forbidden: the schedules' last success is unknown, none is overdue
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --faults forbid=backups --quiet
tui_start 130 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '^ ● forbidden \(attempt [0-9]+, next in [0-9]+s\) +forbidden: backups\.velero\.io is forbidden: User '
tui_wait '^health ATTENTION +schedules 2 +BSL 0/1 available .*unknown: cannot read backups: forbidden'
tui_keys H
tui_wait '^Schedules \(2\) *$'
tui_wait '^  nightly +0 1 \* \* \* +no +unknown: cannot read backu'
tui_screen | grep -q 'OVERDUE\|none yet' && tui_fail "a schedule judged without its backups: $(tui_screen)"
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_health_unknown"
