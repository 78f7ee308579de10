#!/usr/bin/env bash
# tui_numbers.sh: numbers from the cluster at and past the int64 range, and times that are no
# date, never crash veltop (the tests run under ASan+UBSan, which abort on signed overflow and on
# qsort(NULL, 0)): volume bytes of 1e19 summed, an itemsBackedUp at 2^63, a totalItems string past
# the range, a start time "...00.9e300Z"; `v` on a run without volumes. --once --json answers
# with saturated counts, the ETA's real projection (no cap) and null for the time that is no date.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --quiet
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not create the objects"
import json, sys, urllib.request
def post(res, body):
    req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/" + res,
                                 data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(req).status == 201
def backup(name, status):
    post("backups", json.dumps({"apiVersion": "velero.io/v1", "kind": "Backup",
         "metadata": {"name": name, "namespace": "velero"}, "spec": {},
         "status": status}).encode())
backup("huge", {"phase": "InProgress", "startTimestamp": "2026-01-01T00:00:00Z",
                "progress": {"totalItems": "99999999999999999999", "itemsBackedUp": 5},
                "resourceProgress": {"pods": {"processed": 5, "total": 10}}})
backup("novols", {"phase": "Completed", "startTimestamp": "2026-01-01T00:00:00Z",
                  "completionTimestamp": "2026-01-01T00:01:00Z",
                  "progress": {"totalItems": 3, "itemsBackedUp": 3},
                  "resourceProgress": {"pods": {"processed": 3, "total": 3}}})
# raw text: numbers past what JSON tools write, a fraction strtod reads as 0.9e300
post("backups", b'{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"far",'
     b'"namespace":"velero"},"spec":{},"status":{"phase":"InProgress",'
     b'"startTimestamp":"2026-01-01T00:00:00.9e300Z",'
     b'"progress":{"totalItems":1e19,"itemsBackedUp":9223372036854775807},'
     b'"resourceProgress":{"pods":{"processed":1,"total":2}}}}')
for i in range(2):
    post("podvolumebackups", ('{"apiVersion":"velero.io/v1","kind":"PodVolumeBackup",'
         '"metadata":{"name":"huge-%d","namespace":"velero",'
         '"labels":{"velero.io/backup-name":"huge"}},"spec":{"node":"n","volume":"v%d",'
         '"pod":{"namespace":"a","name":"p"},"uploaderType":"kopia"},'
         '"status":{"phase":"InProgress","progress":{"bytesDone":1e19,"totalBytes":1e19}}}'
         % (i, i)).encode())
PY

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" \
    || tui_fail "--once --json: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json: $(cat "$TUI_DIR/once.json")"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
big = 2.0 ** 63  # INT64_MAX as cJSON writes it (a double)
h = runs["huge"]
assert h["itemsTotal"] == big, h
# 2^63 items left at 5 since 2026-01-01: the projection as it is (~1e25 s), never a cap (172801)
assert h["etaKind"] == "estimate" and h["etaSeconds"] > 1e20, h
assert [v["bytesDone"] for v in h["volumes"]] == [big] * 2, h
f = runs["far"]
assert f["started"] is None, f
# every item done, still InProgress: its status was written seconds ago (managedFields), so what
# is left is Finalizing's second, an estimate; the start time is not needed for it
assert f["etaSeconds"] == 1 and f["etaKind"] == "estimate" and f["etaLowerBound"] is False, f
assert f["lastProgressEvidence"] == "managedFields", f
assert f["itemsDone"] == big, f
PY

tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# huge started 2026-01-01, before the sim's server pod was made: the "why is it stuck?" mark
# (server-restarted, diagnose.h); far's start is no date, so no mark
tui_wait 'B⚠huge +InProgress'
tui_wait 'B far +InProgress'
# the run with two 8 EiB volumes: their sum saturates
tui_keys /
tui_keys h u g e Enter
tui_keys Enter
tui_wait '^Backup huge +InProgress'
tui_wait '^Stuck\? since [0-9:]+  the Velero server pod velero-[a-z0-9-]+ was replaced at [0-9:]+, after this backup start'
tui_wait '8\.0 EiB'
tui_keys v
tui_wait '^Volumes of '
tui_keys Escape Escape
# a run without volumes: `v` shows an empty list (qsort(NULL, 0) aborted here under UBSan)
tui_keys /
tui_keys Escape
tui_keys /
tui_keys n o v o l s Enter
tui_wait 'B novols +Completed'
tui_keys v
[ -f "$TUI_DIR/exit" ] && tui_fail "veltop exited: $(cat "$TUI_DIR/exit")"
tui_wait '^Volumes of '
tui_keys Escape
tui_wait 'B novols +Completed'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_numbers: ok"
