#!/usr/bin/env bash
# real_data.sh: Velero data as real clusters have it renders as Velero meant it. A PodVolumeBackup
# InProgress with progress {bytesDone: 634} and no totalBytes (TotalBytes is omitempty: not known
# yet) is "not sized yet" on the detail's volume line, its part line and the volumes screen, and
# bytesTotal null in --once --json; a storage location's message with a newline, an ESC sequence
# and quotes reaches --once --json exactly (json.loads equal) and the terminal sanitised.
source "$(dirname "$0")/tui_lib.bash"
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 0; }

tui_sim_start --scenario empty --quiet
KC="$TUI_DIR/kubeconfig"
API="$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero"
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
post() { # resource body
    curl -sf -XPOST -H 'Content-Type: application/json' "$API/$1" -d "$2" >/dev/null ||
        tui_fail "could not create $1"
}
post backups '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"demo-app","namespace":"velero"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$now"'","progress":{"totalItems":10,"itemsBackedUp":3}}}'
post podvolumebackups '{"apiVersion":"velero.io/v1","kind":"PodVolumeBackup","metadata":{"name":"demo-app-x7k2p","namespace":"velero","labels":{"velero.io/backup-name":"demo-app"}},"spec":{"node":"worker-1","pod":{"kind":"Pod","namespace":"shop","name":"db-0"},"volume":"data","uploaderType":"kopia"},"status":{"phase":"InProgress","startTimestamp":"'"$now"'","progress":{"bytesDone":634}}}'
# the message as the server has it (JSON escapes in the patch: a newline, ESC, quotes)
MSG_JSON='"NoCredentialProviders: no valid providers in chain\ncaused by: \u001b[31m\"default\" profile not found\u001b[0m"'
curl -sf -XPATCH -H 'Content-Type: application/merge-patch+json' "$API/backupstoragelocations/default" \
    -d '{"status":{"phase":"Unavailable","message":'"$MSG_JSON"'}}' >/dev/null || tui_fail "could not patch the BSL"

"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" || tui_fail "--once --json failed"
python3 - "$TUI_DIR/once.json" "$MSG_JSON" <<'PY' || tui_fail "--once --json is not the server's data"
import json, sys
d = json.load(open(sys.argv[1]))
want = json.loads(sys.argv[2])
assert want == 'NoCredentialProviders: no valid providers in chain\ncaused by: \x1b[31m"default" profile not found\x1b[0m', want
locs = {l["name"]: l for l in d["storageLocations"]}
assert locs["default"]["message"] == want, (locs["default"]["message"], want)
assert locs["default"]["phase"] == "Unavailable"
run = {r["name"]: r for r in d["runs"]}["demo-app"]
assert [(v["name"], v["phase"], v["bytesDone"], v["bytesTotal"]) for v in run["volumes"]] == \
    [("demo-app-x7k2p", "InProgress", 634, None)], run["volumes"]
PY
# the table is for a terminal: no ESC from the cluster in it
"$VELTOP" --kubeconfig "$KC" --once >"$TUI_DIR/once.txt" || tui_fail "--once failed"
grep -q "^demo-app  Backup  InProgress" "$TUI_DIR/once.txt" || tui_fail "--once table: no demo-app row"
if grep -q $'\x1b' "$TUI_DIR/once.txt"; then tui_fail "--once table has an ESC"; fi

tui_start 200 40 --kubeconfig "$KC"
tui_wait '^B demo-app ' 15
tui_keys Enter
tui_wait '^Backup demo-app  InProgress' 5
tui_wait '^  PVB shop/db-0:data +kopia +InProgress .* 634 B / not sized yet' 10
tui_wait '^  pod volumes +0 of 1 done  634 B of \? +not sized yet' 5
tui_wait '^Volumes 0 of 1 done, 1 active   634 B of \? \(1 not sized yet\)' 5
if tui_screen | grep -Eq '634 B (/|of) 0 B|not started'; then tui_fail "the detail shows a size of 0 B or 'not started'"; fi
tui_keys v
tui_wait 'Volumes of backup demo-app +1 volume: 1 in progress, 0 finished' 10
tui_wait 'shop/db-0:data +kopia +InProgress .* 634 B / not sized yet' 5
tui_wait '^All volumes .* 634 B / \? \(1 not sized yet\)' 5
if tui_screen | grep -q '634 B / 0 B'; then tui_fail "the volumes screen shows 634 B / 0 B"; fi
# the health screen: the message sanitised (caret notation), never the raw ESC
tui_keys Escape Escape
tui_wait '^B demo-app ' 5
tui_keys H
tui_wait 'no valid providers in chain\^Jcaused by: \^\[\[31m"default" profile not found\^\[\[0m' 10
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
