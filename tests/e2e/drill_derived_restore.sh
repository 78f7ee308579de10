#!/usr/bin/env bash
# drill_derived_restore.sh: with `veltop-sim --no-resource-progress` (stock Velero) a live restore's
# detail screen shows per-resource rows derived from the Velero server log ("Restored N items"
# lines), their totals from its backup's BackupResourceList narrowed by the restore's own spec
# (basic.yaml: backup-done's 20 pods, all in the restore's namespaces shop and billing), and the
# rows move. Once per install layout (velero install's labels, the Helm chart's): the same rows
# in each, and the live log names the server pod it reads, not a node-agent or data-mover pod.
source "$(dirname "$0")/tui_lib.bash"
source "$(dirname "$0")/layout_lib.bash"
layout_each

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --no-resource-progress --layout "$LAYOUT"
layout_check_pods "$LAYOUT"
tui_start 140 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'restore-inprogress' 15
tui_keys / ; tui_keys "restore-inprogress" Enter
tui_wait '^R restore-inprogress' 5
tui_keys Enter
tui_wait 'Resources .*derived from the Velero server log' 20
tui_wait '^ +pods +.* [0-9]+ of 20 ' 20
# every Kind of the list resolves through the sim's discovery (apps/v1 Deployment ->
# deployments.apps): exact totals, no row marked "of ~"
tui_wait '^ +deployments\.apps +.* [0-9]+ of 5 ' 10
tui_wait '^ +configmaps +.* [0-9]+ of 10 ' 5
tui_screen | grep -E '^  [a-z][a-z.]* +[^ ]+ +[0-9]+ of ~' && tui_fail "a restore row's total is marked an estimate"
rows() { tui_screen | grep -E '^  [a-z][a-z.]* +[^ ]+ +[0-9]+ of ' | tr -s ' '; }
before=$(rows)
end=$((SECONDS + 30))
while [ "$(rows)" = "$before" ]; do
    [ "$SECONDS" -le "$end" ] || tui_fail "no restore row moved in 30 s: $before"
    sleep 0.2
done
layout_check_log_pod restore restore-inprogress
tui_keys q
tui_wait_exit >/dev/null

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" ||
    tui_fail "--once failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json restore rows"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
res = {x["resource"]: x for x in runs["restore-inprogress"]["resources"]}
assert res["pods"]["total"] == 20, res
PY
echo "ok"
