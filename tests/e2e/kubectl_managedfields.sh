#!/usr/bin/env bash
# kubectl_managedfields.sh: metadata.managedFields as the real kubectl (and python3-kubernetes)
# sees them on veltop-sim, as on kube-apiserver: hidden by `get -o yaml` unless
# --show-managed-fields; the simulated Velero's writers ("velero" created it, "velero-server"
# writes a run's status, "node-agent-server" a volume's); a run idle for 6 minutes at the start
# (idle.yaml) carries a status time 6 minutes old; kubectl's own writes carry its field managers
# (kubectl-create, kubectl-patch, kubectl-label), a no-op patch moves no time.
set -u
. "$(dirname "$0")/kubectl_lib.bash"

now_s() { date -u +%s; }
to_s() { date -u -d "$1" +%s; }

kt_start idle --scenario "$FIXTURES_DIR/scenarios/idle.yaml"
started=$(now_s)
kt_wait 15 "backup idle-6m" kubectl -n velero get backup idle-6m

hidden=$(kubectl -n velero get backup idle-6m -o yaml 2>&1) || kt_fail "get -o yaml: $hidden"
if printf '%s\n' "$hidden" | grep -q 'managedFields'; then kt_fail "get -o yaml shows managedFields"; fi
echo "ok: get -o yaml hides managedFields"

yaml=$(kubectl -n velero get backup idle-6m -o yaml --show-managed-fields 2>&1) || kt_fail "$yaml"
kt_expect "managedFields shown" '^  managedFields:$' "$yaml"
kt_expect "the CLI's entry" '^    manager: velero$' "$yaml"
kt_expect "the server's entry" '^    manager: velero-server$' "$yaml"
kt_expect "Update operation" '^    operation: Update$' "$yaml"
kt_expect "FieldsV1" '^    fieldsType: FieldsV1$' "$yaml"
kt_expect "the server owns status.progress" '^        f:progress:$' "$yaml"

# the server's entry: 6 minutes before the sim's start (give or take the start-up)
t=$(kubectl -n velero get backup idle-6m -o jsonpath='{.metadata.managedFields[?(@.manager=="velero-server")].time}')
[ -n "$t" ] || kt_fail "no velero-server time"
age=$((started - $(to_s "$t")))
[ "$age" -ge 355 ] && [ "$age" -le 375 ] || kt_fail "idle-6m status written ${age}s before the start (want ~360..)"
echo "ok: idle-6m last status write ${age}s before the start"
vt=$(kubectl -n velero get podvolumebackups -o jsonpath='{.items[0].metadata.managedFields[?(@.manager=="node-agent-server")].time}')
[ -n "$vt" ] || kt_fail "no node-agent-server entry on the PodVolumeBackup"
age=$((started - $(to_s "$vt")))
[ "$age" -ge 355 ] && [ "$age" -le 365 ] || kt_fail "idle-6m's volume written ${age}s before the start"
echo "ok: its PodVolumeBackup's node-agent-server write ${age}s before the start"
# the moving run's server entry moves with it
t1=$(kubectl -n velero get backup moving -o jsonpath='{.metadata.managedFields[?(@.manager=="velero-server")].time}')
kt_wait 20 "moving's status time to move" bash -c "[ \"\$(kubectl -n velero get backup moving -o jsonpath='{.metadata.managedFields[?(@.manager==\"velero-server\")].time}')\" != '$t1' ]"
echo "ok: a moving run's velero-server time moves"

# kubectl's own writes, on a sim whose controller leaves them alone
kt_start passive --scenario empty --passive
cat >"$KT_DIR/b.yaml" <<'EOF'
apiVersion: velero.io/v1
kind: Backup
metadata: {name: by-kubectl, namespace: velero}
spec: {ttl: 720h0m0s, includedNamespaces: [shop]}
EOF
kubectl create --validate=false -f "$KT_DIR/b.yaml" >/dev/null || kt_fail "create"
mf() { kubectl -n velero get backup by-kubectl -o jsonpath="{.metadata.managedFields[?(@.manager==\"$1\")].$2}"; }
[ "$(mf kubectl-create operation)" = Update ] || kt_fail "no kubectl-create entry: $(kubectl -n velero get backup by-kubectl -o yaml --show-managed-fields)"
kubectl -n velero patch backup by-kubectl --type merge -p '{"status":{"phase":"InProgress"}}' >/dev/null || kt_fail "patch"
pt=$(mf kubectl-patch time)
[ -n "$pt" ] || kt_fail "no kubectl-patch entry"
kt_expect "kubectl-patch owns status.phase" 'f:phase' "$(mf kubectl-patch fieldsV1)"
kubectl -n velero label backup by-kubectl team=shop >/dev/null || kt_fail "label"
kt_expect "kubectl-label owns its label" 'f:team' "$(mf kubectl-label fieldsV1)"
# the same patch again changes nothing: no new time, even a second later
# (times are whole seconds, and the sim's clock starts on a whole second, so it runs up to 1 s
# behind the wall clock: wait until the wall clock is 2 s past the patch's second)
pts=$(to_s "$pt")
kt_wait 10 "the next second" bash -c "[ \$(date -u +%s) -gt $((pts + 1)) ]"
kubectl -n velero patch backup by-kubectl --type merge -p '{"status":{"phase":"InProgress"}}' >/dev/null
[ "$(mf kubectl-patch time)" = "$pt" ] || kt_fail "a no-op patch moved the time"
kubectl -n velero patch backup by-kubectl --type merge -p '{"status":{"phase":"Completed"}}' >/dev/null
[ "$(mf kubectl-patch time)" != "$pt" ] || kt_fail "a patch that changed status did not move the time"
echo "ok: kubectl-create, kubectl-patch, kubectl-label; a no-op patch moves no time"

# python3-kubernetes: its User-Agent names the manager
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import kubernetes' 2>/dev/null; then
    "$PY" - "$KUBECONFIG" <<'PY' || kt_fail "python3-kubernetes"
import sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
co = client.CustomObjectsApi(client.ApiClient())
b = co.patch_namespaced_custom_object("velero.io", "v1", "velero", "backups", "by-kubectl",
                                      {"status": {"warnings": 1}})
mf = {e["manager"]: e for e in b["metadata"]["managedFields"]}
assert "OpenAPI-Generator" in mf, list(mf)
assert "f:warnings" in mf["OpenAPI-Generator"]["fieldsV1"]["f:status"], mf
assert set(mf) >= {"kubectl-create", "kubectl-patch", "kubectl-label"}, list(mf)
print("ok: python3-kubernetes sees managedFields; its writes are OpenAPI-Generator's")
PY
else
    echo "SKIP (part): python3-kubernetes is not installed"
fi
echo "PASS"
