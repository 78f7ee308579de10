#!/usr/bin/env bash
# once_stderr.sh: what veltop writes on stderr goes through the screen's sanitiser: an API Status
# message with a C1 CSI, U+202E, U+2028 and CR/LF, a kubeconfig server URL with an OSC title
# sequence, and an exec plugin's apiVersion come out as one line of visible placeholders, with no
# control byte, no C1, no bidi override and no line separator.
set -u
: "${VELTOP:?}" "${FIXTURES_DIR:?}"
DIR=$(mktemp -d)
SRV_PID=""
trap '[ -n "$SRV_PID" ] && kill $SRV_PID 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# bytes that must never reach the terminal: C0 controls but LF, DEL, C1 (as UTF-8), RLO, LSEP
check_clean() { # file
    python3 - "$1" <<'PY' || fail "unsafe bytes on stderr: $(cat -v "$1")"
import sys
raw = open(sys.argv[1], "rb").read()
assert raw.endswith(b"\n") and raw.count(b"\n") == 1, raw
text = raw.decode("utf-8")
for ch in text[:-1]:
    assert ord(ch) >= 0x20 and ord(ch) != 0x7f and not 0x80 <= ord(ch) <= 0x9f, repr(ch)
    assert ch not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029", repr(ch)
PY
}

# a server answering every request with a hostile 403 Status
cat >"$DIR/srv.py" <<'PY'
import http.server, json, sys
msg = "backups.velero.io is forbidden: \u009b31mred \u202eevil \u2028next\r\nveltop: fake"
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                           "message": msg, "reason": "Forbidden", "code": 403}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$DIR/srv.py" "$DIR/port" &
SRV_PID=$!
for _ in $(seq 1 100); do [ -f "$DIR/port" ] && break; sleep 0.05; done
[ -f "$DIR/port" ] || fail "the test server did not start"
PORT=$(cat "$DIR/port")

kubeconfig() { # server user-yaml
    cat >"$DIR/config" <<EOF2
apiVersion: v1
kind: Config
current-context: x
clusters: [{name: c, cluster: {server: "$1"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users: [{name: u, user: $2}]
EOF2
}

kubeconfig "http://127.0.0.1:$PORT" "{}"
LC_ALL=C.UTF-8 "$VELTOP" --kubeconfig "$DIR/config" --once >/dev/null 2>"$DIR/err1" && fail "--once succeeded"
check_clean "$DIR/err1"
grep -q 'forbidden: �31mred �evil �next  veltop: fake$' "$DIR/err1" || fail "Status: $(cat -v "$DIR/err1")"

kubeconfig 'http://127.0.0.1:1/\e]0;pwned\a\u202Eevil\u2028\r\nveltop: fake' "{}"
LC_ALL=C.UTF-8 "$VELTOP" --kubeconfig "$DIR/config" --once >/dev/null 2>"$DIR/err2" && fail "--once succeeded"
check_clean "$DIR/err2"
grep -q '\^\[\]0;pwned\^G' "$DIR/err2" || fail "server URL: $(cat -v "$DIR/err2")"

printf '#!/bin/sh\nprintf %s\n' "'{\"apiVersion\":\"\\\\u001b]0;pwned\\\\u0007\\\\u009b2J\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'" >"$DIR/plugin.sh"
chmod +x "$DIR/plugin.sh"
kubeconfig "https://127.0.0.1:$PORT" "{exec: {apiVersion: client.authentication.k8s.io/v1, command: $DIR/plugin.sh, interactiveMode: Never}}"
LC_ALL=C.UTF-8 "$VELTOP" --kubeconfig "$DIR/config" --once >/dev/null 2>"$DIR/err3" && fail "--once succeeded"
check_clean "$DIR/err3"
grep -q 'returned apiVersion \^\[\]0;pwned\^G�2J' "$DIR/err3" || fail "exec plugin: $(cat -v "$DIR/err3")"
echo "once_stderr: ok"
