#!/usr/bin/env bash
# soak_faults.sh: veltop against veltop-sim with every fault on (500s, 429s with Retry-After,
# watches closed every few seconds, the watch history expired, slow answers, a malformed event,
# followed logs that end) while backups and restores are created and deleted through the API.
# Then the faults go off and what veltop shows must become the server's state, object by object:
# on the screen (every run's kind, name, phase and items) and in `--once --json` (phase, items,
# errors, warnings), compared with what the sim's API returns before and after each capture (runs
# in progress move meanwhile: a value must lie between the two readings). Along the way the API
# requests per second are bounded, and veltop must not crash.
#   SOAK_SECONDS (default 40) how long the faults last; SOAK_FAULTS overrides the fault list.
. "$(dirname "$0")/tui_lib.bash" || exit 1

SOAK_SECONDS=${SOAK_SECONDS:-40}
FAULTS=${SOAK_FAULTS:-error500=9,error429=13,retry-after=2,close-watch=4,expire-every=7,stall=30,malformed-event,close-logs}

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --bookmark-interval 2000 --quiet --faults "$FAULTS"
tui_start 160 60 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-done +Completed' 60

# the driver: creates and deletes runs for SOAK_SECONDS, retrying what the faults refuse
python3 - "$TUI_SIM_URL" "$SOAK_SECONDS" >"$TUI_DIR/driver.log" 2>&1 <<'PY' &
import json, random, sys, time, urllib.error, urllib.request
url, secs = sys.argv[1], float(sys.argv[2])
B = "/apis/velero.io/v1/namespaces/velero/backups"
R = "/apis/velero.io/v1/namespaces/velero/restores"
def call(method, path, body=None):
    for attempt in range(30):
        req = urllib.request.Request(url + path, method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
        try:
            return urllib.request.urlopen(req, timeout=10).status
        except urllib.error.HTTPError as e:
            if e.code in (404, 409) and method == "DELETE":
                return e.code
            if e.code not in (429, 500):
                raise
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit("gave up: %s %s" % (method, path))
rnd = random.Random(11)
live = []
end = time.time() + secs
n = 0
while time.time() < end:
    n += 1
    act = rnd.random()
    if act < 0.45:
        name = "soak-b-%d" % n
        call("POST", B, {"apiVersion": "velero.io/v1", "kind": "Backup",
                         "metadata": {"name": name, "namespace": "velero"},
                         "spec": {"includedNamespaces": ["shop"]}})
        live.append((B, name))
    elif act < 0.7:
        name = "soak-r-%d" % n
        call("POST", R, {"apiVersion": "velero.io/v1", "kind": "Restore",
                         "metadata": {"name": name, "namespace": "velero"},
                         "spec": {"backupName": "backup-done"}})
        live.append((R, name))
    elif live:
        base, name = live.pop(rnd.randrange(len(live)))
        call("DELETE", base + "/" + name)
    print("step", n, "live", len(live), flush=True)
    time.sleep(rnd.uniform(0.5, 2.0))
PY
driver=$!

# meanwhile: veltop stays up; how far behind the server its screen is, is measured: for each run,
# the longest time its phase on screen differed from the server's (read before and after the
# capture), with the header at that moment
python3 - "$TUI_SIM_URL" "$TUI_SOCK" "$driver" >"$TUI_DIR/lag.txt" 2>&1 <<'PY' &
import json, os, re, subprocess, sys, time, urllib.request
url, sock, driver = sys.argv[1], sys.argv[2], int(sys.argv[3])
def phases():
    out = {}
    for kind, plural in (("B", "backups"), ("R", "restores")):
        for attempt in range(10):
            try:
                d = json.load(urllib.request.urlopen(url + "/apis/velero.io/v1/namespaces/velero/" + plural, timeout=5))
                break
            except Exception:
                time.sleep(0.2)
        else:
            return None
        for o in d["items"]:
            out[kind + "/" + o["metadata"]["name"]] = (o.get("status") or {}).get("phase") or "New"
    return out
since, worst, stale = {}, {}, 0
while True:
    try:
        os.kill(driver, 0)
    except OSError:
        break
    a = phases()
    scr = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p", "-t", "veltop"], capture_output=True, text=True).stdout
    b = phases()
    now = time.time()
    if a is None or b is None:
        continue
    head = scr.splitlines()[1].strip() if len(scr.splitlines()) > 1 else ""
    m = re.search(r"data stale for (\d+)s", head)
    if m:
        stale = max(stale, int(m.group(1)))
    shown = {}
    for line in scr.splitlines():
        m = re.match(r"^([BR]) (\S+) +(\S+) ", line)
        if m:
            shown[m.group(1) + "/" + m.group(2)] = m.group(3)
    for k in set(a) | set(b) | set(shown):
        ok = shown.get(k) in (a.get(k), b.get(k)) or (k not in shown and (k not in a or k not in b))
        if ok:
            since.pop(k, None)
            continue
        since.setdefault(k, now)
        lag = now - since[k]
        if lag > worst.get(k, (0, ""))[0]:
            worst[k] = (lag, "screen %s, server %s; header: %s" % (shown.get(k), b.get(k), re.sub(r" +", " ", head)))
    time.sleep(1)
top = sorted(worst.items(), key=lambda kv: -kv[1][0])[:3]
print("longest 'data stale' shown %ds; longest phase lag: %s" % (stale, "; ".join("%s %.0fs (%s)" % (k, v[0], v[1]) for k, v in top) or "none"))
PY
monitor=$!
while kill -0 "$driver" 2>/dev/null; do
    [ -f "$TUI_DIR/exit" ] && tui_fail "veltop exited during the soak: $(cat "$TUI_DIR/exit")"
    sleep 1
done
wait "$driver" || { cat "$TUI_DIR/driver.log" >&2; tui_fail "the driver failed"; }
stats=$(python3 -c 'import json,sys,urllib.request; d=json.load(urllib.request.urlopen(sys.argv[1] + "/debug/stats")); print(d["requests"], json.dumps(d["faults"]))' "$TUI_SIM_URL")
wait "$monitor"
echo "soak: ${SOAK_SECONDS}s of $FAULTS; $(tail -n 1 "$TUI_DIR/driver.log"); sim requests and faults: $stats"
echo "soak: $(cat "$TUI_DIR/lag.txt")"

python3 -c 'import sys,urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/debug/faults-off", method="POST"))' "$TUI_SIM_URL" ||
    tui_fail "could not switch the faults off"

# compare.py MODE FILE: MODE screen (FILE: a capture) or once (FILE: --once --json); reads the
# server before (S1, given in $TUI_DIR/s1.json) and after (now): exit 0 when they agree
cat >"$TUI_DIR/compare.py" <<'PY'
import json, re, sys, urllib.request
mode, path, url, s1path = sys.argv[1:5]
def server():
    out = {}
    for kind, plural, field in (("B", "backups", "itemsBackedUp"), ("R", "restores", "itemsRestored")):
        d = json.load(urllib.request.urlopen(url + "/apis/velero.io/v1/namespaces/velero/" + plural))
        for o in d["items"]:
            st = o.get("status") or {}
            pr = st.get("progress") or {}
            out[kind + "/" + o["metadata"]["name"]] = {
                "phase": st.get("phase") or "New", "done": pr.get(field, 0),
                "total": pr.get("totalItems"), "errors": st.get("errors", 0),
                "warnings": st.get("warnings", 0)}
    return out
s1 = json.load(open(s1path))
s2 = server()
shown = {}
if mode == "screen":
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^([BR]) (\S+) +(\S+) +\S+ +(\d+|-)/~?(\d+|-|\?)", line)
        if m:
            shown[m.group(1) + "/" + m.group(2)] = {
                "phase": m.group(3), "done": None if m.group(4) == "-" else int(m.group(4)),
                "total": None if m.group(5) in "-?" else int(m.group(5))}
else:
    for r in json.load(open(path))["runs"]:
        shown[r["kind"][0] + "/" + r["name"]] = {
            "phase": r["phase"], "done": r["itemsDone"], "total": r["itemsTotal"],
            "errors": r["errors"], "warnings": r["warnings"]}
bad = []
for key in sorted(set(s1) | set(s2) | set(shown)):
    a, b, v = s1.get(key), s2.get(key), shown.get(key)
    if a and b and not v:
        bad.append("%s: on the server, not shown" % key)
    elif v and not a and not b:
        bad.append("%s: shown, not on the server" % key)
    elif v:
        ph = {x["phase"] for x in (a, b) if x}
        if v["phase"] not in ph:
            bad.append("%s: phase %s shown, server %s" % (key, v["phase"], sorted(ph)))
        done = [x["done"] for x in (a, b) if x]
        if v["done"] is not None and not (min(done) <= v["done"] <= max(done)):
            bad.append("%s: %s items shown, server %s" % (key, v["done"], done))
        for f in ("total", "errors", "warnings"):
            vals = [x[f] for x in (a, b) if x]
            if f in v and v[f] is not None and v[f] not in vals:
                bad.append("%s: %s %s shown, server %s" % (key, f, v[f], vals))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d runs agree" % len(shown))
PY
snapshot() { # writes the server's runs to $TUI_DIR/s1.json
    python3 - "$TUI_SIM_URL" >"$TUI_DIR/s1.json" <<'PY'
import json, sys, urllib.request
url = sys.argv[1]
out = {}
for kind, plural, field in (("B", "backups", "itemsBackedUp"), ("R", "restores", "itemsRestored")):
    d = json.load(urllib.request.urlopen(url + "/apis/velero.io/v1/namespaces/velero/" + plural))
    for o in d["items"]:
        st = o.get("status") or {}
        pr = st.get("progress") or {}
        out[kind + "/" + o["metadata"]["name"]] = {
            "phase": st.get("phase") or "New", "done": pr.get(field, 0),
            "total": pr.get("totalItems"), "errors": st.get("errors", 0),
            "warnings": st.get("warnings", 0)}
print(json.dumps(out))
PY
}

# the screen converges (bounded: the longest backoff is 30 s, then a list)
ok=""
end=$((SECONDS + 90))
while [ "$SECONDS" -le "$end" ]; do
    snapshot
    tui_screen >"$TUI_DIR/screen.txt"
    if python3 "$TUI_DIR/compare.py" screen "$TUI_DIR/screen.txt" "$TUI_SIM_URL" "$TUI_DIR/s1.json" >"$TUI_DIR/cmp.txt"; then
        ok=1
        break
    fi
    sleep 1
done
[ -n "$ok" ] || tui_fail "the screen is not the server's state 90 s after the faults: $(cat "$TUI_DIR/cmp.txt")"
echo "screen: $(cat "$TUI_DIR/cmp.txt") after $((SECONDS - end + 90)) s"
tui_wait '● live' 45 # a re-list may be waiting its longest backoff (30 s)
tui_screen | grep -q 'data stale' && tui_fail "the data is called stale while live"

snapshot
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --json failed: $(cat "$TUI_DIR/once.err")"
python3 "$TUI_DIR/compare.py" once "$TUI_DIR/once.json" "$TUI_SIM_URL" "$TUI_DIR/s1.json" >"$TUI_DIR/cmp.txt" ||
    tui_fail "--once --json is not the server's state: $(cat "$TUI_DIR/cmp.txt")"
echo "--once --json: $(cat "$TUI_DIR/cmp.txt")"

tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "soak_faults: ok"
