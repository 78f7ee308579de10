#!/usr/bin/env bash
# tui_health_counts.sh: health that counts what matters (tests/fixtures/scenarios/
# schedule_outcomes.yaml). The summary and the health screen say how each schedule's last 10 runs
# ended and are not OK while a schedule's last run failed; node-agents are counted against the
# node-agent DaemonSet's desired number (kubectl get ds shows the sim's), naming the node without
# one where a volume waits; "bsl-unavailable ... since T" stays T, when veltop first saw the
# outage, while the location's last validation moves on (shown beside it); a failed run has no
# "faster than usual" and no "Stuck?"; --once --json carries the same.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/schedule_outcomes.yaml" --speed 10 --quiet
if command -v kubectl >/dev/null; then
    kubectl --kubeconfig "$TUI_DIR/kubeconfig" -n velero get ds >"$TUI_DIR/ds.txt" 2>&1 ||
        tui_fail "kubectl get ds: $(cat "$TUI_DIR/ds.txt")"
    grep -Eq '^NAME +DESIRED +CURRENT +READY +UP-TO-DATE +AVAILABLE +NODE SELECTOR +AGE$' "$TUI_DIR/ds.txt" ||
        tui_fail "kubectl get ds columns: $(cat "$TUI_DIR/ds.txt")"
    grep -Eq '^node-agent +3 +2 +2 +2 +2 +<none> ' "$TUI_DIR/ds.txt" ||
        tui_fail "kubectl get ds: $(cat "$TUI_DIR/ds.txt")"
    kubectl --kubeconfig "$TUI_DIR/kubeconfig" api-resources --api-group=apps 2>&1 | grep -Eq '^daemonsets +ds +apps/v1 +true +DaemonSet' ||
        tui_fail "discovery: no apps/v1 daemonsets"
fi
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" || tui_fail "--once --json"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json health"
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["schedules"]}
assert s["nightly"]["recent"] == {"runs": 10, "completed": 2, "partiallyFailed": 5, "failed": 3}, s["nightly"]
assert s["nightly"]["lastFinishedPhase"] == "Failed", s["nightly"]
assert s["hourly"]["recent"] == {"runs": 2, "completed": 2, "partiallyFailed": 0, "failed": 0}, s["hourly"]
assert d["health"]["ok"] is False, d["health"]
assert "nightly: last 10: 2 ok, 5 partial, 3 failed" in d["health"]["summary"], d["health"]
assert "node-agents 2/3 ready (worker-3 has none)" in d["health"]["summary"], d["health"]
assert d["nodeAgentDaemonSet"] == {"name": "node-agent", "desired": 3, "current": 2, "ready": 2,
                                   "available": 2}, d["nodeAgentDaemonSet"]
assert d["nodesWithoutNodeAgent"] == ["worker-3"], d["nodesWithoutNodeAgent"]
b = [x for x in d["storageLocations"] if x["name"] == "default"][0]
assert b["phase"] == "Unavailable" and b["unavailableSince"].endswith("Z"), b
PY

tui_start 190 45 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^health ATTENTION +schedules 2 \(1 overdue\) +nightly: last 10: 2 ok, 5 partial, 3 failed +BSL 0/1 available +server ready +node-agents 2/3 ready \(worker-3 has none\)'
# the failed run: no "Stuck?" and no "faster than usual"; its finding says why
tui_keys / nightly-11 Enter
tui_wait '^filter: /nightly-11'
tui_keys Enter
tui_wait '^Backup nightly-11 +Failed'
tui_wait '^History +usually '
tui_screen | grep -q 'than usual' && tui_fail "a failed run is compared with the usual duration"
tui_screen | grep -q '^Stuck?' && tui_fail "a failed run is called stuck"
# a run in progress on the unavailable location: since stays, the validation moves beside it
tui_keys Escape Escape / slow Enter
tui_wait '^filter: /slow'
tui_keys Enter
tui_wait '^Backup slow '
tui_wait '^Stuck\? since [0-9:]{8}  storage location default is Unavailable \(last validated [0-9:]{8}\): rpc error'
first=$(tui_line '^Stuck\? since .*storage location default')
since=$(printf '%s' "$first" | sed -E 's/^Stuck\? since ([0-9:]{8}).*/\1/')
lv=$(printf '%s' "$first" | sed -E 's/.*last validated ([0-9:]{8}).*/\1/')
# the sim validates every 60 simulated seconds (6 s at --speed 10)
tui_wait_change '^Stuck\? since .*storage location default' "$first" 30
lv2=$(tui_line '^Stuck\? since .*storage location default' | sed -E 's/.*last validated ([0-9:]{8}).*/\1/')
[ "$lv2" != "$lv" ] || tui_fail "the last validation did not move ($lv)"
tui_wait "^Stuck\\? since $since  storage location default is Unavailable \\(last validated [0-9:]{8}\\)"
# the health screen: outcomes per schedule, the DaemonSet's count, the node without an agent
tui_keys H
tui_wait 'Health *$'
tui_wait '^[ >] nightly +@every 36h .*last 10: 2 ok, 5 partial, 3 failed'
tui_wait '^[ >] hourly +@every 1h .*last 2: 2 ok'
tui_wait '^Node agents \(2/3 ready, DaemonSet node-agent: 3 desired\) +1 node without one'
tui_wait '^  worker-3 +no node-agent pod \(a volume there waits for one\)'
tui_wait "^[ >] default +BSL +Unavailable .*since $since: rpc error"
# the sparkline tells failed runs apart: red cells in the nightly's trend
tmux -L "$TUI_SOCK" capture-pane -e -p -t veltop >"$TUI_DIR/screen.ans"
grep -a 'nightly' "$TUI_DIR/screen.ans" | grep -aPq '\e\[(?:[0-9;]*;)?31m(?:\e\[[0-9;]*m)*[▁▂▃▄▅▆▇█]' ||
    tui_fail "no red (failed) cell in the nightly sparkline: $(grep -a nightly "$TUI_DIR/screen.ans" | cat -v)"
# at 80 columns the last runs go on a line of their own under their schedule
tui_resize 80 24
tui_wait '^[ >] nightly +@every 36h +no +Failed [0-9a-z]+ ago +in [0-9hm]+ OVERDUE'
tui_wait '^    last runs [▁▂▃▄▅▆▇█]+ [0-9a-z]+, 40 items  last 10: 2 ok, 5 partial, 3 failed$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_health_counts"
