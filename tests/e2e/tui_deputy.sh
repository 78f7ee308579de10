#!/usr/bin/env bash
# tui_deputy.sh: no leaked secret, no confused deputy. A downloadURL that is not an absolute
# http(s) URL ("/api/v1/namespaces/kube-system/secrets") is refused, not fetched from the API
# server with the user's credentials; userinfo in a downloadURL or in the kubeconfig's server URL
# is shown as "xxxxx@" on the log screen, in the header, in --once and on stderr.
# DownloadRequests are answered by tests/e2e/dlserve.py in a namespace the sim's controller does
# not watch.
. "$(dirname "$0")/tui_lib.bash" || exit 1

NS=other
tui_sim_start --scenario empty --quiet
python3 - "$TUI_SIM_URL" "$NS" <<'PY' || tui_fail "could not create the backup"
import json, sys, urllib.request
body = {"apiVersion": "velero.io/v1", "kind": "Backup",
        "metadata": {"name": "b1", "namespace": sys.argv[2]}, "spec": {},
        "status": {"phase": "Completed", "startTimestamp": "2026-01-01T00:00:00Z",
                   "completionTimestamp": "2026-01-01T00:01:00Z",
                   "resourceProgress": {"pods": {"processed": 3, "total": 3}}}}
req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/%s/backups" % sys.argv[2],
                             data=json.dumps(body).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY
DL_PID=""
trap '[ -n "$DL_PID" ] && kill $DL_PID 2>/dev/null; tui_cleanup' EXIT
dlserve() { # mode
    [ -n "$DL_PID" ] && kill "$DL_PID" 2>/dev/null && wait "$DL_PID" 2>/dev/null
    rm -f "$TUI_DIR/dl.port"
    python3 "$(dirname "$0")/dlserve.py" "$TUI_SIM_URL" "$NS" "$1" "$TUI_DIR/dl.port" 2>"$TUI_DIR/dl.err" &
    DL_PID=$!
    for _ in $(seq 1 100); do [ -f "$TUI_DIR/dl.port" ] && break; sleep 0.05; done
    [ -f "$TUI_DIR/dl.port" ] || tui_fail "dlserve.py did not start: $(cat "$TUI_DIR/dl.err")"
}
stats() {
    curl -s "$TUI_SIM_URL/debug/stats"
}

# a relative downloadURL: refused, and the sim never sees a request for the secrets
dlserve relative
tui_start 140 30 --kubeconfig "$TUI_DIR/kubeconfig" -n "$NS"
tui_wait 'B b1 +Completed'
tui_keys l
tui_wait 'the download URL "/api/v1/namespaces/kube-system/secrets" is not an absolute' 30
tui_wait 'http\(s\) URL: not fetched'
tui_keys q q
tui_wait_exit >/dev/null
tmux -L "$TUI_SOCK" kill-server 2>/dev/null

# userinfo in a downloadURL: redacted in the message on the log screen
dlserve userinfo
TUI_SOCK="$TUI_SOCK-2"
tui_start 140 30 --kubeconfig "$TUI_DIR/kubeconfig" -n "$NS"
tui_wait 'B b1 +Completed'
tui_keys l
tui_wait 'cannot connect to http://xxxxx@127\.0\.0\.1:1/log\.gz' 30
tui_screen | grep -q 'S3cretPass' && tui_fail "the downloadURL's password is on screen"
tui_keys q q
tui_wait_exit >/dev/null
tmux -L "$TUI_SOCK" kill-server 2>/dev/null

# userinfo in the kubeconfig's server: redacted in the header, --once and on stderr
sed "s|server: http://|server: http://admin:S3cretPass@|" "$TUI_DIR/kubeconfig" >"$TUI_DIR/kc-userinfo"
grep -q 'admin:S3cretPass@' "$TUI_DIR/kc-userinfo" || tui_fail "no server line to rewrite"
"$VELTOP" --kubeconfig "$TUI_DIR/kc-userinfo" -n "$NS" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" \
    || tui_fail "--once --json: $(cat "$TUI_DIR/once.err")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["server"].startswith("http://xxxxx@127.0.0.1:"), d["server"]
' "$TUI_DIR/once.json" || tui_fail "--once --json: $(cat "$TUI_DIR/once.json")"
sed "s|server: http://127.0.0.1:[0-9]*|server: http://admin:S3cretPass@127.0.0.1:1|" "$TUI_DIR/kubeconfig" >"$TUI_DIR/kc-down"
"$VELTOP" --kubeconfig "$TUI_DIR/kc-down" --once >"$TUI_DIR/down.out" 2>"$TUI_DIR/down.err" && tui_fail "--once reached a closed port"
grep -q 'http://xxxxx@127\.0\.0\.1:1' "$TUI_DIR/down.err" || tui_fail "stderr: $(cat "$TUI_DIR/down.err")"
cat "$TUI_DIR/down.out" "$TUI_DIR/down.err" "$TUI_DIR/once.json" | grep -q S3cretPass && tui_fail "the password reached the output"
TUI_SOCK="$TUI_SOCK-3"
tui_start 140 30 --kubeconfig "$TUI_DIR/kc-userinfo" -n "$NS"
tui_wait 'http://xxxxx@127\.0\.0\.1:'
tui_wait 'B b1 +Completed'
tui_screen | grep -q 'S3cretPass' && tui_fail "the server's password is on screen"
tui_keys q
tui_wait_exit >/dev/null
echo "tui_deputy: ok"
