#!/usr/bin/env bash
# huge_artifact.sh: a BackupResourceList with a million keys (23 MB of JSON, 3 MB gzipped, under
# every byte cap) is read within the row cap (KC_CAP_RESOURCE_ROWS, 4096) and without blocking
# the loop: `--once --details` ends within its deadline with 4096 rows and says how many types
# were left out; the full screen answers q while the list is loading, and shows the cut rows.
source "$(dirname "$0")/tui_lib.bash"

scen="$TUI_DIR/huge.yaml"
printf '%s\n' 'namespaces: [shop]' 'runs:' \
    '  - {kind: backup, name: big, start: -1h, rate: 20, extra_list_keys: 1000000, resources: [{name: pods, items: 5}]}' \
    '  - {kind: backup, name: small, start: -2h, rate: 20, resources: [{name: pods, items: 3}]}' >"$scen"
tui_sim_start --scenario "$scen" --quiet --no-resource-progress
KC="$TUI_DIR/kubeconfig"

t0=$SECONDS
timeout 60 "$VELTOP" --kubeconfig "$KC" --once --details --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --details failed: $(cat "$TUI_DIR/once.err")"
took=$((SECONDS - t0))
[ "$took" -le 20 ] || tui_fail "--once --details took $took s over a 10^6-key list"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json over a 10^6-key list"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
big = runs["big"]
assert big["resources"] is not None, big["resourcesNote"]
assert len(big["resources"]) == 4096, len(big["resources"])
rows = {x["resource"]: x["total"] for x in big["resources"]}
assert rows["pods"] == 5, rows.get("pods")
assert big["resourcesNote"] == ("from the BackupResourceList artifact, cut at 4096 resource "
                                "types: 995905 more left out"), big["resourcesNote"]
assert {x["resource"]: x["total"] for x in runs["small"]["resources"]} == {"pods": 3}
assert runs["small"]["resourcesNote"] is None
PY

# the full screen: q is answered while the list is on its way
tui_start 160 40 --kubeconfig "$KC"
tui_wait 'big' 15
tui_keys / ; tui_keys "big" Enter
tui_wait '^B big ' 5
tui_keys Enter
tui_wait 'Resources +loading the BackupResourceList' 10
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q while loading the list did not exit 0"
tui_server_stop

# ... and the rows, cut, once in; q again
tui_start 160 40 --kubeconfig "$KC"
tui_wait 'big' 15
tui_keys / ; tui_keys "big" Enter
tui_wait '^B big ' 5
tui_keys Enter
tui_wait 'Resources +[0-9]+ of 4096 types done +\(from the BackupResourceList artifact, cut at 4096 resource types: 995905 more left out\)' 30
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q did not exit 0"
echo "ok"
