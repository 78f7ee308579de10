#!/usr/bin/env bash
# drill_once_bound.sh: `veltop --once --json` on stock Velero (--no-resource-progress) reads only:
# the run in progress gets rows from the Velero pod's log, finished runs get `"resources": null`
# with the reason, and no DownloadRequest is created. With --details it derives rows for a bounded
# set of runs only: the 10 newest finished runs from their resource lists, and none for older
# finished runs (a cluster with thousands of finished backups must not get one DownloadRequest
# per backup); and it leaves no DownloadRequest behind.
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

created() {
    curl -s "$TUI_SIM_URL/debug/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["downloadRequestsCreated"])'
}

# a snapshot reads: no DownloadRequest, finished runs' rows unknown with the reason
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --json failed: $(cat "$TUI_DIR/once.err")"
[ "$(created)" = 0 ] || tui_fail "--once without --details created $(created) DownloadRequests"
[ -s "$TUI_DIR/once.err" ] && tui_fail "--once wrote to stderr: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json without --details"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
for i in range(13):
    r = runs["old-%02d" % i]
    assert r["resources"] is None, r["resources"]
    assert r["resourcesNote"].startswith("not fetched: a snapshot only reads the cluster; --details"), r
t = {x["resource"]: x["total"] for x in runs["running"]["resources"]}
assert t.get("pods") == 50 and t.get("secrets") == 7, t
assert runs["running"]["resourcesNote"] is None
PY

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --details --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --details --json failed: $(cat "$TUI_DIR/once.err")"
[ "$(created)" = 10 ] || tui_fail "--once --details created $(created) DownloadRequests, want 10"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json derived rows for the wrong runs"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
def totals(name):
    res = runs[name]["resources"]
    return None if res is None else {x["resource"]: x["total"] for x in res}
for i in range(13):
    name = "old-%02d" % i
    if i >= 3:  # the 10 newest finished
        assert totals(name) == {"pods": i + 1, "configmaps": 3}, (name, totals(name))
        assert runs[name]["resourcesNote"] is None
    else:
        assert totals(name) is None, (name, totals(name))
        assert runs[name]["resourcesNote"].startswith("not fetched: --details fetches the resource lists of the newest 10"), runs[name]
t = totals("running")
assert t.get("pods") == 50 and t.get("secrets") == 7, t
PY

# every DownloadRequest was deleted afterwards
left=$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/downloadrequests" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
[ "$left" = 0 ] || tui_fail "$left DownloadRequests left behind"
echo "ok"
