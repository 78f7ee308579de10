#!/usr/bin/env bash
# once_basic.sh: `veltop --once [--json]` against veltop-sim's basic scenario: the finished runs'
# fixed counts, phases, resources and volumes equal the scenario's; the table has its columns;
# exit status 1 (one line on stderr) when the cluster cannot be reached, 2 for usage and
# configuration errors; --help lists every option; --demo works too.
. "$(dirname "$0")/tui_lib.bash" || exit 1

SCEN="$FIXTURES_DIR/scenarios/basic.yaml"
tui_sim_start --scenario "$SCEN" --quiet --resource-progress
KC="$TUI_DIR/kubeconfig"

"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --json failed: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" "$TUI_SIM_URL" <<'PY' || tui_fail "--once --json differs from the scenario"
import json, sys
doc = json.load(open(sys.argv[1]))
url = sys.argv[2]
assert doc["server"] == url, doc["server"]
assert doc["namespace"] == "velero", doc["namespace"]
runs = {(r["kind"], r["name"]): r for r in doc["runs"]}
names = [r["name"] for r in doc["runs"]]
assert set(names) >= {"backup-done", "backup-inprogress", "backup-failed", "backup-partial",
                      "restore-done", "restore-inprogress"}, names
# newest first
starts = [r["started"] for r in doc["runs"] if r["started"]]
assert starts == sorted(starts, reverse=True), starts

def check(kind, name, phase, done, total, errors, warnings):
    r = runs[(kind, name)]
    got = (r["phase"], r["itemsDone"], r["itemsTotal"], r["errors"], r["warnings"])
    want = (phase, done, total, errors, warnings)
    assert got == want, (name, got, want)
    assert r["etaSeconds"] is None, (name, r["etaSeconds"])
    assert isinstance(r["itemsPerSecond"], (int, float)) and r["itemsPerSecond"] > 0, r
    assert r["completed"] and r["completed"].endswith("Z"), r["completed"]
    return r

b = check("Backup", "backup-done", "Completed", 55, 55, 0, 2)
assert [(x["resource"], x["done"], x["total"]) for x in b["resources"]] == [
    ("namespaces", 2, 2), ("pods", 20, 20), ("deployments.apps", 5, 5), ("services", 6, 6),
    ("configmaps", 10, 10), ("secrets", 8, 8), ("persistentvolumeclaims", 2, 2),
    ("persistentvolumes", 2, 2)], b["resources"]
assert len(b["volumes"]) == 1, b["volumes"]
v = b["volumes"][0]
assert (v["kind"], v["pod"], v["volume"], v["uploader"], v["phase"], v["bytesDone"], v["bytesTotal"]) == \
    ("PodVolumeBackup", "shop/db-0", "data", "kopia", "Completed", 64 << 20, 64 << 20), v
f = check("Backup", "backup-failed", "Failed", 10, 20, 1, 0)
assert f["failureReason"] == "rpc error: code = Unavailable desc = error reading from server: EOF", f
assert b["failureReason"] is None and b["itemsTotalEstimated"] is False, b
assert runs[("Backup", "backup-inprogress")]["itemsTotalEstimated"] is True
p = check("Backup", "backup-partial", "PartiallyFailed", 30, 30, 3, 1)
assert [(x["resource"], x["total"]) for x in p["resources"]] == [
    ("namespaces", 2), ("pods", 16), ("secrets", 12)], p["resources"]
r = check("Restore", "restore-done", "Completed", 55, 55, 0, 0)
assert [(x["kind"], x["bytesDone"]) for x in r["volumes"]] == [("PodVolumeRestore", 64 << 20)], r["volumes"]
# a run in flight: counts are numbers, the total is the scenario's estimate, an ETA is known
ip = runs[("Backup", "backup-inprogress")]
assert ip["phase"] == "InProgress" and ip["completed"] is None, ip
assert 0 < ip["itemsDone"] < ip["itemsTotal"] <= 119, ip
assert isinstance(ip["etaSeconds"], (int, float)) and ip["etaSeconds"] > 0, ip
assert sorted(x["kind"] for x in ip["volumes"]) == ["DataUpload", "PodVolumeBackup", "PodVolumeBackup"], ip["volumes"]
# the run's own answers: a finished run's volume bytes and their average rate, nothing to wait on
assert (b["bytesDone"], b["bytesTotal"], b["stalled"], b["waitingOn"], b["etaSeconds"],
        b["etaLowerBound"], b["etaKind"], b["etaReason"]) == \
    (64 << 20, 64 << 20, False, None, None, None, "none", "not running"), b
assert b["bytesPerSecond"] > 0, b
# in flight: what its end waits on, and the volumes' bytes summed
assert ip["waitingOn"] and ip["waitingOn"]["kind"] in ("Items", "PodVolumeBackup", "DataUpload"), ip
assert ip["bytesTotal"] == sum(x["bytesTotal"] for x in ip["volumes"]), ip
# one list is no evidence of motion by itself: the server's write times (managedFields) are
assert ip["stalled"] is False and ip["lastProgressEvidence"] == "managedFields", ip
assert ip["etaKind"] == "estimate" and ip["etaLowerBound"] is False, ip
PY

# the plain table
"$VELTOP" --kubeconfig "$KC" --once >"$TUI_DIR/once.txt" || tui_fail "--once failed"
head -n 1 "$TUI_DIR/once.txt" | grep -Eq '^NAME +KIND +PHASE +ITEMS +RESOURCES +VOLUME BYTES +RATE +ETA +STARTED +DURATION +ERRORS +WARNINGS$' ||
    tui_fail "table header: $(head -n 1 "$TUI_DIR/once.txt")"
grep -Eq '^backup-done +Backup +Completed +55/55 +8/8 +64.0 MiB/64.0 MiB +[0-9.]+/s +- +[0-9T:-]+Z +[0-9ms]+ +0 +2$' "$TUI_DIR/once.txt" ||
    tui_fail "table row: $(cat "$TUI_DIR/once.txt")"
grep -Eq '^backup-failed +Backup +Failed +10/20 ' "$TUI_DIR/once.txt" || tui_fail "no failed row"
# the total is Velero's estimate while in progress (~); no volumes: a dash
grep -Eq '^backup-inprogress +Backup +InProgress +[0-9]+/~[0-9]+ ' "$TUI_DIR/once.txt" || tui_fail "no ~ total"
grep -Eq '^backup-failed +Backup +Failed +10/20 +1/3 +- ' "$TUI_DIR/once.txt" || tui_fail "no dash for no volumes"

# errors: exit 2 with one line for usage and configuration, 1 when the cluster is unreachable
"$VELTOP" --bogus >/dev/null 2>"$TUI_DIR/err"; st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$TUI_DIR/err")" = 1 ] || tui_fail "--bogus: status $st, $(cat "$TUI_DIR/err")"
"$VELTOP" --kubeconfig "$TUI_DIR/missing" --once >/dev/null 2>"$TUI_DIR/err"; st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$TUI_DIR/err")" = 1 ] || tui_fail "missing kubeconfig: status $st"
"$VELTOP" --json >/dev/null 2>&1; [ $? = 2 ] || tui_fail "--json without --once accepted"
# configuration is loaded (and its error reported) before the terminal is looked at
"$VELTOP" --kubeconfig "$KC" --context missing </dev/null >/dev/null 2>"$TUI_DIR/err"; st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$TUI_DIR/err")" = 1 ] && grep -q 'context "missing" not found' "$TUI_DIR/err" ||
    tui_fail "--context missing without a tty: status $st, $(cat "$TUI_DIR/err")"
"$VELTOP" --kubeconfig "$KC" </dev/null >/dev/null 2>"$TUI_DIR/err"; st=$?
[ "$st" = 2 ] && grep -q 'not a terminal' "$TUI_DIR/err" || tui_fail "no tty: status $st, $(cat "$TUI_DIR/err")"
sed "s#$TUI_SIM_URL#http://127.0.0.1:1#" "$KC" >"$TUI_DIR/dead.kubeconfig"
"$VELTOP" --kubeconfig "$TUI_DIR/dead.kubeconfig" --once >/dev/null 2>"$TUI_DIR/err"; st=$?
[ "$st" = 1 ] && [ "$(wc -l <"$TUI_DIR/err")" = 1 ] && grep -q '127.0.0.1:1' "$TUI_DIR/err" ||
    tui_fail "unreachable: status $st, $(cat "$TUI_DIR/err")"

# help names every option; version
"$VELTOP" --help >"$TUI_DIR/help" || tui_fail "--help failed"
for o in --kubeconfig --context -n --namespace --cacert --demo --once --json --details --version --help; do
    grep -q -- "$o" "$TUI_DIR/help" || tui_fail "--help does not list $o"
done
# a namespace with no Velero in it: the (empty) table, a line on stderr saying so, and not
# success: 5, what was printed is not what was asked for (it used to exit 0)
rc=0
"$VELTOP" --kubeconfig "$KC" -n wrongns --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 5 ] || tui_fail "-n wrongns: exit $rc"
[ "$(cat "$TUI_DIR/err")" = "veltop: no Velero found in namespace wrongns: no backup storage location, backup or restore there (-n names Velero's namespace)" ] ||
    tui_fail "-n wrongns: $(cat "$TUI_DIR/err")"
[ "$(wc -l <"$TUI_DIR/out")" = 1 ] || tui_fail "-n wrongns: $(cat "$TUI_DIR/out")"
# ... and its JSON says so, as a fleet's context does (lamp, incomplete)
rc=0
"$VELTOP" --kubeconfig "$KC" -n wrongns --once --json >"$TUI_DIR/out" 2>/dev/null || rc=$?
[ "$rc" = 5 ] || tui_fail "-n wrongns --json: exit $rc"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["lamp"], d["incomplete"], d["runs"]) == ("no Velero", ["no Velero in namespace wrongns"], []), d' "$TUI_DIR/out" ||
    tui_fail "-n wrongns --json: $(cat "$TUI_DIR/out")"
"$VELTOP" --kubeconfig "$KC" --once >/dev/null 2>"$TUI_DIR/err" && [ ! -s "$TUI_DIR/err" ] ||
    tui_fail "velero namespace: $(cat "$TUI_DIR/err")"
"$VELTOP" --version | grep -Eq '^veltop [0-9]+\.[0-9]+' || tui_fail "--version"

# --demo runs the sim in-process
"$VELTOP" --demo --scenario "$SCEN" --once --details --json >"$TUI_DIR/demo.json" || tui_fail "--demo --once"
# the demo is stock Velero (no status.resourceProgress): a finished backup's rows come from its
# BackupResourceList artifact (--details), sorted by resource name, with the scenario's counts
python3 - "$TUI_DIR/demo.json" <<'PY' || tui_fail "--demo --once --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context"] == "demo", d["context"]
assert len(d["runs"]) >= 6, d
b = {r["name"]: r for r in d["runs"]}["backup-done"]
assert [(x["resource"], x["done"], x["total"]) for x in b["resources"]] == [
    ("configmaps", 10, 10), ("deployments.apps", 5, 5), ("namespaces", 2, 2),
    ("persistentvolumeclaims", 2, 2), ("persistentvolumes", 2, 2), ("pods", 20, 20),
    ("secrets", 8, 8), ("services", 6, 6)], b["resources"]
PY
echo "once_basic: ok"
