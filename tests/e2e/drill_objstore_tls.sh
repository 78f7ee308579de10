#!/usr/bin/env bash
# drill_objstore_tls.sh: veltop against `veltop-sim --tls --object-store-tls` (stock Velero, an
# object store with a self-signed CA given only in the BSL's spec.objectStorage.caCert, as a
# self-signed MinIO): a finished backup's stored log downloads and shows in the log pager, its
# resource list fills the detail screen. With the BSL's caCert replaced by another CA (and
# --cacert naming yet another one) or removed, a download fails with a message naming TLS
# verification of the object store, by its origin only, on the log screen and the detail screen;
# nothing else is lost (the list, the live run, the connection); with the caCert back, downloads
# work again without a restart. Once per install layout (velero install's labels, the Helm chart's).
source "$(dirname "$0")/tui_lib.bash"
source "$(dirname "$0")/layout_lib.bash"
layout_each

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --tls --object-store-tls --layout "$LAYOUT"
KC="$TUI_DIR/kubeconfig"
sed -n 's/^ *certificate-authority-data: //p' "$KC" | base64 -d >"$TUI_DIR/api-ca.pem"
BSL="$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backupstoragelocations/default"
bsl_patch() {
    curl -sSf --cacert "$TUI_DIR/api-ca.pem" -X PATCH -H 'Content-Type: application/merge-patch+json' \
        "$BSL" -d "$1" >/dev/null || tui_fail "PATCH bsl $1"
}
good_ca=$(curl -sSf --cacert "$TUI_DIR/api-ca.pem" "$BSL" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"]["objectStorage"]["caCert"])') ||
    tui_fail "GET bsl"
[ -n "$good_ca" ] || tui_fail "the BSL has no caCert"

# --cacert with the API server's CA: not the object store's, so only the BSL's caCert can help
tui_start 120 40 --kubeconfig "$KC" --cacert "$TUI_DIR/api-ca.pem"
tui_wait '^B backup-done ' 15
open_run() { # name: filter the list to it and wait for its row
    tui_keys Escape Escape ; tui_keys / ; tui_keys C-u ; tui_keys "$1" Enter
    tui_wait "^[BR] $1 " 5
}

# the right CA (the BSL's): the stored log and the resource list arrive
open_run backup-done
tui_keys l
tui_wait 'Log of backup backup-done +stored log, [0-9]+ lines' 20
tui_wait '^time="[^"]*" level=info msg="Setting up backup temp file" backup=velero/backup-done' 5
tui_keys G
tui_wait 'msg="Backed up a total of 55 items" backup=velero/backup-done' 5
tui_keys Escape
tui_wait '^B backup-done ' 5
tui_keys Enter
tui_wait 'Resources +8 of 8 types done +\(from the BackupResourceList artifact\)' 20
tui_wait '^ +pods +.* 20 of 20 ' 5

# another CA in the BSL: refused, with a message naming TLS verification and the store's origin
store=""
bsl_patch "{\"spec\":{\"objectStorage\":{\"caCert\":\"$(base64 -w0 <"$TUI_DIR/api-ca.pem")\"}}}"
open_run backup-partial
tui_keys l
tui_wait '^cannot fetch the log:' 20
msg=$(tui_screen | sed -n '/^cannot fetch the log:/,/^ *$/p' | sed -n '2,$p' | sed 's/^  //' | tr '\n' ' ')
re='^downloading BackupLog: TLS verification of the object store (https://127\.0\.0\.1:[0-9]+) failed: its certificate is not signed by a certificate authority trusted for it \(the system.s, the BackupStorageLocation.s caCert, --cacert\), or is not for that host name \(.*\) *$'
[[ "$msg" =~ $re ]] || tui_fail "wrong CA: message '$msg'"
store=${BASH_REMATCH[1]}
[ "${store##*:}" != "$TUI_SIM_PORT" ] || tui_fail "the message names the API server: $store"
tui_screen | grep -q '/download/' && tui_fail "the message shows the signed URL's path"
tui_keys Escape
tui_wait '^B backup-partial ' 5
tui_keys Enter
tui_wait '^Resources +downloading BackupResourceList: TLS verification of the object store https://127' 20
# nothing else lost: the connection is live, the other runs are listed, the live backup moves
tui_keys Escape Escape ; tui_keys / ; tui_keys C-u ; tui_keys Enter
tui_wait '^B backup-inprogress ' 5
tui_screen | grep -q '● live' || tui_fail "the connection is not live"
for r in backup-done backup-failed backup-partial restore-done restore-inprogress; do
    tui_screen | grep -Eq "^[BR] $r " || tui_fail "$r is no longer listed"
done
line=$(tui_line '^B backup-inprogress ')
tui_wait_change '^B backup-inprogress ' "$line" 20

# no caCert at all: the same message
bsl_patch '{"spec":{"objectStorage":{"caCert":null}}}'
open_run restore-done
tui_keys l
tui_wait '^cannot fetch the log:' 20
tui_wait '^  downloading RestoreLog: TLS verification of the object store https://127\.0\.0\.1:[0-9]+ failed:' 5

# the right caCert back: downloads work again, no restart
bsl_patch "{\"spec\":{\"objectStorage\":{\"caCert\":\"$good_ca\"}}}"
open_run backup-failed
tui_keys l
tui_wait 'Log of backup backup-failed +stored log, [0-9]+ lines' 20
tui_wait '^time="[^"]*" level=info msg="Setting up backup temp file" backup=velero/backup-failed' 5
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop exit status"
echo "ok"
