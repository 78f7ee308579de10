#!/usr/bin/env bash
# tui_skew.sh: a cluster whose clock is 10 minutes off ours, both ways (veltop-sim --clock-skew
# +600 and -600, tests/fixtures/scenarios/skew.yaml, where nothing is wrong on the cluster's own
# clock): no false diagnosis, no false OVERDUE, a sane next run, rates seeded right, the run ETA
# from history right, and the header says how far the cluster's clock is off.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 0; }

for skew in -600 600; do
    [ "$skew" -lt 0 ] && way=behind || way=ahead
    TUI_SIM_PORT=""
    tui_sim_start --scenario "$FIXTURES_DIR/scenarios/skew.yaml" --clock-skew "$skew" --quiet
    "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" ||
        tui_fail "--once --json failed (skew $skew)"
    python3 - "$TUI_DIR/once.json" "$skew" <<'PY' || tui_fail "--once --json figures (skew $skew)"
import json, sys, time, calendar
d = json.load(open(sys.argv[1]))
skew = float(sys.argv[2])
off = d["clusterClockOffsetSeconds"]
assert abs(off - skew) <= 1.0, off
runs = {r["name"]: r for r in d["runs"]}
for r in d["runs"]:
    assert r["diagnosis"] == [], (r["name"], r["diagnosis"])
# seeded from startTimestamp on the cluster's clock: 10 items/s (not 1000 in 700 s)
m = runs["moving"]
assert 9.0 <= m["itemsPerSecond"] <= 10.5, m["itemsPerSecond"]
assert 400 <= m["etaSeconds"] <= 560, m["etaSeconds"]
# 30 s into a run whose schedule's runs took 180 s: ~150 s left (not 150 + 600)
n = runs["nightly-now"]
assert 100 <= n["etaSeconds"] <= 200, n["etaSeconds"]
s = {x["name"]: x for x in d["schedules"]}
f = s["frequent"]
assert f["overdue"] is False, f
nxt = calendar.timegm(time.strptime(f["nextRun"], "%Y-%m-%dT%H:%M:%SZ"))
left = nxt - (time.time() + skew)  # on the cluster's clock
assert 150 <= left <= 210, left
assert s["nightly"]["overdue"] is False, s["nightly"]
PY

    tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait '● live'
    tui_wait "cluster clock (9m59s|10m0[01]s) $way"
    tui_wait '^B moving '
    tui_wait '^B hung '
    # the live log is followed (the moving run's counter moves) and still nothing is called stuck
    old=$(tui_line '^B moving ')
    tui_wait_change '^B moving ' "$old" 30
    tui_screen | grep -q '^B⚠' && tui_fail "a run is marked stuck (skew $skew)"
    tui_keys / moving Enter
    tui_wait '^filter: /moving'
    tui_keys Enter
    tui_wait '^Backup moving '
    tui_screen | grep -q '^Stuck?' && tui_fail "the moving run is called stuck (skew $skew)"
    # the schedule fired 100 s ago on the cluster's clock: next in about 200 s, not overdue
    tui_keys Escape Escape H
    tui_wait '^[ >] *frequent +@every 5m'
    line=$(tui_line '^[ >] *frequent +@every 5m')
    echo "$line" | grep -Eq ' in (3m[0-3][0-9]s|2m[0-9]{2}s) ' || tui_fail "next run of frequent: $line"
    echo "$line" | grep -q OVERDUE && tui_fail "frequent is called OVERDUE: $line"
    tui_screen | grep -q OVERDUE && tui_fail "a schedule is called OVERDUE (skew $skew)"
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
    tui_server_stop
    tui_sim_kill
done
echo PASS
