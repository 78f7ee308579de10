#!/usr/bin/env bash
# truth_live.sh: against veltop-sim in its stock default (no status.resourceProgress), a live
# backup and a live restore (truth-live.yaml: all items done, a volume stalled for good, so both
# stay InProgress) show per-resource rows derived from the Velero server's log that equal what the
# sim's controller did: each resource's items exactly (the scenario's), their sum the run's
# status.progress, the restore's rows its backup's BackupResourceList (every entry restored:
# the restore asks for cluster resources), no total ("of ?", null) only on the backup's rows that
# plugins grew past what was retrieved.
# Same in --once --json and on the detail screens.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/truth-live.yaml" --quiet
KC="$TUI_DIR/kubeconfig"
V="$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero"
# wait until both item passes are over (the volumes stall: they stay InProgress)
for i in $(seq 1 100); do
    b=$(curl -s "$V/backups/live-backup" | python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(s.get("phase"), s.get("progress",{}).get("itemsBackedUp"), "resourceProgress" in s)')
    r=$(curl -s "$V/restores/live-restore" | python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(s.get("phase"), s.get("progress",{}).get("itemsRestored"))')
    [ "$b" = "InProgress 34 False" ] && [ "$r" = "InProgress 29" ] && break
    sleep 0.1
done
[ "$b" = "InProgress 34 False" ] || tui_fail "live-backup status: $b"
[ "$r" = "InProgress 29" ] || tui_fail "live-restore status: $r"

"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" || tui_fail "--once failed"
curl -s "$V/downloadrequests" -H 'Content-Type: application/json' -X POST -d '{"apiVersion":"velero.io/v1",
  "kind":"DownloadRequest","metadata":{"name":"base-list"},"spec":{"target":{"kind":"BackupResourceList","name":"base"}}}' >/dev/null
url=""
for i in $(seq 1 100); do
    url=$(curl -s "$V/downloadrequests/base-list" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("status",{}).get("downloadURL",""))')
    [ -n "$url" ] && break
    sleep 0.1
done
curl -sf "$url" | gunzip >"$TUI_DIR/base-list.json" || tui_fail "base's BackupResourceList"
python3 - "$TUI_DIR/once.json" "$TUI_DIR/base-list.json" <<'PY' || tui_fail "live rows differ from what the controller did"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
def rows(name):
    return {x["resource"]: (x["done"], x["total"]) for x in runs[name]["resources"]}
b = rows("live-backup")
# the rows plugins grew past their "Retrieved N items" (2 retrieved, 2 added) have no total:
# the log gives none to count against, and the count is no total (null, "of ?")
assert b == {"namespaces": (2, 2), "pods": (12, 12), "persistentvolumeclaims": (4, None),
             "persistentvolumes": (4, None), "deployments.apps": (5, 5),
             "ingresses.networking.k8s.io": (3, 3),
             "clusterroles.rbac.authorization.k8s.io": (4, 4)}, b
assert sum(d for d, _ in b.values()) == runs["live-backup"]["itemsDone"] == 34, runs["live-backup"]
r = rows("live-restore")
assert r == {"namespaces": (2, 2), "persistentvolumes": (2, 2), "persistentvolumeclaims": (2, 2),
             "clusterroles.rbac.authorization.k8s.io": (3, 3), "configmaps": (6, 6),
             "pods": (10, 10), "deployments.apps": (4, 4)}, r
assert sum(d for d, _ in r.values()) == runs["live-restore"]["itemsDone"] == 29, runs["live-restore"]
# the restore's rows are its backup's stored list, entry for entry
kinds = {"v1/Namespace": "namespaces", "v1/PersistentVolume": "persistentvolumes",
         "v1/PersistentVolumeClaim": "persistentvolumeclaims", "v1/ConfigMap": "configmaps",
         "v1/Pod": "pods", "apps/v1/Deployment": "deployments.apps",
         "rbac.authorization.k8s.io/v1/ClusterRole": "clusterroles.rbac.authorization.k8s.io"}
lst = {kinds[k]: (len(v), len(v)) for k, v in json.load(open(sys.argv[2])).items()}
assert r == lst, (r, lst)
PY

tui_start 120 40 --kubeconfig "$KC"
tui_wait '^B live-backup ' 15
tui_keys / ; tui_keys live-backup Enter
tui_wait '^B live-backup ' 5
tui_keys Enter
tui_wait 'Resources +7 of 7 types done +\(derived from the Velero server log\)' 20
tui_wait '^ +persistentvolumeclaims +.* 4 of \? ' 5
tui_wait '^Items .* 34 of ~34 +100%' 5
tui_wait '^ +persistentvolumes +.* 4 of \? ' 5
for row in 'namespaces .* 2 of 2 ' 'pods .* 12 of 12 ' 'deployments\.apps .* 5 of 5 ' \
    'ingresses\.networking\.k8s\.io .* 3 of 3 ' 'clusterroles\.rbac\.authorization\.k.* 4 of 4 '; do
    tui_wait "^ +$row" 5
done
[ "$(tui_screen | grep -cE '^  [a-z].* [0-9]+ of \? ')" = 2 ] || tui_fail "more than the plugin-grown rows have no total"
tui_screen | grep -E '^  [a-z]' | grep -v '^  items ' | grep -qE ' [0-9]+ of ~' &&
    tui_fail "a resource row's total is the count marked ~"
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys live-restore Enter
tui_wait '^R live-restore ' 5
tui_keys Enter
tui_wait 'Resources +7 of 7 types done +\(derived from the Velero server log\)' 20
for row in 'namespaces .* 2 of 2 ' 'persistentvolumes .* 2 of 2 ' 'persistentvolumeclaims .* 2 of 2 ' \
    'clusterroles\.rbac\.authorization\.k.* 3 of 3 ' 'configmaps .* 6 of 6 ' \
    'pods .* 10 of 10 ' 'deployments\.apps .* 4 of 4 '; do
    tui_wait "^ +$row" 10
done
tui_screen | grep -qE '^  [a-z].* [0-9]+ of ~' && tui_fail "a restore row is marked ~"
# every item counted, done, by exact rows summing to the status' totals: Velero's last patch,
# not an estimate (the backup's rows plugins grew keep its "of ~34")
tui_wait '^Items .* 29 of 29 +100%' 5
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys live Enter
tui_wait '^R live-restore +InProgress +.* 29/29 ' 5
tui_wait '^B live-backup +InProgress +.* 34/~34 ' 5
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
