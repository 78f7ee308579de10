#!/usr/bin/env bash
# serve_agree.sh: `veltop --serve` and `veltop --once --json` side by side against one passive
# veltop-sim, parsed without promtool: for the same runs at the same moment they say the same
# thing. Runs in flight: phase, start, items, bytes, ETA (kind exactly, seconds within 5 %),
# stalled, last progress, what the end waits on. Every finding --once --json lists is a series:
# the "queued" findings of two Queued backups, the "server-restarted" finding of a Failed one.
# The newest finished run of each schedule is --once's: phase, end (completionTimestamp exactly),
# items, bytes, duration, errors, warnings; each volume of a run in flight its bytes and size. A run that ends leaves the per-run series and becomes its schedule's last run;
# a schedule whose runs are deleted has no series left. promtool finds the exposition clean.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done

D=$TUI_DIR
VELTOP_PID=""
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; tui_cleanup' EXIT
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
backup() { # NAME SCHEDULE STATUS-JSON
    local labels=""
    [ -n "$2" ] && labels=',"labels":{"velero.io/schedule-name":"'"$2"'"}'
    api POST "$B" '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"'"$1"'","namespace":"velero"'"$labels"'},"spec":{},"status":'"$3"'}'
}

# a backup in flight with a pod volume half moved, two Queued behind it, the finished runs of
# schedule "nightly" (the newer is its last run), and a "weekly" one orphaned by a restart
backup nightly-old nightly '{"phase":"Completed","startTimestamp":"'"$(ts '-3 hours')"'","completionTimestamp":"'"$(ts '-170 minutes')"'","progress":{"totalItems":45,"itemsBackedUp":45}}'
backup nightly-new nightly '{"phase":"PartiallyFailed","startTimestamp":"'"$(ts '-2 hours')"'","completionTimestamp":"'"$(ts '-100 minutes')"'","progress":{"totalItems":50,"itemsBackedUp":48},"errors":2}'
backup crashed weekly '{"phase":"Failed","startTimestamp":"'"$(ts '-70 minutes')"'","completionTimestamp":"'"$(ts '-60 minutes')"'","failureReason":"found a backup with status \"InProgress\" during the server starting, mark it as \"Failed\"","progress":{"totalItems":90,"itemsBackedUp":3}}'
backup big nightly '{"phase":"InProgress","startTimestamp":"'"$(ts '-10 minutes')"'","progress":{"totalItems":100,"itemsBackedUp":40}}'
api POST "$PVB" '{"apiVersion":"velero.io/v1","kind":"PodVolumeBackup","metadata":{"name":"big-a1","namespace":"velero","labels":{"velero.io/backup-name":"big"}},"spec":{"node":"worker-1","pod":{"kind":"Pod","namespace":"shop","name":"db-0"},"volume":"data","uploaderType":"kopia"},"status":{"phase":"InProgress","startTimestamp":"'"$(ts '-9 minutes')"'","progress":{"totalBytes":1073741824,"bytesDone":536870912}}}'
backup q1 "" '{"phase":"Queued"}'
backup q2 nightly '{"phase":"Queued"}'

VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --kubeconfig "$D/kubeconfig" --serve "127.0.0.1:$VPORT" >"$D/veltop.out" 2>"$D/veltop.err" &
VELTOP_PID=$!
M="http://127.0.0.1:$VPORT"

# scrape_until PYTHON-CONDITION [seconds]: scrapes into $D/m.txt until the condition over `text`
# holds
scrape_until() {
    local end=$((SECONDS + ${2:-30}))
    while :; do
        if curl -sf --max-time 2 "$M/metrics" >"$D/m.txt" 2>/dev/null &&
            python3 -c 'import sys; text = open(sys.argv[1]).read(); sys.exit(0 if ('"$1"') else 1)' "$D/m.txt"; then
            return 0
        fi
        kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
        [ "$SECONDS" -le "$end" ] || tui_fail "no scrape where: $1"
        sleep 0.2
    done
}

# agree: one scrape and one --once --json, then the comparison (a scrape rendered before the
# --once started and one after it: the answer of the moment is between them)
agree() {
    curl -sf --max-time 2 "$M/metrics" >"$D/m1.txt" || tui_fail "scrape"
    rc=0
    "$VELTOP" --kubeconfig "$D/kubeconfig" --once --json >"$D/once.json" 2>"$D/once.err" || rc=$?
    [ "$rc" -le 5 ] || { cat "$D/once.err" >&2; tui_fail "--once --json: exit $rc"; }
    python3 - "$D/m1.txt" "$D/once.json" <<'PY'
import calendar, json, re, sys, time
text, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
# the exposition, parsed: (family, labels) -> value
samples = {}
for line in text.splitlines():
    if line.startswith("#"):
        continue
    m = re.fullmatch(r'(\w+)(?:\{(.*)\})? (\S+)', line)  # veltop's own gauges have no labels
    assert m, "not a sample: " + line
    labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")))
    samples[(m.group(1), labels)] = float(m.group(3))
def get(fam, run, **extra):
    want = dict(context="veltop-sim", namespace="velero", kind=run["kind"], name=run["name"],
                schedule=run.get("_schedule", ""), **extra)
    return samples.get((fam, tuple(sorted(want.items()))))
def rules(fam, run):
    return sorted(dict(l)["rule"] for (f, l) in samples if f == fam and dict(l)["name"] == run["name"]
                  and dict(l)["kind"] == run["kind"])
def ts(s):
    return None if s is None else calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
def same(what, got, want):
    assert got == want, "%s: metrics %r, --once --json %r" % (what, got, want)
sched = {"big": "nightly", "q2": "nightly", "nightly-old": "nightly", "nightly-new": "nightly",
         "crashed": "weekly"}
active = ("InProgress", "WaitingForPluginOperations", "WaitingForPluginOperationsPartiallyFailed",
          "Finalizing", "FinalizingPartiallyFailed")
terminal = ("Completed", "PartiallyFailed", "Failed", "FailedValidation")
newest = {}
for r in doc["runs"]:
    r["_schedule"] = sched.get(r["name"], "")
    n = r["name"]
    codes = sorted(d["code"] for d in r["diagnosis"])
    if r["phase"] in terminal:
        k = (r["kind"], r["_schedule"])
        if k not in newest or ts(r["completed"]) > ts(newest[k]["completed"]):
            newest[k] = r
        continue
    # every finding of a run not finished is a series, and no other
    same(n + " findings", rules("veltop_run_diagnosis_info", r), codes)
    if r["phase"] not in active:
        same(n + " not in flight", get("veltop_run_info", r, phase=r["phase"]), None)
        continue
    same(n + " phase", get("veltop_run_info", r, phase=r["phase"]), 1)
    same(n + " start", get("veltop_run_start_timestamp_seconds", r), ts(r["started"]))
    same(n + " items", get("veltop_run_items_done", r), r["itemsDone"])
    same(n + " bytes", get("veltop_run_done_bytes", r), r["bytesDone"])
    same(n + " bytes total", get("veltop_run_expected_bytes", r), r["bytesTotal"])
    st = get("veltop_run_stalled", r)
    same(n + " stalled (%s, waiting on %s)" % (r["stalledReason"], r["waitingOn"]),
         None if st is None else st == 1, r["stalled"])
    eta = get("veltop_run_eta_seconds", r)
    same(n + " ETA kind", "none" if eta is None else "lowerBound" if get("veltop_run_eta_lower_bound", r) == 1 else "estimate", r["etaKind"])
    if eta is not None:
        assert abs(eta - r["etaSeconds"]) <= max(3, 0.05 * r["etaSeconds"]), (n, eta, r["etaSeconds"])
    lp = get("veltop_run_last_progress_timestamp_seconds", r)
    if r["lastProgress"] is None:
        same(n + " last progress", lp, None)
    else:
        assert lp is not None and abs(lp - ts(r["lastProgress"])) < 1, (n, lp, r["lastProgress"])
    w = r["waitingOn"]
    part = {"Items": "items", "PodVolumes": "podVolumes", "PodVolumeBackup": "podVolumes",
            "PluginOperations": "dataMover", "DataUpload": "dataMover", "Finalizing": "finalizing"}[w["kind"]]
    vol = "" if w["name"] is None else {v["name"]: v["pod"] + ":" + v["volume"] for v in r["volumes"]}[w["name"]]
    same(n + " waiting on", get("veltop_run_waiting_info", r, part=part, volume=vol), 1)
    # each volume: bytes done and its size (none while not sized), as --once --json says them
    for v in r["volumes"]:
        label = v["pod"] + ":" + v["volume"] if v["pod"] else v["volume"]
        same(n + " volume " + label + " bytes", get("veltop_volume_done_bytes", r, volume=label), v["bytesDone"])
        same(n + " volume " + label + " size", get("veltop_volume_expected_bytes", r, volume=label), v["bytesTotal"])
# the newest finished run of each kind and schedule, and nothing else
lasts = {(dict(l)["kind"], dict(l)["schedule"]): dict(l)["name"] for (f, l) in samples if f == "veltop_last_run_info"}
same("last runs", lasts, {k: r["name"] for k, r in newest.items()})
for r in newest.values():
    n = r["name"]
    same(n + " last phase", get("veltop_last_run_info", r, phase=r["phase"]), 1)
    same(n + " end", get("veltop_last_run_end_timestamp_seconds", r), ts(r["completed"]))
    same(n + " last items", get("veltop_last_run_items_done", r), r["itemsDone"])
    same(n + " last bytes", get("veltop_last_run_done_bytes", r), r["bytesDone"])
    same(n + " last duration", get("veltop_last_run_duration_seconds", r),
         None if r["started"] is None else ts(r["completed"]) - ts(r["started"]))
    same(n + " last errors", get("veltop_last_run_errors", r), r["errors"])
    same(n + " last warnings", get("veltop_last_run_warnings", r), r["warnings"])
    same(n + " last findings", rules("veltop_last_run_diagnosis_info", r),
         sorted(d["code"] for d in r["diagnosis"]))
flying = sum(r["phase"] in active for r in doc["runs"])
same("in flight", samples.get(("veltop_cluster_runs_in_flight", (("context", "veltop-sim"), ("namespace", "velero")))), flying)
nvol = sum(len(r["volumes"]) for r in doc["runs"] if r["phase"] in active)
print("  agree: %d runs, %d in flight (%d volumes), last runs %s" % (len(doc["runs"]), flying, nvol, sorted(lasts.values())))
PY
}
# agree_now: until they agree, 15 s at most. The exposition is the answer of its last rendering
# (up to 5 s old while no scraper's pace is known: serve.c), and a judgement of time turns (a run
# first seen quiet for 3 s is no longer known to move): the two may straddle one turn, never two
agree_now() {
    local end=$((SECONDS + 15))
    until agree 2>"$D/agree.err"; do
        [ "$SECONDS" -le "$end" ] || { cat "$D/agree.err" >&2; tui_fail "$1: --serve and --once --json disagree"; }
        sleep 0.5
    done
}

scrape_until "'veltop_run_info{' in text and 'name=\"big\"' in text and 'veltop_last_run_info{' in text"
agree_now "in flight, queued, finished"
grep -q '^veltop_run_diagnosis_info{context="veltop-sim",namespace="velero",kind="Backup",name="q1",schedule="",rule="queued"} 1$' "$D/m1.txt" ||
    tui_fail "no queued finding of q1"
grep -q '^veltop_last_run_diagnosis_info{.*name="crashed",schedule="weekly",rule="server-restarted"} 1$' "$D/m1.txt" ||
    tui_fail "no server-restarted finding of crashed"
if command -v promtool >/dev/null; then
    promtool check metrics <"$D/m1.txt" >"$D/check.out" 2>&1 ||
        { cat "$D/check.out" >&2; tui_fail "promtool check metrics is not clean"; }
    [ -s "$D/check.out" ] && { cat "$D/check.out" >&2; tui_fail "promtool check metrics has findings"; }
fi

# big ends: its series go at once, it is nightly's last run with --once's end; the queue empties
api PATCH "$B/big" '{"status":{"phase":"Completed","completionTimestamp":"'"$(ts now)"'","progress":{"totalItems":100,"itemsBackedUp":100}}}'
api PATCH "$PVB/big-a1" '{"status":{"phase":"Completed","completionTimestamp":"'"$(ts now)"'","progress":{"totalBytes":1073741824,"bytesDone":1073741824}}}'
scrape_until "'name=\"big\",schedule=\"nightly\",phase=\"Completed\"} 1' in text and 'veltop_run_info{' not in text"
grep -q 'veltop_run_[a-z_]*{[^}]*name="big"' "$D/m.txt" && tui_fail "a per-run series of big after its end"
agree_now "after big ended"

# the runs of nightly are deleted: no series of that schedule is left
for n in big nightly-new nightly-old q2; do api DELETE "$B/$n"; done
scrape_until "'schedule=\"nightly\"' not in text"
agree_now "after nightly's runs were deleted"
grep -q '^veltop_last_run_info{.*name="crashed"' "$D/m.txt" || tui_fail "weekly's last run is gone too"

kill -TERM "$VELTOP_PID"
rc=0
wait "$VELTOP_PID" || rc=$?
VELTOP_PID=""
[ "$rc" = 0 ] || { cat "$D/veltop.err" >&2; tui_fail "SIGTERM: exit $rc"; }
[ -s "$D/veltop.err" ] && { cat "$D/veltop.err" >&2; tui_fail "veltop --serve wrote to stderr"; }
echo "serve_agree: ok"
