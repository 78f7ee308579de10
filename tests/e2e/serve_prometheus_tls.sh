#!/usr/bin/env bash
# serve_prometheus_tls.sh: the real Prometheus scrapes `veltop --serve ADDR --web-config FILE` as
# it scrapes any exporter behind exporter-toolkit's web configuration: over TLS (the scrape
# config's tls_config names the CA) with basic auth (a bcrypt hash in basic_auth_users). The
# job with the right password reads up 1 and veltop's own series; the jobs with a wrong
# password, with no password and over plain HTTP read up 0. Random ports; every wait is on a
# condition.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in prometheus curl python3 openssl; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh installs the Debian package prometheus)"
        exit 0
    }
done
D=$TUI_DIR
VELTOP_PID="" PROM_PID=""
cleanup() {
    [ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null && wait "$VELTOP_PID" 2>/dev/null
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
    tui_cleanup
}
trap cleanup EXIT
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

tui_sim_start --scenario empty --passive --quiet

mkdir -p "$D/web"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/web/key.pem" -out "$D/web/cert.pem" -days 2 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null || tui_fail "openssl req"
HASH=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
case "$HASH" in '$2'*) ;; *) tui_fail "no bcrypt hash from crypt(3): $HASH" ;; esac
cat >"$D/web/web.yml" <<EOF
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  prometheus: '$HASH'
EOF

VPORT=$(free_port)
"$VELTOP" --kubeconfig "$D/kubeconfig" --serve "127.0.0.1:$VPORT" --web-config "$D/web/web.yml" \
    >"$D/veltop.out" 2>"$D/veltop.err" &
VELTOP_PID=$!
end=$((SECONDS + 30))
until curl -s --max-time 2 --cacert "$D/web/cert.pem" -o /dev/null "https://127.0.0.1:$VPORT/healthz"; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
    [ "$SECONDS" -le "$end" ] || tui_fail "veltop --serve did not answer over TLS"
    sleep 0.1
done

# four jobs on the same target: the right password, a wrong one, none, plain HTTP
PPORT=$(free_port)
mkdir -p "$D/tsdb"
cat >"$D/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: veltop
    scrape_timeout: 1s
    scheme: https
    tls_config:
      ca_file: $D/web/cert.pem
    basic_auth:
      username: prometheus
      password: 's3cret pass'
    static_configs:
      - targets: ["127.0.0.1:$VPORT"]
  - job_name: veltop-wrong-password
    scrape_timeout: 1s
    scheme: https
    tls_config:
      ca_file: $D/web/cert.pem
    basic_auth:
      username: prometheus
      password: 'wrong'
    static_configs:
      - targets: ["127.0.0.1:$VPORT"]
  - job_name: veltop-no-password
    scrape_timeout: 1s
    scheme: https
    tls_config:
      ca_file: $D/web/cert.pem
    static_configs:
      - targets: ["127.0.0.1:$VPORT"]
  - job_name: veltop-plain-http
    scrape_timeout: 1s
    basic_auth:
      username: prometheus
      password: 's3cret pass'
    static_configs:
      - targets: ["127.0.0.1:$VPORT"]
EOF
prometheus --config.file="$D/prom.yml" --storage.tsdb.path="$D/tsdb" \
    --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$D/prom.out" 2>&1 &
PROM_PID=$!
P="http://127.0.0.1:$PPORT"

# pq EXPR: the value of a one-series instant query over Prometheus' HTTP API, "none" when it has
# no series
pq() {
    curl -s --max-time 5 --get --data-urlencode "query=$1" "$P/api/v1/query" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
r = d["data"]["result"]
print("none" if not r else r[0]["value"][1] if len(r) == 1 else "many:%d" % len(r))' 2>/dev/null || echo "error"
}
pq_wait() { # EXPR WANT [seconds]
    local end=$((SECONDS + ${3:-60})) got
    while [ "$SECONDS" -le "$end" ]; do
        got=$(pq "$1")
        [ "$got" = "$2" ] && return 0
        kill -0 "$PROM_PID" 2>/dev/null || { cat "$D/prom.out" >&2; tui_fail "prometheus exited"; }
        kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop exited"; }
        sleep 0.2
    done
    tui_fail "PromQL '$1' is '$got', want '$2'"
}
pq_wait 'up{job="veltop"}' 1
pq_wait 'veltop_cluster_reachable{job="veltop",context="veltop-sim"}' 1
pq_wait 'up{job="veltop-wrong-password"}' 0
pq_wait 'up{job="veltop-no-password"}' 0
pq_wait 'up{job="veltop-plain-http"}' 0
# what the refused jobs got: nothing of veltop's
for j in veltop-wrong-password veltop-no-password veltop-plain-http; do
    [ "$(pq "veltop_cluster_reachable{job=\"$j\"}")" = none ] || tui_fail "job $j got veltop's series"
done
# the target's error, as Prometheus shows it: 401 for the wrong and the missing password
curl -s --max-time 5 "$P/api/v1/targets" | python3 -c '
import json, sys
t = {x["labels"]["job"]: x for x in json.load(sys.stdin)["data"]["activeTargets"]}
assert t["veltop"]["health"] == "up", t["veltop"]
for j in ("veltop-wrong-password", "veltop-no-password"):
    assert t[j]["health"] == "down" and "401" in t[j]["lastError"], (j, t[j]["lastError"])
assert t["veltop-plain-http"]["health"] == "down", t["veltop-plain-http"]
' || tui_fail "Prometheus' targets: $(curl -s "$P/api/v1/targets")"
echo "serve_prometheus_tls: ok"
