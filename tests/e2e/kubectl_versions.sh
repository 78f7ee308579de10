#!/usr/bin/env bash
# kubectl_versions.sh: the oldest and newest bundled kubectl (chosen by /version's minor: 1.27
# and 1.33) get, watch, create, merge-patch and delete against the sim.
set -u
. "$(dirname "$0")/kubectl_lib.bash"

for minor in 27 33; do
    kt_start "v$minor" --scenario empty --passive --kube-version "1.$minor"
    kt_expect "1.$minor picked" "Server Version: .*v1\\.$minor\\." "$(kubectl version 2>&1)"
    kt_expect "1.$minor client" "Client Version: .*v1\\.$minor\\." "$(kubectl version 2>&1)"
    kt_backup_yaml "b$minor" >"$KT_DIR/b$minor.yaml"
    kt_expect "1.$minor create" 'created' "$(kubectl create --validate=false -f "$KT_DIR/b$minor.yaml" 2>&1)"
    kt_expect "1.$minor table" "^b$minor +New +0/0" "$(kubectl -n velero get backups 2>&1)"
    kt_expect "1.$minor json" "\"name\": \"b$minor\"" "$(kubectl -n velero get backups -o json 2>&1)"
    kubectl -n velero get backups -w --output-watch-events >"$KT_DIR/w$minor.out" 2>&1 &
    KT_PIDS="$KT_PIDS $!"
    kt_wait 20 "1.$minor ADDED" grep -Eq "^ADDED +b$minor" "$KT_DIR/w$minor.out"
    kt_expect "1.$minor patch" 'patched' "$(kubectl -n velero patch backup "b$minor" --type=merge \
        -p '{"status":{"phase":"InProgress","progress":{"totalItems":4,"itemsBackedUp":2}}}' 2>&1)"
    kt_wait 20 "1.$minor MODIFIED" grep -Eq "^MODIFIED +b$minor +InProgress +2/4" "$KT_DIR/w$minor.out"
    kt_expect "1.$minor describe" 'Items Backed Up: +2' "$(kubectl -n velero describe backup "b$minor" 2>&1)"
    kt_expect "1.$minor delete" 'deleted' "$(kubectl -n velero delete backup "b$minor" 2>&1)"
    kt_wait 20 "1.$minor DELETED" grep -Eq "^DELETED +b$minor" "$KT_DIR/w$minor.out"
done
echo "PASS"
