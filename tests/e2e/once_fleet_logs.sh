#!/usr/bin/env bash
# once_fleet_logs.sh: `veltop --once --json --all-contexts` reads the Velero server logs of every
# context's runs in progress together, under one deadline: six stock-Velero clusters (no
# status.resourceProgress, so the per-resource rows come from the log) whose kubelets answer a pod
# log 1.5 s late, one whose log never comes, and one whose log stops after its first 20 lines
# (a kubelet that hangs mid-stream). Every slow context gets its rows from the log (read one after
# the other, each context had a sixth of the deadline: none did), the one whose log never comes
# says its rows are unknown and why, the one cut short says its rows count only the part read,
# and the whole run ends within the lists' time plus the one deadline.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }

D=$TUI_DIR
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; tui_cleanup' EXIT

cat >"$D/run.yaml" <<'EOF'
namespaces: [shop]
runs:
  - {kind: backup, name: running, start: -20s, rate: 0.5, resources: [{name: pods, items: 50}, {name: secrets, items: 7}]}
EOF

# stuck first: in kubeconfig order its read would come first
NAMES=(stuck slow-1 slow-2 slow-3 slow-4 slow-5 slow-6 cut)
KC=""
for c in "${NAMES[@]}"; do
    fault=log-delay=1500
    [ "$c" = stuck ] && fault=log-delay=600000
    # the backup's "Retrieved" lines and its first "Processing item", then nothing
    [ "$c" = cut ] && fault=log-stall=20
    "$VELTOP_SIM" --scenario "$D/run.yaml" --quiet --no-resource-progress --context-name "$c" \
        --faults "$fault" --kubeconfig-out "$D/$c.kc" >"$D/$c.out" 2>"$D/$c.err" &
    PIDS+=($!)
    KC="$KC${KC:+:}$D/$c.kc"
done
for c in "${NAMES[@]}"; do
    for _ in $(seq 1 400); do grep -q 'listening on' "$D/$c.out" && break; sleep 0.05; done
    grep -q 'listening on' "$D/$c.out" || tui_fail "sim $c did not start: $(cat "$D/$c.err")"
done
export KUBECONFIG="$KC"

t0=$(date +%s%N)
rc=0
"$VELTOP" --once --json --all-contexts >"$D/all.json" 2>"$D/all.err" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "--once over ${#NAMES[@]} contexts: ${ms} ms, exit $rc"
[ "$rc" = 0 ] || tui_fail "exit $rc: $(cat "$D/all.err")"
python3 - "$D/all.json" <<'PY' || tui_fail "--once --json: see $D/all.json"
import json, sys
ctx = {c["context"]: c for c in json.load(open(sys.argv[1]))["contexts"]}
assert len(ctx) == 8, sorted(ctx)
def run(c):
    return [r for r in ctx[c]["runs"] if r["name"] == "running"][0]
for i in range(1, 7):
    r = run("slow-%d" % i)
    assert r["resources"] is not None, ("slow-%d" % i, r["resourcesNote"])
    t = {x["resource"]: x["total"] for x in r["resources"]}
    assert t.get("pods") == 50 and t.get("secrets") == 7, ("slow-%d" % i, t)
    assert r["resourcesNote"] is None, r["resourcesNote"]
r = run("stuck")
assert ctx["stuck"]["lamp"] == "live", ctx["stuck"]["lamp"]
assert r["resources"] is None, r["resources"]
want = "not derived: the Velero server log was not read before the --once deadline (waiting for the log)"
assert r["resourcesNote"] == want, r["resourcesNote"]
assert r["itemsDone"] is not None, r
# rows from the lines that came (the totals, no pod done yet), said to count only that part
r = run("cut")
t = {x["resource"]: (x["done"], x["total"]) for x in r["resources"]}
assert t == {"pods": (0, 50), "secrets": (0, 7)}, t
want = ("from part of the Velero server log only: the Velero server log was not read whole "
        "before the --once deadline (reading it)")
assert r["resourcesNote"] == want, r["resourcesNote"]
PY
# the lists (well under a second here, 5 s under ASan on a loaded machine) and one deadline of
# at most 5.2 s, not a sum of one per context
[ "$ms" -lt 14000 ] || tui_fail "--once took ${ms} ms"
echo "once_fleet_logs: ok"
