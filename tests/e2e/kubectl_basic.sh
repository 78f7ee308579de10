#!/usr/bin/env bash
# kubectl_basic.sh: the real kubectl (version picked by /version: 1.30) against veltop-sim:
# get, get -o json, get -w with progress, get NAME -w, describe, create, patch, delete, logs,
# a DownloadRequest processed by the controller.
set -u
. "$(dirname "$0")/kubectl_lib.bash"

# --help documents every option; bad values are refused (status 2, or 1 when vsim refuses them)
help=$("$VELTOP_SIM" --help)
for opt in --listen --kubeconfig-out --scenario --speed --seed --tls --auth --kube-version \
    --faults close-watch= expire expire-every= error500= error429= stall= malformed-event forbid= \
    --resource-progress --no-resource-progress --log-format --bookmark-interval --passive --quiet; do
    printf '%s\n' "$help" | grep -q -- "$opt" || kt_fail "--help does not mention $opt"
done
echo "ok: --help"
for bad in "--speed 0" "--seed x" "--log-format xml" "--kube-version 1.x" "--faults error500=x" "--auth basic" "--nope"; do
    # shellcheck disable=SC2086
    timeout 10 "$VELTOP_SIM" --quiet $bad >/dev/null 2>&1 </dev/null
    rc=$?
    [ $rc -eq 2 ] || [ $rc -eq 1 ] || kt_fail "veltop-sim $bad: exit $rc"
done
echo "ok: bad options refused"

kt_start basic --scenario empty --passive --kube-version 1.30
kt_expect "version picked" 'Server Version: v1\.30' "$(kubectl version 2>&1)"

# discovery names the cluster's other resources too (sim/simkinds.c), with their real scope,
# short names and Kinds; every group answers, so api-resources succeeds
out=$(kubectl api-resources 2>&1) || kt_fail "api-resources failed: $out"
kt_expect "api-resources: deployments" '^deployments +deploy +apps/v1 +true +Deployment$' "$out"
kt_expect "api-resources: ingresses" '^ingresses +ing +networking\.k8s\.io/v1 +true +Ingress$' "$out"
kt_expect "api-resources: clusterroles" '^clusterroles +rbac\.authorization\.k8s\.io/v1 +false +ClusterRole$' "$out"
kt_expect "api-resources: crds" '^customresourcedefinitions +crd +apiextensions\.k8s\.io/v1 +false +CustomResourceDefinition$' "$out"
kt_expect "api-resources: configmaps" '^configmaps +cm +v1 +true +ConfigMap$' "$out"
kt_expect "api-resources: pods" '^pods +po +v1 +true +Pod$' "$out"
kt_expect "api-resources: backups" '^backups +velero\.io/v1 +true +Backup$' "$out"
[ "$(printf '%s\n' "$out" | grep -c '^pods ')" = 1 ] || kt_fail "pods listed twice"
kt_expect "api-versions" '^storage\.k8s\.io/v1$' "$(kubectl api-versions 2>&1)"
# the sim holds none of them: listing them finds none, as in a cluster without any
out=$(kubectl get deployments -A 2>&1) || kt_fail "get deployments -A: $out"
kt_expect "get deployments -A: none" '^No resources found$' "$out"
out=$(kubectl get clusterroles.rbac.authorization.k8s.io 2>&1) || kt_fail "get clusterroles: $out"
kt_expect "get clusterroles: none" '^No resources found' "$out"
kt_expect "get deploy -o json: an empty list" '"items": \[\]' "$(kubectl get deploy -n velero -o json 2>&1)"

kt_expect "no backups yet" 'No resources found in velero namespace' "$(kubectl -n velero get backups 2>&1)"
kt_backup_yaml nightly-1 >"$KT_DIR/b.yaml"
kt_expect "create" 'backup.velero.io/nightly-1 created' \
    "$(kubectl create --validate=false -f "$KT_DIR/b.yaml" 2>&1)"
kt_expect "create again conflicts" 'AlreadyExists.*backups.velero.io "nightly-1" already exists' \
    "$(kubectl create --validate=false -f "$KT_DIR/b.yaml" 2>&1)"
out=$(kubectl -n velero get backups 2>&1)
kt_expect "table header" '^NAME +PHASE +ITEMS +STARTED +ERRORS +WARNINGS +AGE' "$out"
kt_expect "table row" '^nightly-1 +New +0/0 ' "$out"
out=$(kubectl -n velero get backups -o json 2>&1)
kt_expect "json list" '"kind": "List"' "$out"
kt_expect "json item" '"name": "nightly-1"' "$out"
kt_expect "json rv" '"resourceVersion": "[0-9]+"' "$out"
kt_expect "all namespaces" '^velero +nightly-1 ' "$(kubectl get backups -A 2>&1)"
kt_expect "label selector" '^nightly-1 ' "$(kubectl -n velero get backups -l 'app in (kt)' 2>&1)"
kt_expect "label selector, no match" 'No resources found' "$(kubectl -n velero get backups -l 'app!=kt' 2>&1)"

# get -w --output-watch-events: progress patched in the background shows as MODIFIED rows
kubectl -n velero get backups -w --output-watch-events >"$KT_DIR/watch.out" 2>&1 &
wpid=$!
KT_PIDS="$KT_PIDS $wpid"
kubectl -n velero get backup nightly-1 -w >"$KT_DIR/watch1.out" 2>&1 &
w1pid=$!
KT_PIDS="$KT_PIDS $w1pid"
kt_wait 20 "the ADDED row" grep -Eq '^ADDED +nightly-1' "$KT_DIR/watch.out"
kt_wait 20 "the single-object watch" grep -Eq '^nightly-1 ' "$KT_DIR/watch1.out"
for i in 1 2 3; do
    kubectl -n velero patch backup nightly-1 --type=merge \
        -p "{\"status\":{\"phase\":\"InProgress\",\"progress\":{\"totalItems\":30,\"itemsBackedUp\":$((i * 10))}}}" >/dev/null ||
        kt_fail "patch $i"
done
kt_wait 20 "MODIFIED rows with progress" grep -Eq '^MODIFIED +nightly-1 +InProgress +30/30' "$KT_DIR/watch.out"
kt_expect "progress moves in the watch" 'MODIFIED +nightly-1 +InProgress +10/30' "$(cat "$KT_DIR/watch.out")"
kt_wait 20 "the single-object watch sees the change" grep -Eq 'InProgress +30/30' "$KT_DIR/watch1.out"
# kubectl suppresses the first (synthetic) event of get NAME -w: exactly one line shows New
kt_expect "get NAME -w prints the object once" '^1$' "$(grep -c ' New ' "$KT_DIR/watch1.out")"

# no status subresource: the status writes above moved generation too; the spec change moves it by 1
gen0=$(kubectl -n velero get backup nightly-1 -o jsonpath='{.metadata.generation}' 2>&1)
out=$(kubectl -n velero patch backup nightly-1 --type=merge -p '{"spec":{"ttl":"24h0m0s"}}' 2>&1)
kt_expect "merge patch" 'backup.velero.io/nightly-1 patched' "$out"
kt_expect "patched spec" '24h0m0s' "$(kubectl -n velero get backup nightly-1 -o jsonpath='{.spec.ttl}' 2>&1)"
kt_expect "generation bumped by the spec change" "^$((gen0 + 1))\$" \
    "$(kubectl -n velero get backup nightly-1 -o jsonpath='{.metadata.generation}' 2>&1)"
kt_expect "strategic merge is refused" 'unknown format|not supported' \
    "$(kubectl -n velero patch backup nightly-1 -p '{"spec":{"ttl":"1h"}}' 2>&1)"
# Velero's CRDs have no status subresource: status is written through the main resource
kt_expect "no status subresource" 'NotFound' \
    "$(kubectl -n velero patch backup nightly-1 --subresource=status --type=merge -p '{"status":{"phase":"Completed"}}' 2>&1)"
kt_expect "status patch through the main resource" 'backup.velero.io/nightly-1 patched' \
    "$(kubectl -n velero patch backup nightly-1 --type=merge -p '{"status":{"phase":"Completed"}}' 2>&1)"

out=$(kubectl -n velero describe backup nightly-1 2>&1)
kt_expect "describe name" '^Name: +nightly-1' "$out"
kt_expect "describe status" 'Phase: +Completed' "$out"
kt_expect "describe events" '^Events: +<none>' "$out"

pod=$(kubectl -n velero get pods -l deploy=velero -o jsonpath='{.items[0].metadata.name}' 2>&1)
kt_expect "velero pod" '^velero-' "$pod"
kubectl -n velero logs "$pod" >/dev/null 2>&1 || kt_fail "kubectl logs $pod"
echo "ok: logs"

kt_expect "delete" 'backup.velero.io "nightly-1" deleted' "$(kubectl -n velero delete backup nightly-1 2>&1)"
kt_expect "gone after delete" 'NotFound.*backups.velero.io "nightly-1" not found' \
    "$(kubectl -n velero get backup nightly-1 2>&1)"
kt_wait 20 "DELETED in the watch" grep -Eq '^DELETED +nightly-1' "$KT_DIR/watch.out"

# DownloadRequest for a finished backup of the demo scenario, processed by the controller
kt_start demo --scenario demo --speed 20
kt_expect "logs --tail=3" '^3$' "$(kubectl -n velero logs "$(kubectl -n velero get pods -l deploy=velero -o name)" --tail=3 | wc -l)"
kt_expect "demo log lines" 'level=info msg="Processing item" backup=velero/' \
    "$(kubectl -n velero logs "$(kubectl -n velero get pods -l deploy=velero -o name)" --tail=400)"
# the controller's own progress: a running backup's rows move in get -w
kubectl -n velero get backups -w --output-watch-events >"$KT_DIR/demo-watch.out" 2>&1 &
KT_PIDS="$KT_PIDS $!"
moving() { # two MODIFIED rows of one InProgress backup with different item counts
    awk '$1 == "MODIFIED" && $3 == "InProgress" { if (seen[$2] != "" && seen[$2] != $4) ok = 1; seen[$2] = $4 }
        END { exit !ok }' "$KT_DIR/demo-watch.out"
}
kt_wait 30 "MODIFIED rows of a backup in progress with moving items" moving
kt_wait 30 "a Completed backup" sh -c "kubectl -n velero get backups --no-headers | grep -q ' Completed '"
done_backup=$(kubectl -n velero get backups --no-headers | awk '$2 == "Completed" {print $1; exit}')
cat >"$KT_DIR/dr.yaml" <<YAML
apiVersion: velero.io/v1
kind: DownloadRequest
metadata:
  name: $done_backup-dr
  namespace: velero
spec:
  target: {kind: BackupLog, name: $done_backup}
YAML
kt_expect "create downloadrequest" 'created' "$(kubectl create --validate=false -f "$KT_DIR/dr.yaml" 2>&1)"
kt_wait 30 "the DownloadRequest Processed" sh -c \
    "kubectl -n velero get downloadrequest $done_backup-dr -o jsonpath='{.status.phase}' | grep -q Processed"
url=$(kubectl -n velero get downloadrequest "$done_backup-dr" -o jsonpath='{.status.downloadURL}')
kt_expect "download URL" "^$KT_URL/download/" "$url"
if command -v curl >/dev/null; then
    kt_expect "the log downloads and gunzips" "backup=velero/$done_backup" "$(curl -sf "$url" | gzip -dc)"
fi

# A Backup created with kubectl is run by the (non-passive) controller to a final phase.
kt_backup_yaml adhoc-1 >"$KT_DIR/adhoc.yaml"
kt_expect "create an ad-hoc backup" 'created' "$(kubectl create --validate=false -f "$KT_DIR/adhoc.yaml" 2>&1)"
kt_wait 60 "the ad-hoc backup Completed" sh -c \
    "kubectl -n velero get backup adhoc-1 -o jsonpath='{.status.phase}' | grep -qx Completed"
kt_expect "ad-hoc backup counted items" '^[1-9][0-9]*$' \
    "$(kubectl -n velero get backup adhoc-1 -o jsonpath='{.status.progress.itemsBackedUp}')"
echo "PASS"
