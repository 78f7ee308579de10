# serve_lib.bash: what the tests of `veltop --serve` share (serve_prometheus.sh, serve_webcfg.sh,
# serve_prometheus_tls.sh): the tools they need, free ports, veltop and the real Prometheus
# started and stopped, a web configuration (a self-signed certificate and a bcrypt-hashed
# password), and PromQL over Prometheus' HTTP API. Sourced after tui_lib.bash.

# serve_need TOOL...: exits with SKIP when one is missing
serve_need() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null || {
            echo "SKIP: $t not installed (sh scripts/deps.sh)"
            exit 0
        }
    done
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# veltop (VELTOP_PID) and Prometheus (PROM_PID) stopped, a stopped sim continued, then
# tui_cleanup
VELTOP_PID="" PROM_PID=""
serve_cleanup() {
    [ -n "$TUI_SIM_PID" ] && kill -CONT "$TUI_SIM_PID" 2>/dev/null
    [ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null && wait "$VELTOP_PID" 2>/dev/null
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
    tui_cleanup
}
trap serve_cleanup EXIT

# serve_webcfg_files: $TUI_DIR/web/ holds cert.pem and key.pem (self-signed for 127.0.0.1) and
# web.yml, exporter-toolkit's web configuration: TLS with them, and user prometheus with the
# password "s3cret pass" (bcrypt, crypt(3))
serve_webcfg_files() {
    local hash
    mkdir -p "$TUI_DIR/web"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TUI_DIR/web/key.pem" \
        -out "$TUI_DIR/web/cert.pem" -days 2 -subj /CN=localhost \
        -addext subjectAltName=IP:127.0.0.1 2>/dev/null || tui_fail "openssl req"
    hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
    case "$hash" in '$2'*) ;; *) tui_fail "no bcrypt hash from crypt(3): $hash" ;; esac
    cat >"$TUI_DIR/web/web.yml" <<WEB
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  prometheus: '$hash'
WEB
}

# serve_start ARGS...: veltop --serve on a free port (VPORT) against the sim's kubeconfig, with
# ARGS after; VELTOP_PID; its output in $TUI_DIR/veltop.out and veltop.err
serve_start() {
    VPORT=$(free_port)
    "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --serve "127.0.0.1:$VPORT" "$@" \
        >"$TUI_DIR/veltop.out" 2>"$TUI_DIR/veltop.err" &
    VELTOP_PID=$!
}

# serve_prometheus_start CONFIG: the real Prometheus on a free port (P its URL, PROM_PID), its
# TSDB in $TUI_DIR/tsdb, its output in $TUI_DIR/prom.out
serve_prometheus_start() {
    local port
    port=$(free_port)
    mkdir -p "$TUI_DIR/tsdb"
    prometheus --config.file="$1" --storage.tsdb.path="$TUI_DIR/tsdb" \
        --web.listen-address="127.0.0.1:$port" --log.level=warn >"$TUI_DIR/prom.out" 2>&1 &
    PROM_PID=$!
    P="http://127.0.0.1:$port"
}

# pq EXPR: the value of a one-series instant query, "none" when it has no series
pq() {
    curl -s --max-time 5 --get --data-urlencode "query=$1" "$P/api/v1/query" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
r = d["data"]["result"]
print("none" if not r else r[0]["value"][1] if len(r) == 1 else "many:%d" % len(r))' 2>/dev/null || echo "error"
}

# pq_wait EXPR WANT [seconds]: waits (30 s unless told) until pq EXPR prints WANT; fails at once
# when Prometheus or veltop (when started) exited
pq_wait() {
    local end=$((SECONDS + ${3:-30})) got
    while [ "$SECONDS" -le "$end" ]; do
        got=$(pq "$1")
        [ "$got" = "$2" ] && return 0
        kill -0 "$PROM_PID" 2>/dev/null || { cat "$TUI_DIR/prom.out" >&2; tui_fail "prometheus exited"; }
        [ -z "$VELTOP_PID" ] || kill -0 "$VELTOP_PID" 2>/dev/null ||
            { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop exited"; }
        sleep 0.2
    done
    tui_fail "PromQL '$1' is '$got', want '$2'"
}
