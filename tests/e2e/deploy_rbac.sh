#!/usr/bin/env bash
# deploy_rbac.sh: the exporter with exactly deploy/'s Role. veltop-sim enforces the Role of
# `kubectl kustomize deploy/` (--rbac: 403 for anything it does not allow) and `veltop --serve`
# runs against it: every metric family it serves for the healthy demo cluster is there (runs in
# flight and their bytes, the last runs, schedules, storage locations, node-agents and the
# Velero version from the pods), a DownloadRequest was made (a restore's totals), and not one
# request was refused (the sim's rbacDenied is 0, veltop says nothing of "forbidden", `veltop
# --once` finds nothing missing). As the Deployment runs it: no kubeconfig, the in-cluster
# configuration (a ServiceAccount folder with the token and CA of a sim serving TLS and asking
# for that token, in a mount namespace of its own: root only), every family again and no 403.
# The same Role without pods: the sim refuses requests, `veltop --once` names them ("pods
# forbidden", exit 5) and --serve leaves out the figures that come from the pods, and only those.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v kubectl >/dev/null || {
    echo "SKIP: kubectl not installed: it builds deploy/ (kubectl kustomize)"
    exit 0
}
for t in curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done
: "${SRC_DIR:?set SRC_DIR}"
D=$TUI_DIR
VELTOP_PID=""
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; tui_cleanup' EXIT

kubectl kustomize "$SRC_DIR/deploy" >"$D/deploy.yaml" || tui_fail "kubectl kustomize deploy/"
# the whole build: the sim takes its Role (in namespace velero) and skips the other objects
tui_sim_start --rbac "$D/deploy.yaml" --quiet
export KUBECONFIG="$D/kubeconfig"

stats() { curl -skf --max-time 5 "$TUI_SIM_URL/debug/stats" || tui_fail "GET /debug/stats"; }
stat_of() { stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# the families --serve gives for the demo cluster when it sees everything
ALL="veltop_cluster_clock_offset_seconds veltop_cluster_data_age_seconds
veltop_cluster_node_agents veltop_cluster_node_agents_ready veltop_cluster_reachable
veltop_cluster_runs_in_flight veltop_cluster_storage_locations
veltop_cluster_storage_locations_available veltop_cluster_velero_info veltop_contexts_not_watched
veltop_last_run_done_bytes veltop_last_run_end_timestamp_seconds veltop_last_run_info
veltop_last_run_items_done veltop_open_files_limit veltop_run_bytes_per_second
veltop_run_done_bytes veltop_run_eta_lower_bound veltop_run_eta_seconds
veltop_run_eta_timestamp_seconds veltop_run_expected_bytes veltop_run_info veltop_run_items_done
veltop_run_items_expected veltop_run_items_expected_estimated veltop_run_items_per_second
veltop_run_last_progress_timestamp_seconds veltop_run_stalled veltop_run_stalled_seconds
veltop_run_start_timestamp_seconds veltop_run_waiting_info veltop_schedule_interval_seconds
veltop_schedule_last_success_timestamp_seconds veltop_schedule_next_run_timestamp_seconds
veltop_schedule_overdue veltop_schedule_paused veltop_build_info
veltop_schedule_restorable_age_seconds veltop_schedule_restorable_stale
veltop_schedule_restorable_location_available veltop_schedule_last_restore_timestamp_seconds
veltop_last_run_duration_seconds veltop_last_run_errors veltop_last_run_warnings
veltop_volume_done_bytes veltop_volume_expected_bytes veltop_volume_bytes_per_second"
FROM_PODS="veltop_cluster_node_agents veltop_cluster_node_agents_ready veltop_cluster_velero_info"

serve_start() {
    VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$VELTOP" --serve "127.0.0.1:$VPORT" >"$D/veltop.out" 2>"$D/veltop.err" &
    VELTOP_PID=$!
}
serve_stop() {
    kill "$VELTOP_PID"
    wait "$VELTOP_PID" || tui_fail "veltop --serve did not stop with status 0 on SIGTERM"
    VELTOP_PID=""
}
# The families scraped so far (one a line) gathered in $D/seen; 0 once every family of $1 is
# seen, with at least one DownloadRequest made when $2 is "dr".
seen_all() {
    curl -sf --max-time 2 "http://127.0.0.1:$VPORT/metrics" >"$D/m.txt" || return 1
    sed -n 's/^\(veltop_[a-z_]*\)[{ ].*/\1/p' "$D/m.txt" | sort -u - "$D/seen" >"$D/seen.new"
    mv "$D/seen.new" "$D/seen"
    for f in $1; do grep -qx "$f" "$D/seen" || return 1; done
    [ "${2:-}" != dr ] || [ "$(stat_of downloadRequestsCreated)" -ge 1 ]
}
await_families() { # families [dr]
    : >"$D/seen"
    local end=$((SECONDS + 60))
    until seen_all "$1" "${2:-}"; do
        kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
        [ "$SECONDS" -le "$end" ] || {
            for f in $1; do grep -qx "$f" "$D/seen" || echo "missing: $f" >&2; done
            stats >&2
            tui_fail "not every family served within 60 s"
        }
        sleep 0.2
    done
}

# ---- exactly deploy/'s Role: everything, no 403 ----
serve_start
await_families "$ALL" dr
denied=$(stat_of rbacDenied)
[ "$denied" = 0 ] || tui_fail "the sim refused $denied requests of veltop --serve under deploy/'s Role"
grep -i forbidden "$D/veltop.err" && tui_fail "veltop --serve says forbidden"
grep -q '^veltop_cluster_incomplete_info' "$D/seen" && tui_fail "--serve calls something incomplete"
rc=0
"$VELTOP" --once --json >"$D/once.json" 2>"$D/once.err" || rc=$?
[ "$rc" = 0 ] || { cat "$D/once.err" >&2; tui_fail "veltop --once exited $rc under deploy/'s Role"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(1 if d.get("incomplete") else 0)' \
    "$D/once.json" || tui_fail "veltop --once finds something missing: $(cat "$D/once.err")"
denied=$(stat_of rbacDenied)
[ "$denied" = 0 ] || tui_fail "the sim refused $denied requests under deploy/'s Role"
serve_stop
echo "deploy/'s Role: every family, no 403: ok"

# ---- as the Deployment runs it: in-cluster configuration, TLS, the ServiceAccount's token ----
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
    tui_sim_kill
    TUI_SIM_PORT=""
    tui_sim_start --tls --auth token --rbac "$D/deploy.yaml" --quiet
    mkdir -p "$D/sa"
    python3 - "$D/kubeconfig" "$D/sa" <<'PY' || tui_fail "a ServiceAccount folder from the kubeconfig"
import base64, sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
open(sys.argv[2] + "/ca.crt", "wb").write(base64.b64decode(k["clusters"][0]["cluster"]["certificate-authority-data"]))
open(sys.argv[2] + "/token", "w").write(k["users"][0]["user"]["token"] + "\n")
open(sys.argv[2] + "/namespace", "w").write("velero\n")
PY
    VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # a tmpfs over /run in a mount namespace of veltop's own: the host's /run is left alone; exec
    # keeps the pid, so SIGTERM reaches veltop. No HOME, no KUBECONFIG: as in the container.
    env -i PATH="$PATH" KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$TUI_SIM_PORT" \
        VELERO_NAMESPACE=velero SA="$D/sa" VELTOP="$VELTOP" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
        unshare -m sh -c 'mount -t tmpfs tmpfs /run &&
            mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
            mount --bind "$SA" /run/secrets/kubernetes.io/serviceaccount &&
            exec "$VELTOP" --serve "127.0.0.1:'"$VPORT"'"' >"$D/veltop.out" 2>"$D/veltop.err" &
    VELTOP_PID=$!
    await_families "$ALL"
    denied=$(stat_of rbacDenied)
    [ "$denied" = 0 ] || tui_fail "the sim refused $denied requests of veltop in-cluster"
    # in-cluster there is no context: its label is empty (Prometheus drops it)
    grep -qx 'veltop_cluster_reachable{context="",namespace="velero"} 1' "$D/m.txt" ||
        tui_fail "in-cluster: not reachable: $(grep reachable "$D/m.txt")"
    serve_stop
    echo "in-cluster, deploy/'s Role: every family, no 403: ok"
else
    echo "in-cluster part not run: it needs root and unshare (a mount namespace)"
fi

# ---- the same Role without pods: 403s, named ----
python3 - "$D/deploy.yaml" "$D/narrow.yaml" <<'PY' || tui_fail "narrowing the Role"
import sys, yaml
role = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Role"][0]
n = len(role["rules"])
role["rules"] = [r for r in role["rules"] if r["resources"] != ["pods"]]
assert len(role["rules"]) == n - 1
yaml.safe_dump(role, open(sys.argv[2], "w"))
PY
tui_sim_kill
tui_sim_start --rbac "$D/narrow.yaml" --quiet
rc=0
"$VELTOP" --once --json >"$D/once.json" 2>"$D/once.err" || rc=$?
[ "$rc" = 5 ] || { cat "$D/once.err" >&2; tui_fail "veltop --once exited $rc, not 5 (incomplete)"; }
grep -qx 'veltop: incomplete: not visible: pods forbidden' "$D/once.err" ||
    { cat "$D/once.err" >&2; tui_fail "veltop --once does not name the forbidden pods"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("incomplete") == ["pods forbidden"] else 1)' \
    "$D/once.json" || tui_fail "--once --json's incomplete is not [\"pods forbidden\"]"
[ "$(stat_of rbacDenied)" -ge 1 ] || tui_fail "the sim refused nothing without pods"

serve_start
WITHOUT_PODS=$(for f in $ALL; do case " $FROM_PODS " in *" $f "*) ;; *) echo "$f" ;; esac; done)
await_families "$WITHOUT_PODS veltop_cluster_incomplete_info"
grep -q '^veltop_cluster_incomplete_info{.*,what="pods forbidden"} 1$' "$D/m.txt" ||
    tui_fail "--serve does not say, as --once --json does, that pods are forbidden"
for f in $FROM_PODS; do
    grep -qx "$f" "$D/seen" && tui_fail "$f served while pods are forbidden"
done
serve_stop
echo "without pods: 403s named, the pods' figures absent: ok"
