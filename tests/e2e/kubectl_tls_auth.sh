#!/usr/bin/env bash
# kubectl_tls_auth.sh: kubectl over TLS with the sim's generated CA, with bearer-token and with
# client-certificate auth; 401 without valid credentials; 403 for a forbidden resource.
set -u
. "$(dirname "$0")/kubectl_lib.bash"

kt_start token --scenario empty --passive --tls --auth token --faults forbid=restores
kt_expect "https URL" '^https://127\.0\.0\.1:[0-9]+$' "$KT_URL"
kt_expect "kubeconfig has CA data" 'certificate-authority-data: ' "$(cat "$KUBECONFIG")"
kt_expect "kubeconfig has the token" 'token: [0-9a-f]{48}' "$(cat "$KUBECONFIG")"
kt_expect "get with token" 'No resources found in velero namespace' "$(kubectl -n velero get backups 2>&1)"
kt_expect "pods with token" '^velero-[a-z0-9-]+ +1/1 +Running' "$(kubectl -n velero get pods 2>&1)"
kt_expect "forbidden resource" \
    'Error from server \(Forbidden\): restores.velero.io is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "restores" in API group "velero.io" in the namespace "velero"' \
    "$(kubectl -n velero get restores 2>&1)"
sed 's/token: .*/token: wrong-token/' "$KUBECONFIG" >"$KT_DIR/bad.kubeconfig"
kt_expect "wrong token: 401" 'You must be logged in to the server' \
    "$(KUBECONFIG=$KT_DIR/bad.kubeconfig KUBECACHEDIR=$KT_DIR/bad.cache kubectl -n velero get backups 2>&1)"
if command -v curl >/dev/null; then
    kt_expect "401 Status shape" '"reason":"Unauthorized","code":401' "$(curl -sk "$KT_URL/apis/velero.io/v1/namespaces/velero/backups")"
    kt_expect "forbid counted" '"forbid":[1-9]' "$(curl -sk "$KT_URL/debug/stats")"
fi

kt_start cert --scenario empty --passive --tls --auth client-cert --kube-version 1.31
kt_expect "kubeconfig has a client cert" 'client-certificate-data: ' "$(cat "$KUBECONFIG")"
kt_backup_yaml b1 >"$KT_DIR/b.yaml"
kt_expect "create with client cert" 'created' "$(kubectl create --validate=false -f "$KT_DIR/b.yaml" 2>&1)"
kt_expect "get with client cert" '^b1 +New' "$(kubectl -n velero get backups 2>&1)"
# a watch over TLS (kubectl speaks HTTP/2 if offered; the sim answers HTTP/1.1 chunked)
kubectl -n velero get backups -w --output-watch-events >"$KT_DIR/tls-watch.out" 2>&1 &
KT_PIDS="$KT_PIDS $!"
kt_wait 20 "ADDED over TLS" grep -Eq '^ADDED +b1 ' "$KT_DIR/tls-watch.out"
kt_expect "patch with client cert" 'patched' "$(kubectl -n velero patch backup b1 --type=merge \
    -p '{"status":{"phase":"InProgress","progress":{"totalItems":8,"itemsBackedUp":5}}}' 2>&1)"
kt_wait 20 "MODIFIED over TLS" grep -Eq '^MODIFIED +b1 +InProgress +5/8' "$KT_DIR/tls-watch.out"
kt_expect "delete with client cert" 'deleted' "$(kubectl -n velero delete backup b1 2>&1)"
# no client certificate (a token instead, which this server does not accept)
grep -v 'client-' "$KUBECONFIG" | sed 's/^  user:$/  user: {token: not-a-cert}/' >"$KT_DIR/nocert.kubeconfig"
kt_expect "no client cert: 401" 'You must be logged in to the server' \
    "$(KUBECONFIG=$KT_DIR/nocert.kubeconfig KUBECACHEDIR=$KT_DIR/nocert.cache kubectl -n velero get backups 2>&1 </dev/null)"
echo "PASS"
