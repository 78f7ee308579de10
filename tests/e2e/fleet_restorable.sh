#!/usr/bin/env bash
# fleet_restorable.sh: restore readiness (core/readiness.c) where the health screen is not: the
# detail of a schedule's backup and the fleet. Truth: scenario restorable.yaml (daily's newest
# restorable backup is daily-3d, 3 days old against @every 24h: stale; weekly's is fresh) and
# basic.yaml (one fresh schedule). The detail of any daily backup has a "Restorable" line saying so;
# the fleet (--all-contexts) counts one stale schedule in the restorable context, none in the
# other, in --once --json and the fleet screen's SCHEDULES cell.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }
D=$TUI_DIR
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/restorable.yaml" --quiet
cp "$D/kubeconfig" "$D/a.kc"
A_PID=$TUI_SIM_PID
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
cp "$D/kubeconfig" "$D/b.kc"
B_PID=$TUI_SIM_PID
trap 'kill $A_PID $B_PID 2>/dev/null; tui_cleanup' EXIT

# ---- the detail of a daily backup (not itself the restorable one) ----
tui_start 80 24 --kubeconfig "$D/a.kc"
tui_wait '^B +daily-1d '
tui_keys / daily-1d Enter
tui_wait_gone 'daily-2h'
tui_keys Enter
tui_wait '^Backup daily-1d  Failed'
tui_wait '^Restorable daily-3d \(3d00h ago, Completed\), older than 2 intervals \(1d00h\), BSL…$'
tui_resize 200 50
tui_wait '^Restorable daily-3d \(3d00h ago, Completed\), older than 2 intervals \(1d00h\), BSL default Available, last restore (2d00h|1d23h) ago$'
tui_server_stop

# ---- the fleet: two contexts ----
python3 - "$D/a.kc" "$D/b.kc" "$D/fleet.kc" <<'PY' || tui_fail "kubeconfig"
import sys, yaml
out = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
for path, n in ((sys.argv[1], "ready"), (sys.argv[2], "plain")):
    kc = yaml.safe_load(open(path))
    c = dict(kc["clusters"][0]); c["name"] = n
    u = dict(kc["users"][0]); u["name"] = n
    x = dict(kc["contexts"][0]); x["name"] = n
    x["context"] = dict(x["context"], cluster=n, user=n)
    out["clusters"].append(c); out["users"].append(u); out["contexts"].append(x)
out["current-context"] = "ready"
yaml.safe_dump(out, open(sys.argv[3], "w"))
PY
rc=0
"$VELTOP" --kubeconfig "$D/fleet.kc" --all-contexts --once --json >"$D/f.json" 2>"$D/f.err" || rc=$?
[ "$rc" = 7 ] || tui_fail "--all-contexts --once exited $rc, want 7 (something wrong in one): $(cat "$D/f.err")"
python3 - "$D/f.json" <<'PY' || tui_fail "fleet JSON: $(head -c 3000 "$D/f.json")"
import json, sys
d = json.load(open(sys.argv[1]))
ctx = {c["context"]: c for c in d["contexts"]}
s = ctx["ready"]["summary"]["schedules"]
assert s["restorableStale"] == 1 and s["restorableStaleFirst"] == "daily", s
assert "restorableStaleUnknown" not in s, s
p = ctx["plain"]["summary"]["schedules"]
assert p["restorableStale"] == 0 and p["restorableStaleFirst"] is None, p
PY
tui_start 200 30 --kubeconfig "$D/fleet.kc" --all-contexts
tui_wait '^ veltop  fleet of 2 contexts'
tui_wait ' ready +v[0-9.]+ +none +0/0/1 +2, 1 overdue, 1 restorable stale; weekly never +1/1 +3/3'
tui_wait ' plain +v[0-9.]+ .* 1, 0 overdue; every5 '
echo PASS
