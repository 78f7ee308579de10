#!/usr/bin/env bash
# repo_maintenance.sh: repository maintenance against a known truth (scenario repo_maintenance:
# app-default-kopia-x7k2p's last 3 maintenances failed, its last success 5h ago, due every 1h;
# db's newest succeeded 30m ago; logs is NotReady, never maintained). Every surface says the
# same: --once --json ("repositories", the diagnosis, health needing attention), the exporter
# (failure streak 3, last maintenance age 5h, overdue, phase), the health screen at 80x24 and
# 200x50, and one key (y: as YAML) describes a repository. With backuprepositories forbidden: unknown
# with why on every surface ("cannot read backuprepositories: forbidden", repositories null, no
# series, --once incomplete), never "none", and the lamp stays live (the runs are still current).
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in curl python3; do
    command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 0; }
done
VELTOP_PID=""
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; tui_cleanup' EXIT

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_maintenance.yaml" --quiet
rc=0
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" || rc=$?
[ "$rc" = 0 ] || tui_fail "--once: status $rc, $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json: $(cat "$TUI_DIR/once.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["repositoriesUnknown"] is None, d["repositoriesUnknown"]
r = {x["name"]: x for x in d["repositories"]}
assert sorted(r) == ["app-default-kopia-x7k2p", "db-default-kopia-a1b2c", "logs-default-restic-q9w8e"], r
a = r["app-default-kopia-x7k2p"]
assert a["failedStreak"] == 3 and a["failedStreakAtLeast"] is False, a
assert a["recentMaintenances"] == 4 and a["overdue"] is True, a
assert a["maintenanceFrequency"] == "1h0m0s" and a["maintenanceFrequencySeconds"] == 3600, a
assert 18000 <= a["lastMaintenanceAgeSeconds"] <= 18060, a
assert a["lastResult"]["result"] == "Failed", a
assert a["lastResult"]["message"] == "repo maintenance job failed: pod OOMKilled", a
assert a["diagnosis"] == ("repository app-default-kopia-x7k2p: maintenance failed 3 times, last: "
                          "repo maintenance job failed: pod OOMKilled"), a["diagnosis"]
b = r["db-default-kopia-a1b2c"]
assert b["failedStreak"] == 0 and b["overdue"] is False and b["diagnosis"] is None, b
assert 1800 <= b["lastMaintenanceAgeSeconds"] <= 1860, b
c = r["logs-default-restic-q9w8e"]
assert c["phase"] == "NotReady" and c["lastMaintenanceAgeSeconds"] is None, c
assert c["lastMaintenanceTime"] is None and c["lastResult"] is None, c
assert c["diagnosis"] == ("repository logs-default-restic-q9w8e: NotReady: error to init backup "
                          "repository: repository not initialized"), c
assert d["health"]["ok"] is False, d["health"]
assert "repositories 3 (1 failing, 2 overdue, 1 not ready)" in d["health"]["summary"], d["health"]
PY

# the exporter
VPORT=$(free_port)
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --serve "127.0.0.1:$VPORT" >"$TUI_DIR/veltop.out" 2>"$TUI_DIR/veltop.err" &
VELTOP_PID=$!
scrape() { # waits for a scrape that has (or, with -v, has no) a veltop_repository_ series
    local want=$1 end=$((SECONDS + 30))
    while [ "$SECONDS" -le "$end" ]; do
        if curl -sf --max-time 2 "http://127.0.0.1:$VPORT/metrics" >"$TUI_DIR/m.txt" &&
            grep -q '^veltop_cluster_runs_in_flight' "$TUI_DIR/m.txt"; then
            if [ "$want" = has ]; then grep -q '^veltop_repository_' "$TUI_DIR/m.txt" && return 0
            else return 0; fi
        fi
        kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop --serve exited"; }
        sleep 0.1
    done
    tui_fail "no scrape with the repositories: $(cat "$TUI_DIR/m.txt" 2>/dev/null)"
}
scrape has
L='context="veltop-sim",namespace="velero",repository="app-default-kopia-x7k2p",volume_namespace="app",storage_location="default",repository_type="kopia"'
grep -qxF "veltop_repository_maintenance_failure_streak{$L} 3" "$TUI_DIR/m.txt" || tui_fail "streak: $(grep repository "$TUI_DIR/m.txt")"
grep -qxF "veltop_repository_maintenance_overdue{$L} 1" "$TUI_DIR/m.txt" || tui_fail "overdue: $(grep repository "$TUI_DIR/m.txt")"
grep -qxF "veltop_repository_maintenance_frequency_seconds{$L} 3600" "$TUI_DIR/m.txt" || tui_fail "frequency"
grep -qxF "veltop_repository_phase{$L,phase=\"Ready\"} 1" "$TUI_DIR/m.txt" || tui_fail "phase"
age=$(sed -n "s/^veltop_repository_last_maintenance_age_seconds{$L} //p" "$TUI_DIR/m.txt")
[ -n "$age" ] && [ "$age" -ge 18000 ] && [ "$age" -le 18060 ] || tui_fail "age '$age'"
# never maintained: no age sample (unknown), not 0; no result yet: no streak sample
grep -q '^veltop_repository_last_maintenance_age_seconds{.*logs-default-restic' "$TUI_DIR/m.txt" &&
    tui_fail "an age for a repository never maintained"
grep -q '^veltop_repository_maintenance_failure_streak{.*logs-default-restic' "$TUI_DIR/m.txt" &&
    tui_fail "a streak for a repository without results"
kill "$VELTOP_PID"; wait "$VELTOP_PID" 2>/dev/null; VELTOP_PID=""

# the health screen, 80x24 then 200x50
tui_start 80 24 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^health ATTENTION '
tui_keys H
tui_wait '^Repositories \(3\)  1 failing, 2 overdue, 1 not ready *$'
tui_wait '^  NAME +PHASE +LAST OK +EVERY +FAILED MESSAGE *$'
tui_wait '^  app-default-kopia-x7k2p +Ready +5h0[01]m ago +1h00m +3 +last: repo main…$'
# the queue line and each repository's jobs line make the screen longer than 24 rows: G
# selects the last repository, and the view follows it
tui_keys G
tui_wait '^  db-default-kopia-a1b2c +Ready +30m[0-9]{2}s ago +1h00m +0 *$'
tui_wait '^> logs-default-restic-q9w8e NotReady +never +7d00h +- +error to init b…$'
tui_wait '^    maintenance jobs: none$'
# the last object selected and described: the repository as the API server has it
tui_keys G
tui_wait '^> logs-default-restic-q9w8e NotReady'
tui_keys y
tui_wait '^Describe repository logs-default-restic-q9w8e .* lines as YAML'
tui_wait '^kind: BackupRepository$'
tui_keys Escape
tui_wait '^Repositories \(3\)'
tui_resize 200 50
tui_wait '^  NAME +VOLUME NS +BSL +TYPE +PHASE +LAST OK +EVERY +FAILED +MESSAGE *$'
tui_wait '^  app-default-kopia-x7k2p +app +default +kopia +Ready +5h0[01]m ago +1h00m +3 +last: repo maintenance job failed: pod OOMKilled *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
tui_server_stop
tui_sim_kill
TUI_SIM_PORT=""

# forbidden: unknown with why, everywhere
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_maintenance.yaml" --faults forbid=backuprepositories --quiet
rc=0
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" || rc=$?
[ "$rc" = 5 ] || tui_fail "--once with backuprepositories forbidden: status $rc, $(cat "$TUI_DIR/once.err")"
grep -qx 'veltop: incomplete: not visible: backuprepositories forbidden' "$TUI_DIR/once.err" ||
    tui_fail "--once stderr: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json forbidden: $(cat "$TUI_DIR/once.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["repositories"] is None, d["repositories"]
assert d["repositoriesUnknown"] == "cannot read backuprepositories: forbidden", d
assert d["health"]["ok"] is None, d["health"]
assert d["health"]["unknown"] == "cannot read backuprepositories: forbidden", d["health"]
assert "repositories" not in d["health"]["summary"], d["health"]
PY
VPORT=$(free_port)
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --serve "127.0.0.1:$VPORT" >"$TUI_DIR/veltop.out" 2>"$TUI_DIR/veltop.err" &
VELTOP_PID=$!
scrape any
grep -q '^veltop_repository_' "$TUI_DIR/m.txt" && tui_fail "repository series while they cannot be read"
kill "$VELTOP_PID"; wait "$VELTOP_PID" 2>/dev/null; VELTOP_PID=""
tui_start 80 24 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^health unknown: cannot read backuprepositories: forbidden'
tui_keys H
tui_wait '^Repositories *$'
tui_wait '^  unknown: cannot read backuprepositories: forbidden *$'
tui_screen | grep -q '^  none' && tui_fail "repositories shown as none while forbidden"
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS repo_maintenance"
