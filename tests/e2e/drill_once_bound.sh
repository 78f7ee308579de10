#!/usr/bin/env bash
# drill_once_bound.sh: `veltop --once --json` on stock Velero (--no-resource-progress) derives
# per-resource rows for a bounded set of runs only: the run in progress from the Velero pod's log,
# the 10 newest finished runs from their resource lists, and none for older finished runs (a
# cluster with thousands of finished backups must not get one DownloadRequest per backup); and
# it leaves no DownloadRequest behind.
source "$(dirname "$0")/tui_lib.bash"

# 13 finished backups (old-00 oldest .. old-12 newest), each with a distinct pod count, and one in
# progress
scen="$TUI_DIR/bound.yaml"
{
    echo "namespaces: [shop]"
    echo "runs:"
    for i in $(seq 0 12); do
        printf '  - {kind: backup, name: old-%02d, start: -%dm, rate: 20, resources: [{name: pods, items: %d}, {name: configmaps, items: 3}]}\n' \
            "$i" $((200 - i * 10)) $((i + 1))
    done
    echo "  - {kind: backup, name: running, start: -20s, rate: 0.5, resources: [{name: pods, items: 50}, {name: secrets, items: 7}]}"
} >"$scen"
tui_sim_start --scenario "$scen" --quiet --no-resource-progress

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --json failed: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json derived rows for the wrong runs"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
def totals(name):
    return {x["resource"]: x["total"] for x in runs[name]["resources"]}
for i in range(13):
    name = "old-%02d" % i
    if i >= 3:  # the 10 newest finished
        assert totals(name) == {"pods": i + 1, "configmaps": 3}, (name, totals(name))
    else:
        assert totals(name) == {}, (name, totals(name))
t = totals("running")
assert t.get("pods") == 50 and t.get("secrets") == 7, t
PY

# every DownloadRequest was deleted afterwards
left=$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/downloadrequests" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
[ "$left" = 0 ] || tui_fail "$left DownloadRequests left behind"
echo "ok"
