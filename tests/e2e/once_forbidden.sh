#!/usr/bin/env bash
# once_forbidden.sh: a cluster whose backups the user may not list (403) is a refusal, not an
# outage, on every surface: over several contexts its lamp is "forbidden" (not "unreachable"),
# reachable true, its error "forbidden: backups: <the server's message>", its summary's wrong unknown
# (null, the context unread) and the exit status 8 (9 beside a context with something wrong);
# alone, --once exits 1 with the same words.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }

D=$TUI_DIR
tui_sim_start --scenario fleet-healthy --faults forbid=backups --quiet
mv "$D/kubeconfig" "$D/refused.kc"
"$VELTOP_SIM" --scenario fleet-overdue --kubeconfig-out "$D/ok.kc" --quiet >"$D/ok.out" 2>"$D/ok.err" &
OK_PID=$!
trap 'kill $OK_PID 2>/dev/null; tui_cleanup' EXIT
for _ in $(seq 1 200); do grep -q '^listening on' "$D/ok.out" && break; sleep 0.05; done
grep -q '^listening on' "$D/ok.out" || tui_fail "the second sim did not start: $(cat "$D/ok.err")"
python3 - "$D/refused.kc" "$D/ok.kc" "$D/both.kc" <<'PY' || tui_fail "kubeconfig"
import sys, yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
out = sys.argv[3]
def rename(kc, name):
    kc["clusters"][0]["name"] = kc["contexts"][0]["context"]["cluster"] = name
    kc["users"][0]["name"] = kc["contexts"][0]["context"]["user"] = name
    kc["contexts"][0]["name"] = name
    return kc
a, b = rename(a, "refused"), rename(b, "overdue")
kc = {"apiVersion": "v1", "kind": "Config", "current-context": "refused",
      "clusters": a["clusters"] + b["clusters"], "users": a["users"] + b["users"],
      "contexts": a["contexts"] + b["contexts"]}
yaml.safe_dump(kc, open(out, "w"))
PY
export KUBECONFIG="$D/both.kc"
MSG='backups.velero.io is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "backups" in API group "velero.io" in the namespace "velero"'

rc=0
"$VELTOP" --once --json --context refused,overdue >"$D/o.json" 2>"$D/o.err" || rc=$?
[ "$rc" = 9 ] || tui_fail "refused + overdue: exit $rc (want 9), $(cat "$D/o.err")"
python3 - "$D/o.json" "$MSG" <<'PY' || tui_fail "JSON: $(cat "$D/o.json")"
import json, sys
ctx = {c["context"]: c for c in json.load(open(sys.argv[1]))["contexts"]}
r = ctx["refused"]
assert (r["lamp"], r["reachable"]) == ("forbidden", True), (r["lamp"], r["reachable"])
why = "forbidden: backups: " + sys.argv[2]
assert r["error"] == why, r["error"]
assert r["runs"] is None and r["incomplete"] == [why], r
assert (r["summary"]["wrong"], r["summary"]["unreadable"]) == (None, True), r["summary"]
assert r["health"] == {"ok": None, "summary": None, "unknown": "cannot read backups: " + why}, r["health"]
o = ctx["overdue"]["summary"]
assert (o["wrong"], o["unreadable"], o["incomplete"]) == (True, False, False), o
PY
grep -qxF "veltop: context refused: forbidden: backups: $MSG" "$D/o.err" || tui_fail "stderr: $(cat "$D/o.err")"
rc=0
"$VELTOP" --once --context refused >/dev/null 2>"$D/one.err" || rc=$?
[ "$rc" = 1 ] || tui_fail "one context, backups forbidden: exit $rc"
[ "$(cat "$D/one.err")" = "veltop: forbidden: $MSG" ] || tui_fail "one context: $(cat "$D/one.err")"
echo "PASS once_forbidden"
