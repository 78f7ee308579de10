#!/usr/bin/env bash
# once_fleet.sh: `veltop --once [--json]` over several contexts, against `veltop-sim --fleet demo`
# (one process, one port per cluster) plus a context whose token comes from an exec plugin, one
# whose address accepts connections and never answers (black-holed), one whose cluster entry is
# missing, and one not in the kubeconfig: the {"contexts": [...]} shape, each context's lamp,
# reachable and error (naming the context on stderr), the table's CONTEXT column, the exit
# statuses 0 / 7 / 8 / 9, a context whose exec plugin never answers, what takes one context
# refused over several, and one context's output exactly as before.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }

D=$TUI_DIR
"$VELTOP_SIM" --fleet demo --kubeconfig-out "$D/fleet.kc" --quiet >"$D/fleet.out" 2>"$D/fleet.err" &
TUI_SIM_PID=$!
for _ in $(seq 1 1800); do grep -q '^fleet ready' "$D/fleet.out" && break; sleep 0.05; done # 90 s: 14 s under ASan on a loaded machine
grep -q '^fleet ready' "$D/fleet.out" || tui_fail "the sim fleet did not start: $(cat "$D/fleet.err")"
EKS='arn:aws:eks:eu-west-1:123456789012:cluster/prod'

# a black hole: a listener that never accepts (the kernel completes the handshake; no answer)
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(600)' >"$D/hole.port" &
HOLE_PID=$!
trap 'kill $HOLE_PID 2>/dev/null; tui_cleanup' EXIT
for _ in $(seq 1 100); do [ -s "$D/hole.port" ] && break; sleep 0.05; done
HOLE=$(cat "$D/hole.port")

# the healthy TLS cluster again, its token from an exec plugin (ExecCredential on stdout)
python3 - "$D/fleet.kc" "$D/extra.kc" "$D/plugin.sh" "$HOLE" <<'PY' || tui_fail "kubeconfig"
import sys, yaml
src, out, plugin, hole = sys.argv[1:5]
kc = yaml.safe_load(open(src))
eks = "arn:aws:eks:eu-west-1:123456789012:cluster/prod"
tok = [u for u in kc["users"] if u["name"] == eks][0]["user"]["token"]
open(plugin, "w").write("#!/bin/sh\nprintf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                        "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + tok + "\"}}'\n")
extra = {"apiVersion": "v1", "kind": "Config",
         "clusters": [{"name": "hole", "cluster": {"server": "http://127.0.0.1:" + hole}}],
         "users": [{"name": "exec-user", "user": {"exec": {
             "apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
             "interactiveMode": "Never"}}},
                   {"name": "nobody", "user": {}}],
         "contexts": [{"name": "eks-exec", "context": {"cluster": eks, "user": "exec-user"}},
                      {"name": "black-hole", "context": {"cluster": "hole", "user": "nobody"}},
                      {"name": "lost-cluster", "context": {"cluster": "gone", "user": "nobody"}}]}
yaml.safe_dump(extra, open(out, "w"))
PY
chmod +x "$D/plugin.sh"
export KUBECONFIG="$D/fleet.kc:$D/extra.kc"

t0=$(date +%s%N)
rc=0
"$VELTOP" --once --json --all-contexts --context not-there >"$D/all.json" 2>"$D/all.err" || rc=$?
t1=$(date +%s%N)
[ "$rc" = 9 ] || tui_fail "--all-contexts: exit $rc (want 9: something wrong and unread), $(cat "$D/all.err")"
ms=$(( (t1 - t0) / 1000000 ))
# the black hole is called unreachable after 8 s of silence, and delays nothing else
[ "$ms" -lt 14000 ] || tui_fail "--once over the fleet took ${ms} ms"
python3 - "$D/all.json" <<'PY' || tui_fail "--all-contexts JSON: $(cat "$D/all.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert list(doc) == ["contexts"], list(doc)
ctx = {c["context"]: c for c in doc["contexts"]}
eks = "arn:aws:eks:eu-west-1:123456789012:cluster/prod"
want = {eks: ("live", True), "gke_acme_europe-west1_shop": ("live", True),
        "kubernetes-admin@staging": ("live", True), "prod-us-east": ("unreachable", False),
        "dr-site": ("forbidden", True), "openshift-prod": ("no Velero", True),
        "kind-dev": ("unauthorized", True), "eks-exec": ("live", True),
        "black-hole": ("unreachable", False), "lost-cluster": ("unusable", False),
        "not-there": ("unusable", False)}
assert set(ctx) == set(want), sorted(ctx)
# kubeconfig order, then the named one
assert [c["context"] for c in doc["contexts"]][-1] == "not-there"
for name, (lamp, reach) in want.items():
    c = ctx[name]
    assert (c["lamp"], c["reachable"]) == (lamp, reach), (name, c["lamp"], c["reachable"])
    assert list(c)[:6] == ["context", "server", "namespace", "reachable", "error", "lamp"], list(c)
for name in (eks, "eks-exec", "dr-site", "kubernetes-admin@staging"):
    c = ctx[name]
    assert c["error"] is None, (name, c["error"])
    assert isinstance(c["runs"], list) and c["runs"], name
    assert "schedules" in c and "storageLocations" in c, name
assert {r["name"] for r in ctx["eks-exec"]["runs"]} >= {"hourly-1", "hourly-2"}
# one "incomplete" per context, in the words of one context's --once
assert ctx["dr-site"]["incomplete"] == ["pods forbidden"], ctx["dr-site"]["incomplete"]
# what the pods would say is unknown there, not none
assert (ctx["dr-site"]["velero"], ctx["dr-site"]["nodeAgents"], ctx["dr-site"]["nodesWithoutNodeAgent"]) == (None, None, None), ctx["dr-site"]
assert len(ctx[eks]["nodeAgents"]) == 3 and ctx[eks]["nodesWithoutNodeAgent"] == [], ctx[eks]
def no_twice(pairs):  # no key given twice in any object (json.load keeps the last silently)
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
json.loads(open(sys.argv[1]).read(), object_pairs_hook=no_twice)
# no Velero where it was looked for: one cluster-wide list says where it is
assert ctx["openshift-prod"]["incomplete"] == ["no Velero in namespace velero; Velero is in namespace openshift-adp (--namespace-for openshift-prod=openshift-adp)"], ctx["openshift-prod"]["incomplete"]
assert "connection refused" in ctx["prod-us-east"]["error"], ctx["prod-us-east"]["error"]
assert ctx["black-hole"]["error"].startswith("no answer from http://127.0.0.1:"), ctx["black-hole"]["error"]
assert ctx["black-hole"]["runs"] is None
assert ctx["kind-dev"]["error"] == 'unauthorized: the server rejected the credentials of user "kind-dev"'
assert 'context "not-there" not found' in ctx["not-there"]["error"], ctx["not-there"]["error"]
assert 'cluster "gone" of context "lost-cluster" not found' in ctx["lost-cluster"]["error"]
assert [s["overdue"] for s in ctx["kubernetes-admin@staging"]["schedules"]] == [True]
# the fleet row's figures; null where they cannot be known
sm = ctx["kubernetes-admin@staging"]["summary"]
assert sm["wrong"] is True and sm["runsInFlight"] == 0 and sm["endingLast"] is None, sm
assert sm["schedules"] == {"count": 1, "overdue": 1, "oldestSuccess": "nightly",
                           "oldestSuccessAgeSeconds": None, "oldestSuccessIntervalSeconds": 86400,
                           "restorableStale": 1, "restorableStaleFirst": "nightly"}, sm
assert sm["last24h"] == {"completed": 1, "partiallyFailed": 0, "failed": 0}, sm
assert sm["storageLocations"] == {"available": 1, "total": 1}, sm
assert sm["nodeAgents"] == {"ready": 3, "total": 3} and sm["veleroVersion"] == "v1.18.2", sm
sm = ctx["eks-exec"]["summary"]
assert sm["wrong"] is False and sm["runsInFlight"] == 1, sm
assert sm["endingLast"]["name"] == "adhoc-full" and sm["endingLast"]["etaSeconds"] > 60, sm
assert ctx["dr-site"]["summary"]["nodeAgents"] == {"ready": None, "total": None}
sm = ctx["black-hole"]["summary"]
assert sm["runsInFlight"] is None and sm["last24h"]["failed"] is None, sm
# one rule (fleet_judge) for the summary and the exit status: a context with a list not visible
# or no Velero is wrong (it used to say false while the status was 9); one not read is unknown
for name in ("dr-site", "openshift-prod", "kubernetes-admin@staging"):
    sm = ctx[name]["summary"]
    assert sm["wrong"] is True and sm["unreadable"] is False, (name, sm)
assert ctx["dr-site"]["summary"]["incomplete"] is True and ctx["openshift-prod"]["summary"]["incomplete"] is True
assert ctx["kubernetes-admin@staging"]["summary"]["incomplete"] is False
for name in ("prod-us-east", "black-hole", "kind-dev", "lost-cluster", "not-there"):
    sm = ctx[name]["summary"]
    assert sm["wrong"] is None and sm["warning"] is None and sm["unreadable"] is True, (name, sm)
sm = ctx[eks]["summary"]
assert (sm["wrong"], sm["unreadable"], sm["incomplete"]) == (False, False, False), sm
# health: unknown where it cannot be read, with why; never OK beside null node-agents
assert ctx[eks]["health"]["ok"] is True, ctx[eks]["health"]
assert ctx["dr-site"]["health"] == {"ok": None, "summary": "schedules 1  BSL 1/1 available",
                                    "unknown": "cannot read pods: forbidden"}, ctx["dr-site"]["health"]
h = ctx["prod-us-east"]["health"]
assert h["ok"] is None and h["unknown"].startswith("cannot read backups: cannot connect to "), h
assert ctx["kind-dev"]["health"]["unknown"] == 'cannot read backups: unauthorized: the server rejected the credentials of user "kind-dev"', ctx["kind-dev"]["health"]
assert ctx["not-there"]["health"]["unknown"].startswith('cannot use the context: context "not-there" not found'), ctx["not-there"]["health"]
PY
# every error names its context, one line each
for c in prod-us-east black-hole kind-dev lost-cluster not-there dr-site openshift-prod; do
    grep -q "^veltop: context $c: " "$D/all.err" || tui_fail "stderr does not name $c: $(cat "$D/all.err")"
done
grep -qx 'veltop: context kubernetes-admin@staging: 1 schedule overdue, 1 schedule with nothing restorable newer than 2 intervals (nightly)' "$D/all.err" ||
    tui_fail "what is wrong is not said: $(cat "$D/all.err")"
grep -q '^veltop: context kind-dev: unauthorized: the server rejected' "$D/all.err" ||
    tui_fail "unauthorized said twice: $(cat "$D/all.err")"
echo "all contexts: ok (${ms} ms)"

# exit statuses: 0 all read and fine, 7 something wrong, 8 a context unread
once_rc() { local rc=0; "$VELTOP" --once "$@" >"$D/o.out" 2>"$D/o.err" || rc=$?; echo "$rc"; }
[ "$(once_rc --context "$EKS,eks-exec")" = 0 ] || tui_fail "healthy pair: $(cat "$D/o.err")"
head -n 1 "$D/o.out" | grep -q '^CONTEXT  *NAME  *KIND  *PHASE  *ITEMS' || tui_fail "no CONTEXT column: $(cat "$D/o.out")"
grep -q "^eks-exec  *hourly-2  *Backup  *Completed  *100/100 " "$D/o.out" || tui_fail "table rows: $(cat "$D/o.out")"
[ "$(once_rc --context 'kubernetes-admin@*' --context eks-exec)" = 7 ] || tui_fail "overdue: $(cat "$D/o.err")"
[ "$(once_rc --context eks-exec,prod-us-east)" = 8 ] || tui_fail "unreachable: $(cat "$D/o.err")"
[ "$(once_rc --context eks-exec,kind-dev)" = 8 ] || tui_fail "unauthorized: $(cat "$D/o.err")"
# a list not visible (pods forbidden) is wrong, as the summary says (it used to exit 0)
[ "$(once_rc --context eks-exec,dr-site)" = 7 ] || tui_fail "pods forbidden: $(cat "$D/o.err")"
grep -qx 'veltop: context dr-site: forbidden: pods: pods is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "pods" in API group "" in the namespace "velero"' "$D/o.err" ||
    tui_fail "pods forbidden: $(cat "$D/o.err")"
[ "$(once_rc --context eks-exec,openshift-prod)" = 7 ] || tui_fail "no Velero: $(cat "$D/o.err")"
# one context, the same rule: no Velero where it looks is not success (5, as incomplete)
[ "$(once_rc --context openshift-prod)" = 5 ] || tui_fail "one context, no Velero: $(cat "$D/o.err")"
[ "$(once_rc --context dr-site)" = 5 ] || tui_fail "one context, pods forbidden: $(cat "$D/o.err")"
# usage errors stay 2
[ "$(once_rc --context 'nomatch-*')" = 2 ] || tui_fail "pattern matching nothing"
grep -qx "veltop: no context of the kubeconfig matches 'nomatch-\*'" "$D/o.err" || tui_fail "$(cat "$D/o.err")"
[ "$(once_rc --context eks-exec,dr-site --namespace-for other=ns)" = 2 ] || tui_fail "--namespace-for unknown"
echo "exit statuses: ok"

# --namespace-for CONTEXT=NS, split at the last '=': openshift-prod's Velero is in openshift-adp
[ "$(once_rc --json --context openshift-prod,eks-exec --namespace-for openshift-prod=openshift-adp)" = 0 ] ||
    tui_fail "--namespace-for: $(cat "$D/o.err")"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["contexts"][0]
assert (c["context"], c["namespace"], c["lamp"]) == ("openshift-prod", "openshift-adp", "live"), c
assert c["runs"], c' "$D/o.out" || tui_fail "--namespace-for: $(cat "$D/o.out")"
echo "namespace-for: ok"

# one context: its own object (no "contexts", no CONTEXT column), with the lamp its verdict
# comes from, as each context of a fleet has it
"$VELTOP" --once --json --context eks-exec >"$D/one.json" 2>/dev/null || tui_fail "one context --json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:5] == ["context", "server", "namespace", "lamp", "incomplete"] and "contexts" not in d and d["lamp"] == "live" and d["incomplete"] == [], list(d)' "$D/one.json" ||
    tui_fail "one context JSON changed"
"$VELTOP" --once --context eks-exec >"$D/one.txt" 2>/dev/null || tui_fail "one context table"
head -n 1 "$D/one.txt" | grep -q '^NAME  *KIND  *PHASE' || tui_fail "one context table: $(head -n 1 "$D/one.txt")"
rc=0; "$VELTOP" --once --context not-there >/dev/null 2>"$D/one.err" || rc=$?
[ "$rc" = 2 ] || tui_fail "one missing context: exit $rc, want 2 as before"
# a context whose exec plugin never answers: its row says so (not the server's silence), within
# the black hole's 8 s, and the other context is read meanwhile
printf '#!/bin/sh\nexec sleep 100\n' >"$D/hang.sh"
chmod +x "$D/hang.sh"
python3 - "$D/hang.kc" "$D/hang.sh" "$EKS" <<'PY' || tui_fail "hang kubeconfig"
import sys, yaml
out, plugin, eks = sys.argv[1:4]
yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "clusters": [],
                "users": [{"name": "hang-user", "user": {"exec": {
                    "apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
                    "interactiveMode": "Never"}}}],
                "contexts": [{"name": "slow-login", "context": {"cluster": eks, "user": "hang-user"}}]},
               open(out, "w"))
PY
t0=$(date +%s%N)
rc=0
KUBECONFIG="$D/fleet.kc:$D/hang.kc" "$VELTOP" --once --json --context slow-login,gke_acme_europe-west1_shop \
    >"$D/hang.json" 2>"$D/hang.err" || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" = 8 ] || tui_fail "a hanging exec plugin: exit $rc (want 8: a context unread), $(cat "$D/hang.err")"
[ "$ms" -lt 12000 ] || tui_fail "a hanging exec plugin held --once for ${ms} ms"
grep -q "^veltop: context slow-login: connecting: waiting for the credentials of exec plugin \".*hang.sh\" ([89]s)$" "$D/hang.err" ||
    tui_fail "a hanging exec plugin: $(cat "$D/hang.err")"
python3 - "$D/hang.json" <<'PY' || tui_fail "a hanging exec plugin's JSON: $(cat "$D/hang.json")"
import json, sys
ctx = {c["context"]: c for c in json.load(open(sys.argv[1]))["contexts"]}
s = ctx["slow-login"]
assert (s["lamp"], s["reachable"], s["runs"]) == ("connecting", False, None), s
assert s["error"].startswith('waiting for the credentials of exec plugin "'), s["error"]
assert ctx["gke_acme_europe-west1_shop"]["lamp"] == "live", ctx["gke_acme_europe-west1_shop"]
PY
echo "a hanging exec plugin: ok"

# what takes one context says so over several: exit 2, nothing asked of any cluster
for opt in "--once --details" "--wait backup/hourly-1"; do
    rc=0; $VELTOP $opt --all-contexts >"$D/o.out" 2>"$D/o.err" || rc=$?
    [ "$rc" = 2 ] || tui_fail "$opt over several contexts: exit $rc, want 2"
    grep -q 'name one context$' "$D/o.err" || tui_fail "$opt over several contexts: $(cat "$D/o.err")"
    [ -s "$D/o.out" ] && tui_fail "$opt over several contexts printed: $(cat "$D/o.out")"
done
echo "once_fleet: ok"
