#!/usr/bin/env bash
# derived_no_total.sh: a per-resource row derived from the Velero server log whose total only
# follows its count (plugin-added persistentvolumes: no "Retrieved N items" line) is no total: the
# detail screen says "N of ?" (it said "N of ~N", growing with the count), --once --details
# --json gives total null; rows with a Retrieved line keep their exact totals.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/derived_no_total.yaml" --quiet --no-resource-progress
KC="$TUI_DIR/kubeconfig"

"$VELTOP" --kubeconfig "$KC" --once --details --json >"$TUI_DIR/once.json" || tui_fail "--once failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --details --json rows: $(cat "$TUI_DIR/once.json")"
import json, sys
run = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}["grows"]
assert run["phase"] == "InProgress", run["phase"]
rows = {x["resource"]: (x["done"], x["total"]) for x in run["resources"]}
assert list(rows) == ["persistentvolumeclaims", "persistentvolumes", "configmaps"], rows
assert rows["persistentvolumeclaims"] == (5, 5), rows
pv_done, pv_total = rows["persistentvolumes"]
assert pv_total is None and 0 < pv_done < 60, rows  # never pv_done standing in for a total
assert rows["configmaps"][1] == 100, rows
assert run["itemsDone"] == sum(d for d, _ in rows.values()), (run["itemsDone"], rows)
PY

tui_start 140 40 --kubeconfig "$KC"
tui_wait '^B grows ' 15
tui_keys Enter
tui_wait 'Resources .*derived from the Velero server log' 20
tui_wait '^ +persistentvolumeclaims +.* 5 of 5 ' 10
tui_wait '^ +persistentvolumes +.* [0-9]+ of \? ' 10
tui_wait '^ +configmaps +.* [0-9]+ of 100 ' 5
line=$(tui_line '^ +persistentvolumes ')
tui_wait_change '^ +persistentvolumes ' "$line" 15 # its count moves, the total stays "?"
tui_wait '^ +persistentvolumes +.* [0-9]+ of \? ' 5
if tui_screen | grep -Eq '^ +persistentvolumes +.* [0-9]+ of ~'; then
    tui_fail "the persistentvolumes row shows its count as its total"
fi
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
