#!/usr/bin/env bash
# tui_health.sh: "are my backups OK?" The list's header says what needs attention in one line;
# `H` opens the health screen: a schedule that never succeeded is OVERDUE in red, an Unavailable
# storage location shows its message, the restarted server its restart count, reason and exit
# code, the node-agents per node whether they are ready (a missing one is simply absent), and the
# schedule that never ran has nothing restorable (a finding the header names). Both install
# layouts: velero install's labels and the Helm chart's.
. "$(dirname "$0")/tui_lib.bash" || exit 1

for layout in install helm; do
    tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --layout "$layout" --quiet
    tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait '● live'
    # the server restarts 2 s in (OOMKilled) and stays down
    tui_wait '^health ATTENTION +schedules 2 \(1 overdue\) +BSL 0/1 available +server NOT READY \(1 restart\) +node-agents 1/3 ready +nightly: nothing restorable +\(H: details\)'
    tui_keys H
    tui_wait 'Health *$'
    tui_wait '^Schedules \(2\) +1 overdue'
    tui_wait '^[ >] hourly +@every 1h +no +none yet +in 59m[0-9]{2}s *$'
    tui_wait '^  nightly +0 1 \* \* \* +no +none yet +due now OVERDUE'
    tui_wait '^    restorable: none, older than 2 intervals \(1d00h\), no restore found$'
    # OVERDUE is red
    tmux -L "$TUI_SOCK" capture-pane -e -p -t veltop >"$TUI_DIR/screen.ans"
    grep -aPq '\e\[(?:[0-9;]*;)?31m(?:\e\[[0-9;]*m)* ?OVERDUE' "$TUI_DIR/screen.ans" ||
        tui_fail "OVERDUE is not red: $(grep -a OVERDUE "$TUI_DIR/screen.ans" | cat -v)"
    tui_wait '^Storage locations \(1 BSL, 0 VSL\) +1 unavailable'
    tui_wait '^  default +BSL +Unavailable +[0-9]+s ago +yes +ReadWrite +since [0-9:]{8}: BackupStorageLocation "default" is unavail'
    tui_wait '^  velero-7d8f9c6b54-x2k8p +NOT READY +1 restart, last [0-9]+s ago \(OOMKilled, exit 137\) +CrashLoopBackOff +v1\.18\.2'
    tui_wait '^Node agents \(1/3 ready, DaemonSet node-agent: 3 desired\) +1 not ready  1 node without one'
    tui_wait '^  1 more node without a node-agent pod \(which: unknown, veltop does not list nodes\)'
    tui_wait '^  worker-1 +node-agent-[a-z0-9]{5} +yes +0 *$'
    tui_wait '^  worker-2 +node-agent-[a-z0-9]{5} +NO +0 *$'
    tui_screen | grep -q 'worker-3' && tui_fail "a node without a node-agent has a row"
    # at 80x24 the columns narrow and OVERDUE still shows
    tui_resize 80 24
    tui_wait '^  nightly +0 1 \* \* \* +no +none yet +due now OVERDUE'
    tui_resize 160 40
    # the key is in the list's help
    tui_keys Escape
    tui_wait 'Backups & Restores *$'
    tui_keys '?'
    tui_wait '^ +H +health: schedules, locations, server, node-agents'
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
    # a fresh tmux server for the next start: a new client racing the old one's exit fails
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
    TUI_SOCK="$TUI_SOCK-n"
    tui_sim_kill
    TUI_SIM_PORT=""
done
# pods not allowed to this user (403): the runs are still live, --once does not wait for pods,
# and the health line claims nothing about a server it cannot see: it says it cannot read them
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --faults forbid=pods --quiet
t0=$SECONDS
# ... but it says what it could not read, on stderr, in JSON, and in its exit status (5)
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err"; st=$?
[ "$st" = 5 ] || tui_fail "--once with pods forbidden: status $st, $(cat "$TUI_DIR/once.err")"
[ $((SECONDS - t0)) -lt 10 ] || tui_fail "--once waited $((SECONDS - t0)) s for forbidden pods"
grep -qx 'veltop: incomplete: not visible: pods forbidden' "$TUI_DIR/once.err" ||
    tui_fail "--once stderr: $(cat "$TUI_DIR/once.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["velero"] is None and d["nodeAgents"] is None and d["nodesWithoutNodeAgent"] is None and d["incomplete"] == ["pods forbidden"], d; assert d["health"] == {"ok": False, "summary": "schedules 2 (1 overdue)  BSL 0/1 available  nightly: nothing restorable", "unknown": "cannot read pods: forbidden"}, d["health"]' \
    "$TUI_DIR/once.json" || tui_fail "--once --json with pods forbidden"
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# what it cannot see is said, not left out (it used to end at "BSL 0/1 available")
tui_wait '^health ATTENTION +schedules 2 \(1 overdue\) +BSL 0/1 available +nightly: nothing restorable +unknown: cannot read pods: forbidden +\(H: details\)'
tui_keys H
tui_wait '^Velero server$'
tui_wait '^  unknown: cannot read pods: forbidden$'
echo "PASS tui_health"
