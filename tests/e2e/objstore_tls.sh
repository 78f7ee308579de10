#!/usr/bin/env bash
# objstore_tls.sh: `veltop-sim --object-store-tls` serves artifacts from an HTTPS origin of its
# own whose self-signed CA is the BSL's spec.objectStorage.caCert (base64), as a self-signed MinIO
# on premises: a DownloadRequest's URL points there; curl refuses it without that CA, and with it
# gets the gzipped log; the API server's own CA does not do; without the option there is no
# caCert and URLs stay on the API server.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --tls --object-store-tls
KC="$TUI_DIR/kubeconfig"
# the API server's CA, from the kubeconfig the sim wrote
sed -n 's/^ *certificate-authority-data: //p' "$KC" | base64 -d >"$TUI_DIR/api-ca.pem"
api() { curl -sS --cacert "$TUI_DIR/api-ca.pem" -H 'Content-Type: application/json' "$@"; }
B="$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero"

# the BSL carries the object store's CA, base64 of a PEM certificate
api "$B/backupstoragelocations/default" >"$TUI_DIR/bsl.json" || tui_fail "GET bsl"
python3 - "$TUI_DIR/bsl.json" "$TUI_DIR/store-ca.pem" <<'PY' || tui_fail "BSL caCert"
import base64, json, sys
os_ = json.load(open(sys.argv[1]))["spec"]["objectStorage"]
pem = base64.b64decode(os_["caCert"], validate=True).decode()
assert pem.startswith("-----BEGIN CERTIFICATE-----") and pem.rstrip().endswith("-----END CERTIFICATE-----"), pem
open(sys.argv[2], "w").write(pem)
PY
cmp -s "$TUI_DIR/store-ca.pem" "$TUI_DIR/api-ca.pem" && tui_fail "the object store shares the API server's CA"

# a DownloadRequest for a finished backup's log, polled until processed
api -X POST "$B/downloadrequests" -d '{"apiVersion":"velero.io/v1","kind":"DownloadRequest",
  "metadata":{"name":"tls-log"},"spec":{"target":{"kind":"BackupLog","name":"backup-done"}}}' \
    >/dev/null || tui_fail "create DownloadRequest"
url=""
for i in $(seq 1 100); do
    url=$(api "$B/downloadrequests/tls-log" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("status",{}).get("downloadURL",""))')
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || tui_fail "the DownloadRequest was not processed"
api_port=${TUI_SIM_URL##*:}
[[ "$url" =~ ^https://127\.0\.0\.1:([0-9]+)/download/[0-9a-f]+$ ]] || tui_fail "downloadURL $url"
[ "${BASH_REMATCH[1]}" != "$api_port" ] || tui_fail "the object store is the API server ($url)"

# without the CA: refused (curl 60: peer certificate cannot be authenticated); with the API
# server's CA: refused too; with the BSL's caCert: the gzipped log
curl -sS -o /dev/null "$url" 2>"$TUI_DIR/err"; rc=$?
[ "$rc" = 60 ] || tui_fail "no CA: curl exit $rc, $(cat "$TUI_DIR/err")"
curl -sS -o /dev/null --cacert "$TUI_DIR/api-ca.pem" "$url" 2>/dev/null; rc=$?
[ "$rc" = 60 ] || tui_fail "the API server's CA: curl exit $rc"
curl -sS -f --cacert "$TUI_DIR/store-ca.pem" -o "$TUI_DIR/log.gz" "$url" || tui_fail "with the BSL's caCert"
gunzip -c "$TUI_DIR/log.gz" | grep -q 'msg="Backed up a total of 55 items" backup=velero/backup-done' ||
    tui_fail "the downloaded log"
# no credentials needed there, and nothing but downloads
code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$TUI_DIR/store-ca.pem" "${url%/download/*}/apis")
[ "$code" = 404 ] || tui_fail "the object store serves /apis: $code"
echo "ok: object store TLS"

# without the option: no caCert, URLs on the API server
tui_sim_kill
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
curl -sS "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backupstoragelocations/default" |
    python3 -c 'import json,sys; o=json.load(sys.stdin)["spec"]["objectStorage"]; assert "caCert" not in o, o' ||
    tui_fail "caCert without --object-store-tls"
echo "objstore_tls: ok"
