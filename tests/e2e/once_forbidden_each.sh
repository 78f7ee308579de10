#!/usr/bin/env bash
# once_forbidden_each.sh: every list veltop reads (core/app.c's APP_R_*), forbidden alone by a
# Role that lacks exactly it (the sim's --rbac), is named: backups or restores are the runs
# themselves (exit 1, "veltop: forbidden: <the server's message>", no JSON); any other list makes --once
# exit 5 with "veltop: incomplete: not visible: <list> forbidden" on stderr and in JSON's
# "incomplete", health.unknown says "cannot read <list>: forbidden" unless the answers own it
# (podvolumebackups ... datadownloads), and --serve's veltop_cluster_incomplete_info says it.
# With every list allowed: exit 0, "incomplete" empty, health.unknown null. The health screen
# says "unknown: cannot read daemonsets: forbidden" (and volumesnapshotlocations) in its section.
. "$(dirname "$0")/tui_lib.bash" || exit 1
. "$(dirname "$0")/serve_lib.bash" || exit 1
serve_need python3 curl

ALL="velero.io/backups velero.io/restores velero.io/podvolumebackups velero.io/podvolumerestores
velero.io/datauploads velero.io/datadownloads velero.io/schedules velero.io/backupstoragelocations
velero.io/volumesnapshotlocations /pods apps/daemonsets velero.io/backuprepositories batch/jobs"
role() { # role WITHOUT FILE: a ClusterRole allowing get/list/watch on every list but WITHOUT
    local r g
    printf 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: v\nrules:\n' >"$2"
    for r in $ALL; do
        [ "${r#*/}" = "$1" ] && continue
        g=${r%%/*}
        printf '  - apiGroups: ["%s"]\n    resources: [%s]\n    verbs: [get, list, watch]\n' \
            "$g" "${r#*/}" >>"$2"
        [ "${r#*/}" = pods ] && printf '  - apiGroups: [""]\n    resources: [pods/log]\n    verbs: [get]\n' >>"$2"
    done
}

check() { # check WITHOUT: one sim with a Role lacking WITHOUT ("" lacks none)
    local w=$1 st want_rc want_err py
    role "$w" "$TUI_DIR/role.yaml"
    tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_jobs.yaml" --rbac "$TUI_DIR/role.yaml" --quiet
    st=0 # one run (a forbidden volume list costs --once its wait): stderr is --json's as the table's
    "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/o.json" 2>"$TUI_DIR/e.txt" || st=$?
    case "$w" in
    "") want_rc=0 want_err="" ;;
    backups | restores)
        want_rc=1
        want_err="veltop: forbidden: $w.velero.io is forbidden: User \"system:serviceaccount:velero:veltop\" cannot list resource \"$w\" in API group \"velero.io\" in the namespace \"velero\""
        ;;
    *) want_rc=5 want_err="veltop: incomplete: not visible: $w forbidden" ;;
    esac
    [ "$st" = "$want_rc" ] || tui_fail "${w:-nothing} forbidden: --once --json exit $st, want $want_rc; stderr: $(cat "$TUI_DIR/e.txt")"
    [ "$(cat "$TUI_DIR/e.txt")" = "$want_err" ] ||
        tui_fail "${w:-nothing} forbidden: stderr is not exactly '$want_err': $(cat "$TUI_DIR/e.txt")"
    [ "$want_rc" = 1 ] && [ -s "$TUI_DIR/o.json" ] && tui_fail "$w forbidden: JSON of runs unread: $(cat "$TUI_DIR/o.json")"
    [ "$want_rc" = 1 ] || python3 - "$TUI_DIR/o.json" "$w" <<'PY' || tui_fail "${w:-nothing} forbidden, JSON: $(cat "$TUI_DIR/o.json")"
import json, sys
d, w = json.load(open(sys.argv[1])), sys.argv[2]
answers = ("podvolumebackups", "podvolumerestores", "datauploads", "datadownloads")
if w == "":
    assert d["incomplete"] == [], d["incomplete"]
    assert d["health"]["unknown"] is None, d["health"]
else:
    assert d["incomplete"] == [w + " forbidden"], d["incomplete"]
    if w not in answers:
        assert d["health"]["unknown"] == "cannot read %s: forbidden" % w, d["health"]
        assert d["health"]["ok"] in (None, False), d["health"]
PY
    if [ -n "$w" ] && [ "$want_rc" = 5 ]; then # --serve's metrics name it as JSON does
        serve_start
        for _ in $(seq 1 200); do
            curl -sf "http://127.0.0.1:$VPORT/metrics" >"$TUI_DIR/m.txt" 2>/dev/null &&
                grep -q "^veltop_cluster_incomplete_info{.*what=\"$w forbidden\"} 1$" "$TUI_DIR/m.txt" && break
            sleep 0.1
        done
        grep -q "^veltop_cluster_incomplete_info{.*what=\"$w forbidden\"} 1$" "$TUI_DIR/m.txt" ||
            tui_fail "$w forbidden: no veltop_cluster_incomplete_info what=\"$w forbidden\": $(grep incomplete "$TUI_DIR/m.txt")"
        kill "$VELTOP_PID"
        wait "$VELTOP_PID" 2>/dev/null
        VELTOP_PID=""
    fi
    tui_sim_kill
    TUI_SIM_PORT=""
}

check ""
for r in $ALL; do check "${r#*/}"; done
# the health screen says the unknown line, with the reason, in the section the list is for
for w in daemonsets volumesnapshotlocations; do
    role "$w" "$TUI_DIR/role.yaml"
    tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_jobs.yaml" --rbac "$TUI_DIR/role.yaml" --quiet
    tui_start 200 50 --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait 'forbidden'
    tui_keys H
    tui_wait "^  unknown: cannot read $w: forbidden\$"
    tui_server_stop
    tui_sim_kill
    TUI_SIM_PORT=""
done
echo "PASS once_forbidden_each"
