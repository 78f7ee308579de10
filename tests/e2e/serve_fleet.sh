#!/usr/bin/env bash
# serve_fleet.sh: `veltop --all-contexts --serve ADDR` over `veltop-sim --fleet demo`: one
# endpoint carries every context's answers, each series labelled with its context (names with
# ':', '/', '@' and '_' intact); the per-cluster gauges say which clusters answered and which did
# not (refused, unauthorized) without one delaying the others; the runs in flight per context are
# the ones `--once --json` gives for that context at the same time; promtool finds the
# exposition clean; the schedules' and the clusters' health gauges are --once's figures (absent
# where it says null: pods forbidden); SIGTERM stops it with status 0.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in promtool curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done

D=$TUI_DIR
VELTOP_PID=""
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; tui_cleanup' EXIT
# the simulated clocks stand still 10 s past the start (a restore in flight, a backup in flight):
# no run starts, moves or ends between a scrape and --once's read, so the two must agree exactly
"$VELTOP_SIM" --fleet demo --freeze-at 10 --kubeconfig-out "$D/fleet.kc" --quiet >"$D/fleet.out" 2>"$D/fleet.err" &
TUI_SIM_PID=$!
# seven API servers, four with TLS: 19 s under ASan on a loaded 2-core machine (how long it takes
# is not what this test checks: a bound only, 90 s)
end=$((SECONDS + 90))
until grep -q '^fleet ready' "$D/fleet.out"; do
    kill -0 "$TUI_SIM_PID" 2>/dev/null || break
    [ "$SECONDS" -le "$end" ] || break
    sleep 0.05
done
grep -q '^fleet ready' "$D/fleet.out" || tui_fail "the sim fleet did not start: $(cat "$D/fleet.err")"
export KUBECONFIG="$D/fleet.kc"

VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --all-contexts --serve "127.0.0.1:$VPORT" >"$D/veltop.out" 2>"$D/veltop.err" &
VELTOP_PID=$!
M="http://127.0.0.1:$VPORT"

# every context's reachable gauge final: 1 where the run lists came, 0 where they cannot
# (connection refused, credentials rejected)
EKS='arn:aws:eks:eu-west-1:123456789012:cluster/prod'
want_reach() {
    python3 - "$1" "$EKS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
got = {}
for m in re.finditer(r'^veltop_cluster_reachable\{context="((?:[^"\\]|\\.)*)",namespace="velero"\} (\S+)$', text, re.M):
    got[m.group(1)] = m.group(2)
want = {sys.argv[2]: "1", "gke_acme_europe-west1_shop": "1", "kubernetes-admin@staging": "1",
        "dr-site": "1", "openshift-prod": "1", "prod-us-east": "0", "kind-dev": "0"}
if got != want:
    print(got, file=sys.stderr)
    sys.exit(1)
PY
}
end=$((SECONDS + 30))
t0=$SECONDS
until curl -sf --max-time 2 "$M/metrics" >"$D/m.txt" 2>/dev/null && want_reach "$D/m.txt" 2>"$D/reach.err"; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
    [ "$SECONDS" -le "$end" ] || {
        cat "$D/reach.err" "$D/veltop.err" >&2
        grep -v '^#' "$D/m.txt" | grep '^veltop_cluster' >&2
        tui_fail "the clusters' reachable gauges never settled"
    }
    sleep 0.2
done
# a refused and an unauthorized cluster delay no other: all settled within 10 s
[ $((SECONDS - t0)) -le 10 ] || tui_fail "settling took $((SECONDS - t0)) s"
echo "every context's reachable gauge: ok"

promtool check metrics <"$D/m.txt" >"$D/check.out" 2>&1 ||
    { cat "$D/check.out" >&2; tui_fail "promtool check metrics is not clean"; }
[ -s "$D/check.out" ] && { cat "$D/check.out" >&2; tui_fail "promtool check metrics has findings"; }
echo "promtool: ok"

# the runs in flight of each live context are --once's for that context (the clusters' clocks
# stand still: the exporter's render may only lag behind the lists that came after the runs)
agree() {
    curl -sf --max-time 2 "$M/metrics" >"$D/m.txt" || tui_fail "scrape"
    rc=0
    "$VELTOP" --once --json --context "$1" >"$D/once.json" 2>/dev/null || rc=$?
    [ "$rc" -le 5 ] || tui_fail "--once --context $1: exit $rc"
    python3 - "$D/m.txt" "$D/once.json" "$1" <<'PY'

import json, re, sys
text, doc, ctx = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
esc = ctx.replace("\\", "\\\\").replace('"', '\\"')
names = set()
for m in re.finditer(r'^veltop_run_info\{(.*)\} 1$', text, re.M):
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
    if labels["context"] == esc:
        names.add((labels["kind"], labels["name"]))
flying = re.search(r'^veltop_cluster_runs_in_flight\{context="%s",namespace="velero"\} (\S+)$' % re.escape(esc), text, re.M)
assert flying, "no runs_in_flight for " + ctx
once = {(r["kind"], r["name"]) for r in doc["runs"] if r["phase"] in ("New", "Queued", "ReadyToStart", "InProgress", "WaitingForPluginOperations", "WaitingForPluginOperationsPartiallyFailed", "Finalizing", "FinalizingPartiallyFailed")}
assert names == once, (ctx, sorted(names), sorted(once))
assert int(flying.group(1)) == len(once), (ctx, flying.group(1), len(once))
# the schedules and the cluster's health, as --once says them (absent where it says null)
def sample(name, **extra):
    want = dict(context=esc, namespace="velero", **extra)
    for m in re.finditer(r'^%s\{(.*)\} (\S+)$' % name, text, re.M):
        if dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1))) == want:
            return float(m.group(2))
    return None
import calendar, time
def ts(s):
    return None if s is None else calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
for sc in doc["schedules"]:
    n = sc["name"]
    assert sample("veltop_schedule_paused", schedule=n) == float(sc["paused"]), (ctx, n)
    if not sc["paused"]:
        assert sample("veltop_schedule_overdue", schedule=n) == float(sc["overdue"]), (ctx, n)
        assert sample("veltop_schedule_next_run_timestamp_seconds", schedule=n) == ts(sc["nextRun"]), (ctx, n)
v = doc["velero"]
assert sample("veltop_cluster_velero_info", version=v["version"]) == 1 if v and v.get("version") else \
    not re.search(r'^veltop_cluster_velero_info\{context="%s",' % re.escape(esc), text, re.M), (ctx, v)
agents = doc["nodeAgents"]
if agents is None:
    assert sample("veltop_cluster_node_agents") is None, ctx
else:
    assert sample("veltop_cluster_node_agents") == len(agents), ctx
    assert sample("veltop_cluster_node_agents_ready") == sum(a["ready"] for a in agents), ctx
bsl = doc["storageLocations"]
assert sample("veltop_cluster_storage_locations") == len(bsl), ctx
assert sample("veltop_cluster_storage_locations_available") == sum(b["phase"] == "Available" for b in bsl), ctx
print("  %s: %d schedules, %s node agents, %d storage locations agree" % (
    ctx, len(doc["schedules"]), "no" if agents is None else len(agents), len(bsl)))
print("  %s: %d in flight" % (ctx, len(once)))
PY
}
for ctx in "$EKS" gke_acme_europe-west1_shop kubernetes-admin@staging dr-site; do
    # until the exporter has rendered every list of the context (30 s bound: a difference that
    # stays is a disagreement, not a lag)
    end=$((SECONDS + 30))
    until agree "$ctx" 2>"$D/agree.err"; do
        [ "$SECONDS" -le "$end" ] || { cat "$D/agree.err" >&2; tui_fail "runs in flight of $ctx"; }
        sleep 0.2
    done
done
# the frozen clusters hold runs in flight: the comparison compared something
curl -sf --max-time 2 "$M/metrics" >"$D/m.txt" || tui_fail "scrape"
for want in 'context="gke_acme_europe-west1_shop".*name="restore-drill"' \
    "context=\"$EKS\".*name=\"adhoc-full\""; do
    grep -Eq "^veltop_run_info\{.*$want.*\} 1\$" "$D/m.txt" || tui_fail "not in flight: $want"
done
echo "runs in flight per context agree with --once: ok"

kill -TERM "$VELTOP_PID"
rc=0
wait "$VELTOP_PID" || rc=$?
VELTOP_PID=""
[ "$rc" = 0 ] || tui_fail "SIGTERM: exit $rc"
echo "serve_fleet: ok"
