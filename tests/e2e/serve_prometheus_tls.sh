#!/usr/bin/env bash
# serve_prometheus_tls.sh: the real Prometheus scrapes `veltop --serve ADDR --web-config FILE` as
# it scrapes any exporter behind exporter-toolkit's web configuration: over TLS (the scrape
# config's tls_config names the CA) with basic auth (a bcrypt hash in basic_auth_users). The
# job with the right password reads up 1 and veltop's own series; the jobs with a wrong
# password, with no password and over plain HTTP read up 0. Random ports; every wait is on a
# condition.
. "$(dirname "$0")/tui_lib.bash" || exit 1
. "$(dirname "$0")/serve_lib.bash" || exit 1
serve_need prometheus curl python3 openssl
D=$TUI_DIR

tui_sim_start --scenario empty --passive --quiet
serve_webcfg_files
serve_start --web-config "$D/web/web.yml"
end=$((SECONDS + 30))
until curl -s --max-time 2 --cacert "$D/web/cert.pem" -o /dev/null "https://127.0.0.1:$VPORT/healthz"; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
    [ "$SECONDS" -le "$end" ] || tui_fail "veltop --serve did not answer over TLS"
    sleep 0.1
done

# four jobs on the same target: the right password, a wrong one, none, plain HTTP
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
serve_prometheus_start "$D/prom.yml"
pq_wait 'up{job="veltop"}' 1 60
pq_wait 'veltop_cluster_reachable{job="veltop",context="veltop-sim"}' 1 60
pq_wait 'up{job="veltop-wrong-password"}' 0 60
pq_wait 'up{job="veltop-no-password"}' 0 60
pq_wait 'up{job="veltop-plain-http"}' 0 60
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
