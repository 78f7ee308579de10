#!/usr/bin/env bash
# repo_jobs.sh: repository maintenance Jobs (batch/v1, label velero.io/repo-name) against scenario
# repo_jobs.yaml, whose truth is in its header: app's three failed Jobs (40 s each, 1h/2h/3h ago)
# and one running for 2 minutes; db's succeeded 31 minutes ago after 45 s; the long-named
# repository's Job found by the SHA3-224 label Velero gives it; logs none. --once --json lists
# them per repository; the health screen says them under each repository's row (80x24, 200x50);
# `l` on a repository row opens its newest Job's pod log in the pager (running: followed). With
# jobs forbidden: "maintenance jobs: unknown (forbidden)" and maintenanceJobs null, never none;
# with a Role without jobs (--rbac), --once exits 5 and names "jobs forbidden" (stderr, JSON
# incomplete, health unknown).
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_jobs.yaml" --quiet
KC="$TUI_DIR/kubeconfig"

"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json jobs: $(cat "$TUI_DIR/once.json")"
import json, sys, re
d = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in d["repositories"]}
a = r["app-default-kopia-x7k2p"]
assert a["maintenanceJobsUnknown"] is None, a
j = a["maintenanceJobs"]
assert [x["state"] for x in j] == ["running", "failed", "failed", "failed"], j
assert j[0]["durationSeconds"] is None and j[0]["endTime"] is None, j[0]
assert all(x["durationSeconds"] == 40 for x in j[1:]), j
assert all(x["message"] == "Job has reached the specified backoff limit" for x in j[1:]), j
for x in j:
    assert re.fullmatch(r"app-default-kopia-x7k2p-maintain-job-\d{13}", x["name"]), x
    assert x["pod"].startswith(x["name"] + "-"), x
db = r["db-default-kopia-a1b2c"]["maintenanceJobs"]
assert [(x["state"], x["durationSeconds"]) for x in db] == [("succeeded", 45)], db
long = r["long-namespace-name-for-a-repository-default-kopia-abcdefghijklmn"]["maintenanceJobs"]
assert [(x["state"], x["durationSeconds"]) for x in long] == [("succeeded", 30)], long
assert long[0]["name"].startswith("repo-maintain-job-"), long  # the name is over 63: Velero's short one
assert r["logs-default-restic-q9w8e"]["maintenanceJobs"] == [], r["logs-default-restic-q9w8e"]
PY

# ---- the health screen, 200x50 ----
tui_start 200 50 --kubeconfig "$KC"
tui_wait '^ ● live'
tui_keys H
tui_wait '^Repositories \(4\)'
tui_wait '^    maintenance jobs: running app-default-kopia-x7k2p-maintain-job-[0-9]{13} \(started 2m0[0-9]s ago\); last: failed 59m[0-9]{2}s ago \(took 40s\): Job has reached the specified backoff limit, failed 1h59m ago'
tui_wait '^  db-default-kopia-a1b2c .*$'
tui_wait '^    maintenance jobs: last: succeeded 30m[0-9]{2}s ago \(took 45s\)$'
tui_wait '^    maintenance jobs: last: succeeded 20m[0-9]{2}s ago \(took 30s\)$'
tui_wait '^    maintenance jobs: none$'
# l on app's row: its newest Job's pod log (the running one: followed), every line
tui_keys G k k k
tui_wait '^> app-default-kopia-x7k2p '
tui_keys l
tui_wait '^Log of pod app-default-kopia-x7k2p-maintain-job-[0-9]{13}-[a-z0-9]+  2 lines, following  \(the pod runs\)$'
tui_wait '^time="x" level=info msg="Running maintenance on backup repository" repo=app-default-kopia-x7k2p$'
tui_wait '^time="x" level=info msg="Start to maintain repo"$'
tui_keys Escape
tui_wait '^Repositories \(4\)'
tui_keys k
tui_wait '^> ' # a location or the server: l says what it is for
tui_keys l
tui_wait 'l: select a repository \(j/k\) for its maintenance job.s log'
tui_resize 80 24
tui_keys G k
tui_wait '^> logs-default-restic-q9w8e '
tui_wait '^    maintenance jobs: none$'
tui_server_stop
tui_sim_kill
TUI_SIM_PORT=""

# ---- jobs forbidden: unknown with why, never none ----
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_jobs.yaml" --faults forbid=jobs --quiet
"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/f.json" 2>"$TUI_DIR/f.err" || true
python3 - "$TUI_DIR/f.json" <<'PY' || tui_fail "--once --json jobs forbidden: $(cat "$TUI_DIR/f.json")"
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["repositories"]:
    assert x["maintenanceJobs"] is None and x["maintenanceJobsUnknown"] == "forbidden", x
PY
tui_start 120 40 --kubeconfig "$KC"
tui_wait '^ ● '
tui_keys H
tui_wait '^Repositories \(4\)'
n=$(tui_screen | grep -c '^    maintenance jobs: unknown (forbidden)$')
[ "$n" = 4 ] || tui_fail "$n rows say 'maintenance jobs: unknown (forbidden)', want 4"
tui_screen | grep -q 'maintenance jobs: none' && tui_fail "a forbidden list shown as none"
tui_server_stop
tui_sim_kill
TUI_SIM_PORT=""

# ---- a Role without batch/v1 jobs (the sim's RBAC): the maintenance jobs are part of the health
# answer, so --once says the answer is not whole in every way it says so: exit 5, stderr and
# JSON's "incomplete" name the list, health unknown with why (not only the lamp's "forbidden")
cat >"$TUI_DIR/nojobs.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: velero-viewer-without-jobs
rules:
  - apiGroups: [velero.io]
    resources: ["*"]
    verbs: [get, list, watch]
  - apiGroups: [""]
    resources: [pods, pods/log]
    verbs: [get, list, watch]
  - apiGroups: [apps]
    resources: [daemonsets]
    verbs: [get, list, watch]
YAML
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_jobs.yaml" --rbac "$TUI_DIR/nojobs.yaml" --quiet
st=0
"$VELTOP" --kubeconfig "$KC" --once >"$TUI_DIR/r.txt" 2>"$TUI_DIR/r.err" || st=$?
[ "$st" = 5 ] || tui_fail "--once with jobs forbidden by RBAC: exit $st, want 5"
grep -qx 'veltop: incomplete: not visible: jobs forbidden' "$TUI_DIR/r.err" ||
    tui_fail "--once stderr: $(cat "$TUI_DIR/r.err")"
st=0
"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/r.json" 2>/dev/null || st=$?
[ "$st" = 5 ] || tui_fail "--once --json with jobs forbidden by RBAC: exit $st, want 5"
python3 - "$TUI_DIR/r.json" <<'PY' || tui_fail "--once --json, jobs forbidden by RBAC: $(cat "$TUI_DIR/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["lamp"] == "forbidden", d["lamp"]
assert d["incomplete"] == ["jobs forbidden"], d["incomplete"]
assert d["health"]["unknown"] == "cannot read jobs: forbidden", d["health"]
for x in d["repositories"]:
    assert x["maintenanceJobs"] is None and x["maintenanceJobsUnknown"] == "forbidden", x
PY
echo PASS
