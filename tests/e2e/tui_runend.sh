#!/usr/bin/env bash
# tui_runend.sh: a run's ETA and "is it moving?" come from everything that gates its end, not its
# item counter alone. A restore at 100 % of its items whose pod volume still moves shows an ETA in
# the list and, in the detail, when it will be done and what it waits on (the volume, bytes left,
# rate), with a line per part; a backup whose only unfinished volume stopped is "stalled" in the
# list and says which part stalled, and how it compares with its schedule's earlier runs.
# --once --json gives the same answers per run.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/runend.yaml" --quiet

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# every item restored, the volume still moving: an ETA of minutes, not "-"
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +[1-5]m[0-9]{2}s '
# the backup's one volume stopped: after 3 of its 10 s update intervals the run is stalled
tui_wait 'B stuck +InProgress +.* 10/~?10 +stalled [0-9]+s ' 60
tui_screen | grep -E 'R drill ' | grep -q stalled && tui_fail "the moving restore was called stalled"

tui_keys / d r i l l Enter Enter
tui_wait '^Restore drill +InProgress'
tui_wait '^Rate +[0-9.]+/s +[0-9.]+ MiB/s +ETA done in ~[1-5]m[0-9]{2}s \(at [0-9:]+\) +last progress [0-9]+s ago'
tui_wait '^Waiting on payments/postgres-0:pgdata, [0-9.]+ GiB left at [12][0-9]\.[0-9] MiB/s'
tui_wait '^  items +20 of 20 +done'
tui_wait '^  pod volumes +0 of 1 done +[0-9.]+ GiB of 6\.0 GiB +[12][0-9]\.[0-9] MiB/s +ETA [1-5]m[0-9]{2}s'
tui_wait '^  finalizing +next'
tui_wait '^Items/s .*Bytes/s .* max [0-9.]+ MiB/s'
tui_keys Escape Escape
tui_keys / s t u c k Enter Enter
tui_wait '^Backup stuck +InProgress'
tui_wait '^Rate .*ETA none +stalled [0-9]+s \(pod volumes\)'
tui_wait '^Waiting on inventory/minio-0:export, 95\.0 MiB left'
tui_wait '^  pod volumes +0 of 1 done .* stalled [0-9]+s'
# its schedule's three earlier runs took ~15 s; this one is far slower than usual
tui_wait '^History usually 1[0-9]s \(last 3: 1[0-9]s–1[0-9]s\) +[0-9]+\.[0-9]× slower than usual'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"

# --once --json: the run's ETA, bytes, what it waits on
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" ||
    tui_fail "--once --json failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json: $(cat "$TUI_DIR/once.json")"
import json, sys
runs = {(r["kind"], r["name"]): r for r in json.load(open(sys.argv[1]))["runs"]}
d = runs[("Restore", "drill")]
assert d["phase"] == "InProgress" and d["itemsDone"] == d["itemsTotal"] == 20, d
assert isinstance(d["etaSeconds"], int) and 10 <= d["etaSeconds"] <= 300, d["etaSeconds"]
assert d["etaLowerBound"] is False and d["etaKind"] == "estimate", d
# one list: whether it moves is known from the server's write times (managedFields)
assert d["stalled"] is False and d["lastProgressEvidence"] == "managedFields", d
assert d["bytesTotal"] == 6 << 30 and 0 < d["bytesDone"] < d["bytesTotal"], d
assert 15 * (1 << 20) < d["bytesPerSecond"] < 30 * (1 << 20), d["bytesPerSecond"]
assert d["waitingOn"]["kind"] == "PodVolumeRestore" and d["waitingOn"]["name"].startswith("drill-"), d
s = runs[("Backup", "stuck")]
assert s["waitingOn"]["kind"] == "PodVolumeBackup" and s["bytesDone"] == 5 << 20, s
PY
echo "tui_runend: ok"
