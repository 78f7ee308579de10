#!/usr/bin/env bash
# tui_itemops.sh: a backup waiting on plugin operations, against scenario itemops.yaml whose truth
# is known: the CSI data mover's operation stopped for good at 40 % (419430400 of 1048576000
# Bytes), and a widget plugin's moving at 2 Items a second towards 100000. --once --details
# --json gives the data mover's operation exactly (the artifact's text, joined to its DataUpload),
# and without --details says why it is unknown; the detail screen lists the widget's operation
# (its figures, rate, ETA) and marks the DataUpload's row as the data mover's operation, at 80x24
# and 200x50, as the volumes screen does; every DownloadRequest veltop created is deleted.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done
D=$TUI_DIR
trap 'tui_cleanup' EXIT

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/itemops.yaml" --quiet
KC="$D/kubeconfig"
API="$TUI_SIM_URL/apis"
created() {
    curl -s "$TUI_SIM_URL/debug/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["downloadRequestsCreated"])'
}
left() {
    curl -s "$API/velero.io/v1/namespaces/velero/downloadrequests" |
        python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))'
}
wait_none_left() {
    local end=$((SECONDS + 10)) n
    while [ "$SECONDS" -le "$end" ]; do
        n=$(left)
        [ "$n" = 0 ] && return 0
        sleep 0.1
    done
    tui_fail "$1: $n DownloadRequests left behind"
}

# ---- --once --json: not read without --details (a DownloadRequest is a write) ----
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/plain.json" || tui_fail "--once --json"
[ "$(created)" = 0 ] || tui_fail "--once without --details created a DownloadRequest"
python3 - "$D/plain.json" <<'PY' || tui_fail "--once --json: operations not unknown with why"
import json, sys
r = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}["ops-40"]
assert r["itemOperations"] == {
    "known": False,
    "reason": "not fetched: --details reads them (a DownloadRequest per run waiting on them)",
    "timeoutSeconds": 14400, "readAt": None, "cut": None, "operations": None}, r["itemOperations"]
PY

# ---- --once --details --json: the data mover's operation, exactly ----
curl -s "$API/velero.io/v2alpha1/namespaces/velero/datauploads" >"$D/du.json"
"$VELTOP" --kubeconfig "$KC" --once --details --json >"$D/once.json" || tui_fail "--once --details --json"
python3 - "$D/once.json" "$D/du.json" <<'PY' || tui_fail "--once --details --json: the operations are not the truth"
import json, sys
r = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}["ops-40"]
du = json.load(open(sys.argv[2]))["items"][0]
io = r["itemOperations"]
assert io["known"] is True and io["reason"] is None and io["cut"] == 0, io
assert io["timeoutSeconds"] == 14400 and io["readAt"], io
ops = {o["backupItemAction"]: o for o in io["operations"]}
assert len(ops) == 2, io["operations"]
d = ops["velero.io/csi-pvc-backupper"]
rate = d.pop("perSecond")
assert rate is None or rate > 0, rate
assert d == {
    "operationID": du["metadata"]["labels"]["velero.io/async-operation-id"],
    "backupItemAction": "velero.io/csi-pvc-backupper",
    "resourceIdentifier": {"group": "", "resource": "persistentvolumeclaims",
                           "namespace": "shop", "name": "db-data"},
    "phase": "New", "error": None,
    "nCompleted": 419430400, "nTotal": 1048576000, "operationUnits": "Bytes",
    "description": "InProgress",
    "created": du["metadata"]["creationTimestamp"],
    "started": du["status"]["startTimestamp"], "updated": None,
    "etaSeconds": None, "stalled": False, "stalledSeconds": None,
    "volume": {"kind": "DataUpload", "name": du["metadata"]["name"]},
}, d
assert d["nCompleted"] / d["nTotal"] == 0.4
w = ops["example.io/widget-backupper"]
assert w["operationID"] == "widget-op-1" and w["volume"] is None, w
assert w["operationUnits"] == "Items" and w["nTotal"] == 100000 and w["nCompleted"] > 0, w
assert w["description"] == "exporting widgets" and w["phase"] == "New", w
assert w["resourceIdentifier"] == {"group": "example.io", "resource": "widgets",
                                   "namespace": "shop", "name": "w-1"}, w
# its rate is 2 Items/s, so is the ETA's basis
assert abs(w["perSecond"] - 2) < 0.1, w
assert abs(w["etaSeconds"] - (100000 - w["nCompleted"]) / 2) < 0.05 * w["etaSeconds"], w
assert r["etaFromPluginOperations"] is True and r["etaKind"] == "estimate", r
assert r["stalled"] is False, r
PY
# two: its BackupResourceList (its item pass is over: --details reads it) and its operations
[ "$(created)" = 2 ] || tui_fail "--once --details created $(created) DownloadRequests, want 2"
wait_none_left "--once --details"

# ---- the detail screen, 80x24 then 200x50 ----
tui_start 80 24 --kubeconfig "$KC"
tui_wait '^B ops-40 +WaitingOps'
tui_keys Enter
tui_wait '^Backup ops-40  WaitingForPluginOperations'
tui_wait '^Plugin operations  2, 0 done, \* on volumes  read [0-9]+s ago'
tui_wait '^  widgets\.example\.i… New +[^ ]+ [0-9]+ of 100000 Items  2\.0/s  ETA [0-9]+h[0-9]+m'
tui_wait '^  data mover +0 of 1 done  400\.0 MiB of 1000\.0 MiB +stalled'
# read at most every 30 s: none more while the screen says the last read is 5 s old and more
n=$(created)
tui_wait '^Plugin operations  2, 0 done, \* on volumes  read ([5-9]|[12][0-9])s ago'
[ "$(created)" = "$n" ] || tui_fail "operations read again within 30 s ($n, then $(created) DownloadRequests)"
tui_resize 200 50
tui_wait '^  widgets\.example\.io shop/w-1 +example\.io/widget-backupper +New +[^ ]+ [0-9]+ of 100000 Items  2\.0/s  ETA [0-9]+h[0-9]+m  updated [0-9]+s ago$'
tui_wait '^Plugin operations  2, 0 done, data movers. on their volume rows \(\*\)  read [0-9]+s ago$'
tui_wait '^  DU\* shop/db-data +data mover InProgress +[^ ]+ +400\.0 MiB / 1000\.0 MiB stalled'
# the volumes screen marks the DataUpload as the data mover's operation too
tui_keys v
tui_wait 'shop/db-data \(PVC\) \* +data mover +InProgress'
tui_keys q
tui_wait_exit >/dev/null
[ "$(created)" -ge 4 ] || tui_fail "the screen read no operations"
wait_none_left "the screen"
echo PASS
