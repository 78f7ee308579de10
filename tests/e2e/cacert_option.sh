#!/usr/bin/env bash
# cacert_option.sh: `--cacert FILE` (PEM certificates the object store is trusted with beside the
# system roots and the BSL's caCert): a missing file or one without a PEM certificate is a usage
# error (exit 2, one line naming the file); a PEM file is taken and stored artifacts still arrive
# (--once --details fills finished runs' resources from their BackupResourceList downloads).
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
KC="$TUI_DIR/kubeconfig"

"$VELTOP" --kubeconfig "$KC" --cacert "$TUI_DIR/missing.pem" --once >/dev/null 2>"$TUI_DIR/err"
rc=$?
[ "$rc" = 2 ] || tui_fail "missing --cacert file: exit $rc, want 2"
[ "$(cat "$TUI_DIR/err")" = "veltop: --cacert $TUI_DIR/missing.pem: No such file or directory" ] ||
    tui_fail "missing --cacert file: '$(cat "$TUI_DIR/err")'"

echo "not a certificate" >"$TUI_DIR/bad.pem"
"$VELTOP" --kubeconfig "$KC" --cacert "$TUI_DIR/bad.pem" --once >/dev/null 2>"$TUI_DIR/err"
rc=$?
[ "$rc" = 2 ] || tui_fail "non-PEM --cacert: exit $rc, want 2"
[ "$(cat "$TUI_DIR/err")" = "veltop: --cacert $TUI_DIR/bad.pem: no PEM certificate in it" ] ||
    tui_fail "non-PEM --cacert: '$(cat "$TUI_DIR/err")'"

printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' >"$TUI_DIR/ok.pem"
"$VELTOP" --kubeconfig "$KC" --cacert "$TUI_DIR/ok.pem" --once --details --json >"$TUI_DIR/once.json" \
    2>"$TUI_DIR/err" || tui_fail "--cacert with a PEM file: $(cat "$TUI_DIR/err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json resources differ with --cacert"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
got = {x["resource"]: x["total"] for x in runs["backup-done"]["resources"]}
assert got == {"namespaces": 2, "pods": 20, "deployments.apps": 5, "services": 6,
               "configmaps": 10, "secrets": 8, "persistentvolumeclaims": 2,
               "persistentvolumes": 2}, got
PY
echo "ok"
