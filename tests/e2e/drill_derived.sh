#!/usr/bin/env bash
# drill_derived.sh: with `veltop-sim --no-resource-progress` (stock Velero) the detail screen still
# shows per-resource bars: for a running backup derived from the Velero pod's log (totals from
# "Retrieved N items"), for a finished one from its BackupResourceList; totals equal basic.yaml's.
# Once per install layout (velero install's labels, the Helm chart's): the same rows in each, and
# the live log names the server pod it reads, not a node-agent or the running data-mover pod.
source "$(dirname "$0")/tui_lib.bash"
source "$(dirname "$0")/layout_lib.bash"
layout_each

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --no-resource-progress --layout "$LAYOUT"
layout_check_pods "$LAYOUT"
tui_start 140 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'backup-inprogress' 15

tui_keys / ; tui_keys "backup-inprogress" Enter
tui_wait '^B backup-inprogress' 5
tui_keys Enter
tui_wait 'Resources .*derived from the Velero server log' 20
tui_wait '^ +pods +.* [0-9]+ of 40 ' 10
tui_wait '^ +deployments\.apps +.* [0-9]+ of 12 ' 5
tui_wait '^ +configmaps +.* [0-9]+ of 30 ' 5
tui_wait '^ +secrets +.* [0-9]+ of 18 ' 5
tui_wait '^ +namespaces +.* 3 of 3 ' 5
tui_wait '^ +persistentvolumes +.* [0-9]+ of 6 ' 5
line=$(tui_line '^ +pods ')
tui_wait_change '^ +pods ' "$line" 15 # processed moves with "Processing item" lines
layout_check_log_pod backup backup-inprogress

# a finished backup: totals from its resource list, and the label says so
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
tui_keys Enter
tui_wait 'Resources +8 of 8 types done +\(from the BackupResourceList artifact\)' 20
tui_screen | grep -q 'derived from the Velero server log' && tui_fail "a finished run's totals are labelled as from the log"
tui_wait '^ +pods +.* 20 of 20 ' 5
tui_wait '^ +deployments\.apps +.* 5 of 5 ' 5
tui_wait '^ +configmaps +.* 10 of 10 ' 5
tui_wait '^ +persistentvolumeclaims +.* 2 of 2 ' 5
tui_keys q
tui_wait_exit >/dev/null

# --once --details --json fills `resources` the same way
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --details --json >"$TUI_DIR/once.json" || tui_fail "--once failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json resources differ from basic.yaml"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
def totals(name):
    return {x["resource"]: x["total"] for x in runs[name]["resources"]}
assert totals("backup-done") == {"namespaces": 2, "pods": 20, "deployments.apps": 5, "services": 6,
    "configmaps": 10, "secrets": 8, "persistentvolumeclaims": 2, "persistentvolumes": 2}, totals("backup-done")
t = totals("backup-inprogress")
assert t["pods"] == 40 and t["configmaps"] == 30 and t["deployments.apps"] == 12, t
PY
echo "ok"
