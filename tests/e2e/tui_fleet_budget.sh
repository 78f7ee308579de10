#!/usr/bin/env bash
# tui_fleet_budget.sh: the fleet screen's column budget with long cells (`veltop-sim --fleet demo`,
# clocks frozen: an EKS ARN of 47 characters, a schedules cell of 47): at 160 columns every
# column shows, the schedules' detail after ";" gives way first (its head whole, then "…"), then
# the context is cut, and WHY keeps at least 20 columns; at 200 nothing is cut.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }
D=$TUI_DIR
"$VELTOP_SIM" --fleet demo --freeze-at 10 --kubeconfig-out "$D/fleet.kc" --quiet >"$D/fleet.out" 2>"$D/fleet.err" &
TUI_SIM_PID=$!
end=$((SECONDS + 90))
until grep -q '^fleet ready' "$D/fleet.out"; do
    kill -0 "$TUI_SIM_PID" 2>/dev/null || break
    [ "$SECONDS" -le "$end" ] || break
    sleep 0.05
done
grep -q '^fleet ready' "$D/fleet.out" || tui_fail "the sim fleet did not start: $(cat "$D/fleet.err")"
export KUBECONFIG="$D/fleet.kc"

tui_start 160 30 --all-contexts
tui_wait '^ 7 clusters: ' 30
tui_wait '^ ● live +kubernetes-admin@staging +v1\.18\.2 +none +1/0/0 +1, 1 overdue, 1 restorable stale… +1/1 +3/3 ' 30
tui_wait '^ LAMP +CONTEXT +VELERO +IN FLIGHT +24H OK/PF/F +SCHEDULES +BSL +AGENTS +WHY$'
python3 - "$(tui_screen)" <<'PY' || tui_fail "the budget at 160 columns: $(tui_screen)"
import sys
lines = sys.argv[1].splitlines()
head = next(l for l in lines if l.startswith(" LAMP "))
why = head.index("WHY")
assert 160 - why - 1 >= 20, f"WHY has {160 - why - 1} columns"
row = next(l for l in lines if "arn:aws:eks:" in l)
# the context cut with an ellipsis, never below 24 columns
ctx = row[head.index("CONTEXT"):head.index("VELERO")].rstrip()
assert ctx.endswith("…") and len(ctx) >= 24, repr(ctx)
assert row[head.index("BSL"):].split()[:2] == ["1/1", "3/3"], row
PY
tui_resize 200 30
tui_wait '^ ● live +arn:aws:eks:eu-west-1:123456789012:clus… +v1\.18\.2 '
tui_wait '^ ● live +kubernetes-admin@staging +v1\.18\.2 +none +1/0/0 +1, 1 overdue, 1 restorable stale; nightly never +1/1 +3/3 '
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "tui_fleet_budget: ok"
