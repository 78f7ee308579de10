#!/usr/bin/env bash
# serve_prometheus.sh: veltop --serve scraped by the real Prometheus. Against a passive veltop-sim
# whose counters move only when this test patches them, PromQL over Prometheus' HTTP API gives
# the values veltop --once --json gives (items, bytes, ETA within 15 %) and the TUI shows
# (stalled) for the same run, through its life and after it ends (its series leave, it is the
# schedule's last run with its end phase); promtool finds the exposition clean and the alert
# rules of doc/prometheus sound and passing; a cluster that stops answering (SIGSTOP) reads
# reachable 0 with the per-run series frozen (ETA and stalled absent), and no scrape hangs;
# SIGTERM and SIGINT stop veltop with status 0. Only /metrics and /healthz are served.
. "$(dirname "$0")/tui_lib.bash" || exit 1
. "$(dirname "$0")/serve_lib.bash" || exit 1
serve_need prometheus promtool curl python3
# the reference Python client's parsers (Debian's python3-prometheus-client, for /usr/bin/python3)
/usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null || {
    echo "SKIP: python3-prometheus-client not installed (sh scripts/deps.sh)"
    exit 0
}
: "${SRC_DIR:=$(cd "$(dirname "$0")/../.." && pwd)}"

# the alert rules first: they are plain files
promtool check rules "$SRC_DIR/doc/prometheus/veltop-rules.yml" >"$TUI_DIR/rules.out" 2>&1 ||
    { cat "$TUI_DIR/rules.out" >&2; tui_fail "promtool check rules"; }
(cd "$SRC_DIR/doc/prometheus" && promtool test rules veltop-rules.test.yml) >"$TUI_DIR/rtest.out" 2>&1 ||
    { cat "$TUI_DIR/rtest.out" >&2; tui_fail "promtool test rules"; }
promtool check config "$SRC_DIR/doc/prometheus/prometheus.yml" >/dev/null 2>&1 ||
    tui_fail "promtool check config doc/prometheus/prometheus.yml"

tui_sim_start --scenario empty --passive --quiet

api() { # METHOD PATH [JSON]
    python3 - "$TUI_SIM_URL" "$@" <<'PY' || tui_fail "api $*"
import sys, urllib.request
url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
req = urllib.request.Request(url + path, data=body, method=method, headers={"Content-Type": ctype})
assert urllib.request.urlopen(req).status in (200, 201)
PY
}
B=/apis/velero.io/v1/namespaces/velero/backups
PVB=/apis/velero.io/v1/namespaces/velero/podvolumebackups
ts() { date -u -d "$1" +%Y-%m-%dT%H:%M:%SZ; }
serve_start
M="http://127.0.0.1:$VPORT"
end=$((SECONDS + 30))
until curl -sf --max-time 2 "$M/healthz" >/dev/null; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop --serve exited"; }
    [ "$SECONDS" -le "$end" ] || tui_fail "veltop --serve did not answer /healthz"
    sleep 0.1
done
[ "$(curl -s --max-time 2 "$M/healthz")" = ok ] || tui_fail "/healthz is not ok"
[ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "$M/")" = 404 ] || tui_fail "/ is not 404"
[ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "$M/metrics/x")" = 404 ] || tui_fail "/metrics/x is not 404"
[ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' -X POST "$M/metrics")" = 405 ] || tui_fail "POST /metrics is not 405"

# check_metrics: promtool finds the text format clean; the OpenMetrics rendering of the same
# moment passes the reference client's strict parser and holds the same series
check_metrics() {
    curl -s --max-time 2 "$M/metrics" >"$TUI_DIR/metrics.txt" || tui_fail "scrape failed"
    curl -s --max-time 2 -H 'Accept: application/openmetrics-text; version=1.0.0' "$M/metrics" \
        >"$TUI_DIR/metrics.om" || tui_fail "OpenMetrics scrape failed"
    promtool check metrics <"$TUI_DIR/metrics.txt" >"$TUI_DIR/check.out" 2>&1 ||
        { cat "$TUI_DIR/check.out" >&2; tui_fail "promtool check metrics is not clean"; }
    [ -s "$TUI_DIR/check.out" ] && { cat "$TUI_DIR/check.out" >&2; tui_fail "promtool check metrics has findings"; }
    /usr/bin/python3 - "$TUI_DIR/metrics.txt" "$TUI_DIR/metrics.om" <<'PY' || tui_fail "the OpenMetrics exposition does not parse or differs"
import sys
from prometheus_client.parser import text_string_to_metric_families as text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
def series(fams):
    return {(s.name, tuple(sorted(s.labels.items()))) for f in fams for s in f.samples}
t = series(text(open(sys.argv[1]).read()))
o = series(om(open(sys.argv[2]).read()))
if t != o:
    print("text only:", sorted(t - o)[:5], "openmetrics only:", sorted(o - t)[:5], file=sys.stderr)
    sys.exit(1)
PY
    return 0
}
# the exposition of the empty cluster: promtool finds it clean, in both formats
check_metrics
curl -s --max-time 2 -D "$TUI_DIR/h.txt" -o /dev/null "$M/metrics"
grep -qi '^content-type: text/plain; version=0.0.4' "$TUI_DIR/h.txt" || tui_fail "text format content type"
curl -s --max-time 2 -D "$TUI_DIR/h.txt" -o "$TUI_DIR/om.txt" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$M/metrics"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$TUI_DIR/h.txt" || tui_fail "OpenMetrics content type"
[ "$(tail -n 1 "$TUI_DIR/om.txt")" = "# EOF" ] || tui_fail "OpenMetrics does not end in # EOF"

# the real Prometheus, on loopback, scraping every second (it asks for OpenMetrics first)
cat >"$TUI_DIR/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $SRC_DIR/doc/prometheus/veltop-rules.yml
scrape_configs:
  - job_name: veltop
    scrape_timeout: 1s
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$VPORT"]
EOF
serve_prometheus_start "$TUI_DIR/prom.yml"

# pq_some EXPR [seconds]: waits until EXPR has a series
pq_some() {
    local end=$((SECONDS + ${2:-30}))
    while [ "$SECONDS" -le "$end" ]; do
        case $(pq "$1") in none | error | many:*) sleep 0.2 ;; *) return 0 ;; esac
    done
    tui_fail "PromQL '$1' has no series"
}
pq_wait 'up{job="veltop"}' 1 60
# the OpenMetrics Prometheus asks for was parsed: the samples arrived
pq_some 'scrape_samples_scraped{job="veltop"} > 5' 10

R='{name="e2e-run",kind="Backup",schedule="nightly",context="veltop-sim",namespace="velero"}'
once_run() { # FIELD: a field of e2e-run in veltop --once --json ("null" when null)
    "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json | python3 -c '
import json, sys
runs = [r for r in json.load(sys.stdin)["runs"] if r["name"] == "e2e-run"]
v = runs[0].get(sys.argv[1]) if runs else "missing"
print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)' "$1"
}
within() { # A B PCT: |A - B| <= PCT % of B
    python3 -c 'import sys; a, b, p = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= p / 100 * b else 1)' "$1" "$2" "$3"
}

# the TUI watches the same run
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'

# the run is created once everything watches, so every watcher sees it move from its start
# a backup of schedule "nightly" 40 s in, 40 items of 100 done (1 item/s), and a pod volume of
# 1 GiB already moved
api POST "$B" '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"e2e-run","namespace":"velero","labels":{"velero.io/schedule-name":"nightly"}},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$(ts '-40 seconds')"'","progress":{"totalItems":100,"itemsBackedUp":40}}}'
api POST "$PVB" '{"apiVersion":"velero.io/v1","kind":"PodVolumeBackup","metadata":{"name":"e2e-run-a1","namespace":"velero","labels":{"velero.io/backup-name":"e2e-run"}},"spec":{"node":"worker-1","pod":{"kind":"Pod","namespace":"shop","name":"db-0"},"volume":"data","uploaderType":"kopia"},"status":{"phase":"Completed","startTimestamp":"'"$(ts '-40 seconds')"'","completionTimestamp":"'"$(ts '-5 seconds')"'","progress":{"totalBytes":1073741824,"bytesDone":1073741824}}}'

end=$((SECONDS + 30))
until curl -s --max-time 2 "$M/metrics" | grep -q '^veltop_run_items_done{.*name="e2e-run"'; do
    [ "$SECONDS" -le "$end" ] || tui_fail "no e2e-run in /metrics"
    sleep 0.1
done

# ---- in flight: items, bytes and the ETA agree with --once --json, at 1 item/s -------------------
pq_wait "veltop_run_items_done$R" 40
pq_wait "veltop_run_done_bytes$R" 1073741824
pq_wait "veltop_run_expected_bytes$R" 1073741824
pq_wait "veltop_run_items_expected$R" 100
pq_wait "veltop_run_items_expected_estimated$R" 1
pq_wait "veltop_run_info{name=\"e2e-run\",phase=\"InProgress\"}" 1
pq_wait "veltop_cluster_reachable" 1
pq_wait "veltop_cluster_runs_in_flight" 1
items=40
for step in 1 2 3; do
    # +5 items every 5 s: 1 item/s, the pace the run started at
    started=$SECONDS
    items=$((items + 5))
    api PATCH "$B/e2e-run" '{"status":{"progress":{"itemsBackedUp":'"$items"'}}}'
    pq_wait "veltop_run_items_done$R" "$items" 10
    [ "$(once_run itemsDone)" = "$items" ] || tui_fail "--once itemsDone $(once_run itemsDone), want $items"
    [ "$(once_run bytesDone)" = 1073741824 ] || tui_fail "--once bytesDone $(once_run bytesDone)"
    eta_p=$(pq "veltop_run_eta_seconds$R")
    eta_o=$(once_run etaSeconds)
    [ "$eta_p" != none ] && [ "$eta_o" != null ] || tui_fail "no ETA: prometheus $eta_p, --once $eta_o"
    within "$eta_p" "$eta_o" 15 || tui_fail "ETA: prometheus ${eta_p}s, --once ${eta_o}s (step $step)"
    [ "$(pq "veltop_run_stalled$R")" = 0 ] || tui_fail "stalled while moving (step $step)"
    # one list knows only the age of the last write: moving under 3 s, unknown up to 30 s (these
    # patches come every 5 s, a cadence one list cannot see), never stalled
    case "$(once_run stalled)" in
    false) ;;
    null) [ "$(once_run stalledReason)" = "no evidence yet" ] || tui_fail "--once stalled null, why?" ;;
    *) tui_fail "--once says stalled while moving" ;;
    esac
    tui_wait "B e2e-run +InProgress +.* $items/~100 " 10
    echo "step $step: items $items, ETA prometheus ${eta_p}s, --once ${eta_o}s"
    while [ $((SECONDS - started)) -lt 5 ]; do sleep 0.2; done
done
pq_wait "veltop_run_waiting_info{name=\"e2e-run\",part=\"items\"}" 1

# ---- it stops moving: stalled there and on the TUI's row, no ETA -------------------------------
tui_wait 'B e2e-run +InProgress +.* stalled [0-9]+s' 60
pq_wait "veltop_run_stalled$R" 1 20
[ "$(pq "veltop_run_eta_seconds$R")" = none ] || tui_fail "an ETA while stalled"
pq_some "veltop_run_stalled_seconds$R > 10" 30
check_metrics

# ---- it ends: its series go, it is the schedule's last run with its end phase ------------------
api PATCH "$B/e2e-run" '{"status":{"phase":"Completed","completionTimestamp":"'"$(ts now)"'","progress":{"totalItems":100,"itemsBackedUp":100}}}'
pq_wait "veltop_last_run_info{name=\"e2e-run\",kind=\"Backup\",schedule=\"nightly\",phase=\"Completed\"}" 1
pq_wait "veltop_run_items_done$R" none
pq_wait "veltop_run_info{name=\"e2e-run\"}" none
pq_wait "veltop_cluster_runs_in_flight" 0
[ "$(once_run itemsDone)" = 100 ] || tui_fail "--once itemsDone after the end"
pq_wait "veltop_last_run_items_done{name=\"e2e-run\"}" 100
pq_wait "veltop_last_run_done_bytes{name=\"e2e-run\"}" "$(once_run bytesDone)"
tui_wait 'B e2e-run +Completed ' 10
check_metrics

# ---- the cluster goes away: reachable 0, the run's series frozen, ETA and stalled absent ---------
api POST "$B" '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"e2e-frozen","namespace":"velero"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$(ts '-20 seconds')"'","progress":{"totalItems":50,"itemsBackedUp":10}}}'
F='{name="e2e-frozen"}'
pq_wait "veltop_run_items_done$F" 10
pq_some "veltop_run_eta_seconds$F > 0" 20
kill -STOP "$TUI_SIM_PID"
pq_wait "veltop_cluster_reachable" 0 60
for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    curl -sf --max-time 2 "$M/metrics" >"$TUI_DIR/stopped.txt" || tui_fail "a scrape failed or hung while the cluster is stopped"
    ms=$((($(date +%s%N) - t0) / 1000000))
    [ "$ms" -lt 1000 ] || tui_fail "a scrape took ${ms} ms while the cluster is stopped"
done
grep -q '^veltop_cluster_reachable{context="veltop-sim",namespace="velero"} 0$' "$TUI_DIR/stopped.txt" ||
    tui_fail "reachable is not 0 in the scrape"
pq_wait "veltop_run_items_done$F" 10
pq_wait "veltop_run_eta_seconds$F" none
pq_wait "veltop_run_stalled$F" none
pq_some "veltop_cluster_data_age_seconds > 0" 10
check_metrics
kill -CONT "$TUI_SIM_PID"
pq_wait "veltop_cluster_reachable" 1 60

# ---- SIGTERM, SIGINT: a clean stop, status 0 -------------------------------------------------------------
# serve_wait_exit: the exit status of veltop (VELTOP_PID) once it is gone, bounded
serve_wait_exit() {
    local end=$((SECONDS + 20)) rc
    while kill -0 "$VELTOP_PID" 2>/dev/null; do
        [ "$SECONDS" -le "$end" ] || tui_fail "veltop --serve did not stop within 20 s of the signal"
        sleep 0.1
    done
    wait "$VELTOP_PID"
    rc=$?
    VELTOP_PID=""
    return $rc
}
kill -TERM "$VELTOP_PID"
serve_wait_exit
rc=$?
[ "$rc" = 0 ] || { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop --serve exited $rc on SIGTERM"; }
[ -s "$TUI_DIR/veltop.err" ] && { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop --serve wrote to stderr"; }
# SIGINT too, and the port is free again at once
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --serve "127.0.0.1:$VPORT" 2>"$TUI_DIR/veltop2.err" &
VELTOP_PID=$!
end=$((SECONDS + 30))
until curl -sf --max-time 2 "$M/healthz" >/dev/null; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$TUI_DIR/veltop2.err" >&2; tui_fail "veltop --serve did not start again"; }
    [ "$SECONDS" -le "$end" ] || tui_fail "veltop --serve did not answer again"
    sleep 0.1
done
kill -INT "$VELTOP_PID"
serve_wait_exit
rc=$?
[ "$rc" = 0 ] || tui_fail "veltop --serve exited $rc on SIGINT"
echo "serve_prometheus: ok"
