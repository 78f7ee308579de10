#!/usr/bin/env bash
# health_restorable.sh: restore readiness per schedule against a known truth
# (tests/fixtures/scenarios/restorable.yaml): the daily schedule's newest restorable backup is
# daily-3d (Completed, 3 days old: the three newer ones Failed), older than two intervals -- a
# finding on the health verdict, --once --json, the metrics and the health screen at 80x24 and
# 200x50 -- restored 2 days ago by r-daily; weekly's is weekly-1d (PartiallyFailed, 2 errors),
# fresh, never restored. With the backups or the restores forbidden those figures are unknown
# with why, never "none".
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 0; }

D=$TUI_DIR
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/restorable.yaml" --quiet
export KUBECONFIG="$D/kubeconfig"

rc=0
"$VELTOP" --once --json >"$D/o.json" 2>"$D/o.err" || rc=$?
[ "$rc" = 5 ] || [ "$rc" = 0 ] || tui_fail "--once --json exited $rc: $(cat "$D/o.err")"
python3 - "$D/o.json" <<'PY' || tui_fail "--once --json restorable: $(cat "$D/o.json")"
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["schedules"]}
r = s["daily"]["restorable"]
age = r.pop("ageSeconds")
assert 3 * 86400 - 5 <= age < 3 * 86400 + 300, age
assert r.pop("startTimestamp").endswith("Z")
assert r.pop("lastRestore").endswith("Z")
assert r == {"backup": "daily-3d", "phase": "Completed", "errors": 0, "intervalSeconds": 86400,
             "stale": True, "storageLocation": "default", "bslAvailable": True,
             "bslReason": None, "lastRestoreName": "r-daily"}, r
w = s["weekly"]["restorable"]
assert 86400 - 5 <= w.pop("ageSeconds") < 86400 + 300
w.pop("startTimestamp")
assert w == {"backup": "weekly-1d", "phase": "PartiallyFailed", "errors": 2,
             "intervalSeconds": 604800, "stale": False, "storageLocation": "default",
             "bslAvailable": True, "bslReason": None, "lastRestore": None,
             "lastRestoreName": None}, w
assert d["health"]["ok"] is False, d["health"]
assert "  daily: newest restorable 3d00h old" in d["health"]["summary"], d["health"]
assert "weekly: newest restorable" not in d["health"]["summary"], d["health"]
PY
echo "--once --json: ok"

# the exporter: the same figures
VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --serve "127.0.0.1:$VPORT" >"$D/serve.out" 2>"$D/serve.err" &
VPID=$!
trap 'kill $VPID 2>/dev/null; tui_cleanup' EXIT
end=$((SECONDS + 20))
until curl -sf --max-time 2 "http://127.0.0.1:$VPORT/metrics" >"$D/m.txt" &&
    grep -q '^veltop_schedule_restorable_stale{' "$D/m.txt"; do
    kill -0 "$VPID" 2>/dev/null || tui_fail "veltop --serve exited: $(cat "$D/serve.err")"
    [ "$SECONDS" -le "$end" ] || tui_fail "no restorable series within 20 s"
    sleep 0.2
done
L='context="veltop-sim",namespace="velero"'
for want in "veltop_schedule_restorable_stale{$L,schedule=\"daily\"} 1" \
    "veltop_schedule_restorable_stale{$L,schedule=\"weekly\"} 0" \
    "veltop_schedule_restorable_location_available{$L,schedule=\"daily\"} 1" \
    "veltop_last_run_errors{$L,kind=\"Backup\",name=\"weekly-1d\",schedule=\"weekly\"} 2"; do
    grep -qxF "$want" "$D/m.txt" || tui_fail "metrics lack '$want'"
done
python3 - "$D/m.txt" <<'PY' || tui_fail "metrics: $(grep -E 'restor|build_info' "$D/m.txt")"
import re, sys
t = open(sys.argv[1]).read()
def val(series):
    m = re.search("^" + re.escape(series) + r" (\S+)$", t, re.M)
    return float(m.group(1)) if m else None
L = 'context="veltop-sim",namespace="velero"'
age = val('veltop_schedule_restorable_age_seconds{%s,schedule="daily"}' % L)
assert age is not None and 3 * 86400 - 5 <= age < 3 * 86400 + 300, age
assert val('veltop_schedule_last_restore_timestamp_seconds{%s,schedule="daily"}' % L) > 0
assert val('veltop_schedule_last_restore_timestamp_seconds{%s,schedule="weekly"}' % L) is None
assert re.search(r'^veltop_build_info\{version="[^"]+"\} 1$', t, re.M), "build_info"
PY
kill "$VPID"
wait "$VPID" 2>/dev/null
echo "metrics: ok"

# the health screen, at 80x24 (the finding before the cut) and at 200x50 (the whole line)
tui_start 80 24
tui_wait '● live'
tui_keys H
tui_wait '^    restorable: daily-3d \(3d00h ago, Completed\), older than 2 intervals \(1d00h\)'
tui_wait '^    restorable: weekly-1d \(1d00h ago, PartiallyFailed, 2 errors\), BSL default A'
tui_resize 200 50
tui_wait '^    restorable: daily-3d \(3d00h ago, Completed\), older than 2 intervals \(1d00h\), BSL default Available, last restore 2d00h ago$'
tui_wait '^    restorable: weekly-1d \(1d00h ago, PartiallyFailed, 2 errors\), BSL default Available, no restore found$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not quit with 0"
tui_server_stop
echo "health screen: ok"

# backups forbidden (--once refuses a lone cluster it cannot read): the screen says unknown,
# with why, not "none" and no finding
tui_sim_kill
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/restorable.yaml" --faults forbid=backups --quiet
tui_start 200 50
tui_wait 'forbidden'
tui_keys H
tui_wait '^    restorable: unknown \(cannot read backups: forbidden\), last restore 2d00h ago$'
tui_screen | grep -q 'older than 2 intervals' && tui_fail "a finding on backups not read"
tui_server_stop

# restores forbidden: the last restore is unknown, with why (not "no restore found"); the
# rest stands
tui_sim_kill
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/restorable.yaml" --faults forbid=restores --quiet
tui_start 200 50
tui_wait 'forbidden'
tui_keys H
tui_wait '^    restorable: daily-3d \(3d00h ago, Completed\), older than 2 intervals \(1d00h\), BSL default Available, last restore unknown \(cannot read restores: forbidden\)$'
tui_wait '^    restorable: weekly-1d .*, last restore unknown \(cannot read restores: forbidden\)$'
tui_server_stop
echo "forbidden lists: ok"
