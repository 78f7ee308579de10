#!/usr/bin/env bash
# tui_diagnose.sh: "why is it stuck?" against the sim scenarios that produce each rule
# (tests/fixtures/scenarios/stuck.yaml, health.yaml): the list marks the run, its detail screen
# says why with the evidence, and --once --json carries the same codes per run.
. "$(dirname "$0")/tui_lib.bash" || exit 1

# open_run NAME: the detail screen of the run NAME (through the list's filter)
open_run() {
    tui_keys Escape Escape
    tui_wait 'Backups & Restores *$'
    tui_keys / "$1" Enter
    tui_wait "^filter: /$1"
    tui_keys Enter
    tui_wait "^(Backup|Restore) $1 "
}

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/stuck.yaml" --quiet
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" ||
    tui_fail "--once --json failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json diagnosis"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"running": [], "queued-1": ["queued"], "queued-2": ["queued"],
        "no-agent": ["node-agent-not-ready"], "exposer": ["exposer-stuck"],
        "offsite": ["bsl-unavailable"], "hung": ["all-done-phase-stuck"]}
got = {r["name"]: [x["code"] for x in r["diagnosis"]] for r in d["runs"]}
assert got == want, got
q2 = [r for r in d["runs"] if r["name"] == "queued-2"][0]["diagnosis"][0]
import re
assert re.fullmatch(r"Queued at position 2, behind backup running \(InProgress for (9m5\d|10m0\d)s\)",
                    q2["message"]), q2
assert q2["since"].endswith("Z"), q2
for r in d["runs"]:
    for x in r["diagnosis"]:
        assert set(x) == {"code", "message", "since"}, x
off = [s for s in d["storageLocations"] if s["name"] == "offsite"][0]
assert off["phase"] == "Unavailable" and off["default"] is False, off
assert off["message"].endswith("connect: connection refused"), off
assert [a["node"] for a in d["nodeAgents"]] == ["worker-1", "worker-2"], d["nodeAgents"]
assert d["velero"]["pod"] == "velero-7d8f9c6b54-x2k8p" and d["velero"]["ready"] is True, d["velero"]
assert d["velero"]["version"] == "v1.18.2" and d["velero"]["restarts"] == 0, d["velero"]
PY

tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# the list marks every stuck run, not the one that moves
for r in queued-1 queued-2 no-agent exposer offsite hung; do tui_wait "^B⚠$r "; done
tui_wait '^B running '
open_run queued-2
tui_wait '^Stuck\? since [0-9:]{8}  Queued at position 2, behind backup running \(InProgress for (9m5[0-9]|10m[0-9]{2})s\)'
open_run no-agent
tui_wait '^Stuck\? since [0-9:]{8}  PodVolumeBackup no-agent-[a-z0-9]{5} New for 3m[0-9]{2}s on node worker-3, which has no node-agent pod'
open_run exposer
tui_wait '^Stuck\? since [0-9:]{8}  DataUpload exposer-[a-z0-9]{5} Accepted for 8m[0-9]{2}s: its data-mover pod has not become ready'
open_run offsite
tui_wait '^Stuck\? since [0-9:]{8}  storage location offsite is Unavailable \(last validated [0-9:]{8}\): rpc error: code = Unknown desc = dial tcp 10\.0\.0\.9:9000'
open_run hung
tui_wait '^Stuck\? since [0-9:]{8}  all 20 items and 1 volume done [56]m[0-9]{2}s ago, but the phase is still InProgress'
open_run running
tui_screen | grep -q '^Stuck?' && tui_fail "a moving run is called stuck"
tui_keys q
tui_wait_exit >/dev/null
# a fresh tmux server for the next start: a new client racing the old one's exit fails
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-n"
tui_sim_kill
TUI_SIM_PORT=""

# stock Velero (no resourceProgress: veltop follows the server log): the log went quiet
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/silent.yaml" --no-resource-progress --quiet
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^B⚠quiet '
open_run quiet
tui_wait '^Stuck\? since [0-9:]{8}  the Velero server has logged nothing for this backup for (9|10)m[0-9]{2}s; its last line: Backed up 10 items out of an estimated total of 10'
[ "$(tui_screen | grep -c '^Stuck?')" = 1 ] || tui_fail "quiet: more than the log-silent finding"
tui_keys q
tui_wait_exit >/dev/null
# a fresh tmux server for the next start: a new client racing the old one's exit fails
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-n"
tui_sim_kill
TUI_SIM_PORT=""

# the server restarts (OOMKilled) 2 s into the run: orphaned until the server is back
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --quiet
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^B⚠orphaned '
open_run orphaned
tui_wait '^Stuck\? since [0-9:]{8}  the Velero server restarted at [0-9:]{8} \(OOMKilled, exit 137\) after this backup started: Velero marks it Failed when it starts again'
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" ||
    tui_fail "--once --json failed"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json restart"
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
assert run["name"] == "orphaned", run
# the default location is Unavailable in this scenario too
assert [x["code"] for x in run["diagnosis"]] == ["server-restarted", "bsl-unavailable"], run
v = d["velero"]
assert v["ready"] is False and v["restarts"] == 1 and v["lastRestartReason"] == "OOMKilled", v
assert v["lastRestart"].endswith("Z"), v
s = {x["name"]: x for x in d["schedules"]}
assert s["nightly"]["overdue"] is True and s["nightly"]["lastBackup"] is None, s
assert s["nightly"]["schedule"] == "0 1 * * *" and s["nightly"]["paused"] is False, s
assert s["hourly"]["overdue"] is False and s["hourly"]["nextRun"].endswith("Z"), s
assert d["storageLocations"][0]["phase"] == "Unavailable", d["storageLocations"]
assert [(a["node"], a["ready"]) for a in d["nodeAgents"]] == [("worker-1", True), ("worker-2", False)]
PY
echo "PASS tui_diagnose"
