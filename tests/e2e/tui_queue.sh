#!/usr/bin/env bash
# tui_queue.sh: "why is this backup not running?" against scenario queue.yaml, whose truth is
# known: --concurrent-backups=2 in the server pod's args, running-a (shop) and running-b
# (billing) in flight, q1..q5 Queued at positions 1..5; q2 (shop) overlaps running-a, q3 (web,
# api) overlaps q1 (web). --once --json says so of each (the limit full, the overlapping backup
# named, q1's estimated start at running-a's ETA end, q3's unknown because q1 has not started);
# --serve's queue gauges; the detail screen of q2 at 80x24 and 200x50 says it in its Queue /
# Not running / Starts lines. Then scenario queue_dead.yaml: nothing in flight, the head Queued for
# 10 minutes: a "queue-dead" finding on both waiting backups.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done
D=$TUI_DIR
SERVE_PID=""
trap '[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; tui_cleanup' EXIT

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/queue.yaml" --quiet
KC="$D/kubeconfig"

# ---- --once --json ----
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/once.json" || tui_fail "--once --json"
python3 - "$D/once.json" <<'PY' || tui_fail "--once --json: the queue is not the truth"
import json, sys, datetime
d = json.load(open(sys.argv[1]))
runs = {r["name"]: r for r in d["runs"]}
def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
for n in ("running-a", "running-b"):
    assert runs[n]["phase"] == "InProgress" and runs[n]["queue"] is None, (n, runs[n]["queue"])
over = {"q1": None, "q2": "running-a", "q3": "q1", "q4": None, "q5": None}
for i, n in enumerate(["q1", "q2", "q3", "q4", "q5"], 1):
    q = runs[n]["queue"]
    assert runs[n]["phase"] == "Queued", n
    assert q["position"] == i and q["positionFrom"] == "queuePosition", (n, q)
    assert q["aheadCount"] == i + 1, (n, q)
    assert [a["name"] for a in q["ahead"]][:2] == ["running-a", "running-b"], (n, q["ahead"])
    assert q["concurrentBackups"] == 2 and q["concurrentBackupsDefault"] is False, (n, q)
    assert q["concurrentBackupsReason"] is None and q["running"] == 2, (n, q)
    assert q["limitFull"] is True and q["waitsOn"] == "limit", (n, q)
    assert q["overlapsWith"] == over[n], (n, q)
    want = "the concurrency limit is full: 2 of 2 backups running (--concurrent-backups=2)"
    if over[n]:
        want += "; its namespaces overlap backup %s (%s)" % (over[n], runs[over[n]]["phase"])
    assert q["reason"] == want, (n, q["reason"])
# q1 takes the first slot to free: running-a's ETA end (the run answer's, at the same instant)
a = runs["running-a"]
assert a["etaKind"] == "estimate", a
q1 = runs["q1"]["queue"]
assert q1["estimatedStartCaveat"] == "if the runs ahead end as their ETAs say", q1
assert abs(ts(q1["estimatedStart"]) - (datetime.datetime.now().timestamp() + a["etaSeconds"])) < 5, (q1, a["etaSeconds"])
# q2 waits for the second slot (q1 takes the first): running-b's end, after running-a's
assert ts(runs["q2"]["queue"]["estimatedStart"]) > ts(q1["estimatedStart"]), runs["q2"]["queue"]
# q3 overlaps q1, which has not started: no start can be said, and it says why
q3 = runs["q3"]["queue"]
assert q3["estimatedStart"] is None and q3["estimatedStartCaveat"] is None, q3
assert q3["estimatedStartReason"] == "the overlapping backup has not started: its length is unknown", q3
q5 = runs["q5"]["queue"]
assert q5["estimatedStartReason"] == "it waits on runs ahead that have not started: their length is unknown", q5
PY

# ---- --serve: the queue's gauges ----
VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --kubeconfig "$KC" --serve "127.0.0.1:$VPORT" >"$D/serve.out" 2>"$D/serve.err" &
SERVE_PID=$!
end=$((SECONDS + 20))
until curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m.txt" &&
    grep -q '^veltop_backup_queue_length{context="veltop-sim",namespace="velero"} 5$' "$D/m.txt"; do
    [ "$SECONDS" -le "$end" ] || { cat "$D/m.txt" >&2; tui_fail "no queue length 5 in the scrape"; }
    sleep 0.1
done
age=$(sed -n 's/^veltop_backup_queue_oldest_age_seconds{context="veltop-sim",namespace="velero"} \([0-9]*\)$/\1/p' "$D/m.txt")
[ -n "$age" ] && [ "$age" -ge 60 ] && [ "$age" -le 90 ] || tui_fail "oldest queued age '$age', want ~60 s (q1, created 60 s before the start)"

# ---- the detail screen of q2, at 80x24 then 200x50 ----
tui_start 80 24 --kubeconfig "$KC"
tui_wait 'B.q2 +Queued'
tui_keys /
tui_keys q2 Enter
tui_wait_gone 'q1 +Queued'
tui_keys Enter
tui_wait '^Backup q2  Queued'
tui_wait '^Queue position 2, 3 ahead: running-a \(InProgress\), running-b \(InProgress\), q1'
tui_wait '^Not running the concurrency limit is full: 2 of 2 backups running'
tui_wait 'its namespaces overlap backup running-a'
tui_wait '^Starts ~[0-9:]+ \(in [0-9hms]+\), if the runs ahead end as their ETAs say'
tui_resize 200 50
tui_wait '^Not running the concurrency limit is full: 2 of 2 backups running \(--concurrent-backups=2\); its namespaces overlap backup running-a \(InProgress\)$'
tui_wait '^Queue position 2, 3 ahead: running-a \(InProgress\), running-b \(InProgress\), q1 \(Queued\)$'

# ---- a dead queue: nothing in flight, the head Queued for 10 minutes ----
tui_sim_kill
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/queue_dead.yaml" --quiet
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/dead.json" || tui_fail "--once --json (dead queue)"
python3 - "$D/dead.json" <<'PY' || tui_fail "--once --json: no dead queue"
import json, re, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
for n, head in (("stuck-1", "this backup"), ("stuck-2", "stuck-1")):
    d = [x for x in runs[n]["diagnosis"] if x["code"] == "queue-dead"]
    assert len(d) == 1, (n, runs[n]["diagnosis"])
    assert re.fullmatch(r"the backup queue is dead: nothing in progress for (9m5\ds|10m0\ds) while "
                        + head + " Queued waits at its head", d[0]["message"]), d[0]["message"]
    q = runs[n]["queue"]
    assert q["running"] == 0 and q["limitFull"] is False, q
assert runs["stuck-2"]["queue"]["waitsOn"] == "ahead", runs["stuck-2"]["queue"]
assert runs["stuck-1"]["queue"]["waitsOn"] == "none", runs["stuck-1"]["queue"]
PY
echo PASS
