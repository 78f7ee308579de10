#!/usr/bin/env bash
# surfaces_every.sh: one answer, every surface. Over scenario surfaces.yaml (a run with a known
# end, a slow steady run, a stalled volume beside a moving one, a stalled run, a volume with no
# totalBytes, a Queued backup), at one instant, each surface says of each run what `--once --json`
# says: the phase, the items as "done/total" with "~" exactly where the answer's total is an
# estimate (a run whose item pass is over: "10/10", not "10/~10"), stalled or not, what its end
# waits on, the kind of ETA (estimate, with or
# without a caveat; a promise; none) and the ETA itself within 15 % (and the seconds between the
# looks). The surfaces: the list, the detail and volumes screens, the `--once` table, `--wait`
# piped (one per run; on a terminal, the same line fitted to its width: wait_line.sh), `--serve`'s series, the fleet's summary of the context,
# the terminal title and `--notify` (a "stalled" event for the stalled run only, none for the runs
# that move: alerts use the same verdict). No surface prints a cap or a placeholder ETA. Then an
# outage (every surface holds its figures and judges nothing) and the pod volume backups
# forbidden (no ETA that needs them; each surface says what it cannot see).
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

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/surfaces.yaml" --quiet
KC="$D/kubeconfig"
# the fleet: two contexts of the same cluster (the fleet's row of a context is its summary)
python3 - "$TUI_SIM_URL" >"$D/fleet.kc" <<'PY'
import sys
u = sys.argv[1]
print(f"""apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster: {{server: "{u}"}}
users:
- name: anon
  user: {{}}
contexts:
- name: one
  context: {{cluster: sim, user: anon}}
- name: two
  context: {{cluster: sim, user: anon}}
current-context: one""")
PY

# the screen (with --notify recording every event), and the exporter
tui_start 200 40 --kubeconfig "$KC" --notify "echo \"\$VELTOP_EVENT \$VELTOP_KIND \$VELTOP_RUN\" >>$D/events"
VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --kubeconfig "$KC" --serve "127.0.0.1:$VPORT" >"$D/serve.out" 2>"$D/serve.err" &
SERVE_PID=$!
tui_wait '● live'
# every run in its state: drill's ETA counts, stuck is stalled, unsized has moved bytes
tui_wait 'R drill +InProgress +.* 20/20 +[0-9.]+/s +[0-9hms]+ ' 30
tui_wait 'B.?stuck +InProgress +.* 10/10 +stalled [0-9]+s ' 60
tui_wait 'B.?unsized +InProgress .* [0-9.]+ [MG]iB/\?' 30
tui_wait 'B.?mixed +InProgress +.* 10/10 +[0-9.]+/s +[0-9hms]+\+ ' 30
# the exporter renders at most every few seconds while no scraper's pace is known (serve.c):
# the instant starts when its series have caught up with the screen
for _ in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m0.txt"
    grep -q '^veltop_run_stalled{.*name="stuck".*} 1$' "$D/m0.txt" &&
        grep -q '^veltop_run_eta_caveat_info{.*name="mixed".*caveat="a volume is stalled"} 1$' "$D/m0.txt" && break
    sleep 0.1
done

# ---- the instant: the list, then every other surface as quickly as they come ----
T0=$SECONDS
tui_screen >"$D/list.txt"
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/once.json" || tui_fail "--once --json"
"$VELTOP" --kubeconfig "$KC" --once >"$D/once.txt" || tui_fail "--once"
curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/metrics.txt" || tui_fail "no scrape"
st=0
"$VELTOP" --kubeconfig "$D/fleet.kc" --all-contexts --once --json >"$D/fleet.json" || st=$?
[ "$st" = 7 ] || tui_fail "fleet: exit $st (a stalled run is something wrong: 7)"
for r in restore/drill backup/slow backup/mixed backup/stuck backup/unsized backup/waiting; do
    "$VELTOP" --kubeconfig "$KC" --wait "$r" --timeout 1s >>"$D/wait.txt" 2>/dev/null
    [ $? = 6 ] || tui_fail "--wait $r did not time out with 6"
done
SPAN=$((SECONDS - T0 + 2))
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')

python3 - "$D" "$SPAN" "$title" <<'PY' || tui_fail "the surfaces disagree"
import json, re, sys
D, SPAN, title = sys.argv[1], float(sys.argv[2]), sys.argv[3]
once = {r["name"]: r for r in json.load(open(D + "/once.json"))["runs"]}

def secs(s):
    m = re.fullmatch(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", s)
    assert m and any(m.groups()), "no duration: " + s
    d, h, mi, se = (int(x) if x else 0 for x in m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + se

# what --once --json says: the reference every surface is held to
PART = {"Items": "items", "PodVolumeBackup": "podVolumes", "PodVolumeRestore": "podVolumes",
        "DataUpload": "dataMover", "DataDownload": "dataMover", "PluginOperations": "dataMover",
        "Finalizing": "finalizing", "PodVolumes": "podVolumes"}
def ref(name):
    r = once[name]
    kind = r["etaKind"]
    return dict(phase=r["phase"], stalled=r["stalled"], eta_kind=kind,
                caveat=r["etaCaveat"] if kind == "estimate" else None,
                eta=r["etaSeconds"], waiting=PART.get((r["waitingOn"] or {}).get("kind")))

# the expected answers, so that the reference itself is pinned
want = {
    "drill": dict(stalled=False, eta_kind="estimate", caveat=None, waiting="podVolumes"),
    "slow": dict(stalled=False, eta_kind="estimate", caveat=None, waiting="items"),
    "mixed": dict(stalled=False, eta_kind="estimate", caveat="a volume is stalled", waiting="podVolumes"),
    "stuck": dict(stalled=True, eta_kind="none", caveat=None, waiting="podVolumes"),
    "unsized": dict(stalled=False, eta_kind="none", caveat=None, waiting="podVolumes"),
    "waiting": dict(stalled=False, eta_kind="none", caveat=None, waiting=None),
}
for n, w in want.items():
    got = ref(n)
    for k, v in w.items():
        assert got[k] == v, f"--once --json {n}: {k} {got[k]!r}, expected {v!r}"
assert once["stuck"]["etaReason"] == "stalled" and once["unsized"]["etaReason"] == "volumes not sized yet"
assert once["waiting"]["phase"] == "Queued" and [d["code"] for d in once["waiting"]["diagnosis"]] == ["queued"]
assert once["unsized"]["bytesTotal"] is None

# the items, "done/total", "~" where the total is an estimate: the item pass of drill, mixed,
# stuck and unsized is over (its log-derived rows count every item done), slow's is not
def items(name):
    r = once[name]
    if r["itemsDone"] is None:
        return "-"
    return "%d/%s%d" % (r["itemsDone"], "~" if r["itemsTotalEstimated"] else "", r["itemsTotal"])
for n in ("drill", "mixed", "stuck", "unsized"):
    assert once[n]["itemsTotalEstimated"] is False and items(n) == "%d/%d" % ((20,) * 2 if n == "drill" else (10,) * 2), \
        f"--once --json {n}: items {items(n)}"
assert once["slow"]["itemsTotalEstimated"] is True and items("slow").startswith(tuple("0123456789")) and "/~400" in items("slow"), items("slow")

def near(a, b, what):
    assert abs(a - b) <= max(3 + SPAN, 0.15 * b), f"{what}: {a} s against --once --json's {b} s"

# a cell of the list or the --once table: "3m12s", "20m46s+", "≈41m", "≥3m", "stall", "?", "-"
def cell(name, c, stalled_word, what):
    r = ref(name)
    if r["stalled"]:
        assert c.startswith(stalled_word), f"{what} {name}: '{c}' for a stalled run"
        return
    if r["eta_kind"] == "none":
        assert c in ("?", "-"), f"{what} {name}: ETA cell '{c}' where there is none"
        return
    assert not c.startswith("stall"), f"{what} {name}: '{c}' for a run that moves"
    assert c.endswith("+") == (r["caveat"] is not None), f"{what} {name}: '{c}', caveat {r['caveat']!r}"
    near(secs(c.strip("~≈+≥>=")), r["eta"], f"{what} {name}")

# -- the list (TUI)
for line in open(D + "/list.txt"):
    m = re.match(r"^([BR]).(\S+) +(\S+) +.*? (-|\d+/~?\d+) +(.*)$", line)
    if not m or m.group(2) not in want:
        continue
    name, phase, rest = m.group(2), m.group(3), m.group(5).split()
    assert phase == once[name]["phase"], f"list {name}: phase {phase}"
    if name != "slow":  # slow's count moves between the looks; its "~" does not
        assert m.group(4) == items(name), f"list {name}: items {m.group(4)}, --once --json {items(name)}"
    else:
        assert "/~" in m.group(4), f"list slow: items {m.group(4)}"
    q = once[name].get("queue")
    if q:  # a waiting backup: its position and what holds it in place of a rate and an ETA
        short = " ".join(rest)
        assert short.startswith("#%d, " % q["position"]), f"list {name}: '{short}', --once queue {q}"
        assert ("limit %d full" % q["concurrentBackups"] in short) == bool(q["limitFull"]), f"list {name}: '{short}'"
        assert (q["overlapsWith"] is None) == ("overlaps" not in short), f"list {name}: '{short}'"
        if q["overlapsWith"]:
            assert "overlaps " + q["overlapsWith"] in short, f"list {name}: '{short}'"
        assert q["estimatedStart"] is None and "?" in rest, f"list {name}: start in '{short}', --once {q['estimatedStart']}"
    elif rest[0] == "stalled":
        assert ref(name)["stalled"] is True, f"list {name}: stalled, --once: not"
    else:
        cell(name, rest[1], "stall", "list")
    want.pop(name)["seen"] = 1
assert not want, f"list: rows not seen: {list(want)}"

# -- the --once table, by its header's columns
lines = open(D + "/once.txt").read().splitlines()
starts = [m.start() for m in re.finditer(r"(?<!\S)(?!BYTES)\S+", lines[0])]  # "VOLUME BYTES" is one
cols = [lines[0][a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
for line in lines[1:]:
    row = {c: line[a:b].strip() for c, a, b in zip(cols, starts, starts[1:] + [None])}
    n = row["NAME"]
    assert row["PHASE"] == once[n]["phase"], f"table {n}: phase"
    if n in once and n != "slow":
        assert row["ITEMS"] == items(n), f"table {n}: items {row['ITEMS']}, --once --json {items(n)}"
    elif n == "slow":
        assert "/~" in row["ITEMS"], f"table slow: items {row['ITEMS']}"
    if n in once and once[n]["phase"] != "Completed":
        cell(n, row["ETA"], "stall", "--once table")

# -- --wait, piped: one stamped line per run
for line in open(D + "/wait.txt"):
    m = re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d) (backup|restore) (\S+)  (\S+)  (.*)$", line)
    assert m, "--wait line: " + line
    n, phase, rest = m.group(2), m.group(3), m.group(4)
    r = ref(n)
    assert phase == r["phase"], f"--wait {n}: phase {phase}"
    it = re.search(r"(?:^|  )items (\S+)", rest)
    if n == "slow":
        assert it and "/~" in it.group(1), f"--wait slow: items in {rest}"
    else:
        assert (it.group(1) if it else "-") == items(n), f"--wait {n}: items {it and it.group(1)}, --once --json {items(n)}: {rest}"
    assert bool(re.search(r"(?:^|  )stalled \d", rest)) == bool(r["stalled"]), f"--wait {n} (stalled {r['stalled']}): {rest}"
    e = re.search(r"eta (done in ~(\S+) \(at [^)]*\)(?:, (.*?))?(?=  |$)|done in ≥ (\S+)|none|unknown[^ ]*|-)", rest)
    assert e, f"--wait {n}: no eta in {rest}"
    if r["eta_kind"] == "estimate":
        assert e.group(2), f"--wait {n}: '{e.group(0)}' where --once has an estimate"
        near(secs(e.group(2)), r["eta"], f"--wait {n}")
        assert e.group(3) == r["caveat"], f"--wait {n}: caveat {e.group(3)!r}, --once {r['caveat']!r}"
    else:
        assert not e.group(2) and not e.group(4), f"--wait {n}: '{e.group(0)}' where --once has none"
    w = re.search(r"waiting on (items|pod volumes|data mover|finalizing)", rest)
    wp = {"items": "items", "pod volumes": "podVolumes", "data mover": "dataMover",
          "finalizing": "finalizing"}.get(w.group(1)) if w else None
    assert wp == r["waiting"], f"--wait {n}: waiting on {wp}, --once {r['waiting']}"
    if r["waiting"] == "podVolumes":
        vol = once[n]["volumes"]
        assert any(f"{v['pod']}:{v['volume']}" in rest for v in vol), f"--wait {n}: no volume named: {rest}"

# -- --serve
samples = {}
for line in open(D + "/metrics.txt"):
    if line.startswith("#"):
        continue
    m = re.fullmatch(r'(\w+)(?:\{(.*)\})? (\S+)\n?', line)
    assert m, "not a sample: " + line
    lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
    samples.setdefault(m.group(1), []).append((lab, float(m.group(3))))
def series(fam, name):
    return [(l, v) for l, v in samples.get(fam, []) if l.get("name") == name]
for n in ("drill", "slow", "mixed", "stuck", "unsized"):
    r = ref(n)
    ph = series("veltop_run_info", n)
    assert len(ph) == 1 and ph[0][0]["phase"] == r["phase"], f"--serve {n}: info {ph}"
    est = series("veltop_run_items_expected_estimated", n)
    assert [v for _, v in est] == [1.0 if once[n]["itemsTotalEstimated"] else 0.0], f"--serve {n}: items estimated {est}"
    stl = series("veltop_run_stalled", n)
    assert [v for _, v in stl] == [1.0 if r["stalled"] else 0.0], f"--serve {n}: stalled {stl}"
    eta = series("veltop_run_eta_seconds", n)
    if r["eta_kind"] == "none":
        assert not eta, f"--serve {n}: an ETA {eta} where --once has none"
    else:
        near(eta[0][1], r["eta"], f"--serve {n}")
        lb = series("veltop_run_eta_lower_bound", n)
        assert [v for _, v in lb] == [1.0 if r["eta_kind"] == "lowerBound" else 0.0], f"--serve {n}: {lb}"
    cav = [l["caveat"] for l, _ in series("veltop_run_eta_caveat_info", n)]
    assert cav == ([r["caveat"]] if r["caveat"] else []), f"--serve {n}: caveat {cav}"
    wt = series("veltop_run_waiting_info", n)
    assert len(wt) == 1 and wt[0][0]["part"] == r["waiting"], f"--serve {n}: waiting {wt}"
assert not series("veltop_run_info", "waiting"), "--serve: a Queued run is not in flight"
assert [l["rule"] for l, _ in series("veltop_run_diagnosis_info", "waiting")] == ["queued"]
for fam, rows in samples.items():
    if "eta" in fam and "timestamp" not in fam:
        for l, v in rows:
            assert v < 10 * 86400 and v not in (172800, 172801), f"--serve: {fam} {l} {v}"

# -- the fleet's summary of each context: the same cluster, the same answers
for c in json.load(open(D + "/fleet.json"))["contexts"]:
    s = c["summary"]
    assert s["runsInFlight"] == 5 and s["stalled"] == 1 and s["wrong"] is True, f"fleet {c['context']}: {s}"
    moving = {n: ref(n)["eta"] for n in ("drill", "slow", "mixed") }
    last = max(moving, key=moving.get)
    e = s["endingLast"]
    assert e["name"] == last and e["etaLowerBound"] is False, f"fleet {c['context']}: ending last {e}"
    near(e["etaSeconds"], moving[last], f"fleet {c['context']} ending last")

# -- the title: the stalled run's alert
assert title == "veltop: backup stuck stalled", "title: " + title

# -- no output carries a capped or placeholder ETA
for f in ("once.json", "once.txt", "wait.txt", "metrics.txt", "fleet.json", "list.txt"):
    t = open(D + "/" + f).read()
    assert "172801" not in t and "172800" not in t and "> 2d" not in t, f"{f}: a capped ETA"
print("instant: every surface agrees")
PY

# the detail and volumes screens of the run with a stalled volume beside a moving one, and of
# the unsized one: the same ETA kind and caveat, the stalled volume is stalled on both
tui_keys / m i x e d Enter Enter
tui_wait '^Backup mixed +InProgress'
tui_wait '^Items .* 10 of 10 +100%' 5 # the item pass is over: no "~", as every surface says
tui_wait '^Rate .*ETA done in ~[0-9hms]+ \(at [0-9:]+\), a volume is stalled'
tui_screen | grep -Eq '^ +PVB payments/app-0:cache .* stalled [0-9]+s' || tui_fail "detail: cache not stalled"
tui_keys v
tui_wait 'All volumes'
tui_wait 'app-0:cache .*stalled [0-9]+s'
tui_screen | grep -E 'app-1:data' | grep -v 'Waiting on' | grep -q stalled &&
    tui_fail "volumes: the moving volume called stalled"
tui_keys Escape Escape Escape
tui_keys / u n s i z e d Enter Enter
tui_wait '^Backup unsized +InProgress'
tui_wait '^Rate .*ETA unknown: volumes not sized yet'
tui_keys Escape Escape

# --notify: the stalled run is the only "stalled" event, the runs that move raise none
for _ in $(seq 1 100); do grep -q '^stalled backup stuck$' "$D/events" 2>/dev/null && break; sleep 0.1; done
grep -q '^stalled backup stuck$' "$D/events" || tui_fail "--notify: no stalled event of stuck: $(cat "$D/events" 2>/dev/null)"
grep -v '^stalled backup stuck$' "$D/events" | grep -q stalled && tui_fail "--notify: $(cat "$D/events")"

# ---- an outage: the API server stops answering. Every surface holds the figures of the last
# current data and judges nothing on them: no ETA, no stalled verdict, health unknown
kill -STOP "$TUI_SIM_PID"
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +stale ' 30
tui_wait '^health unknown'
for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m2.txt"
    grep -q '^veltop_cluster_reachable{.*} 0$' "$D/m2.txt" && break
    sleep 0.1
done
grep -q '^veltop_cluster_reachable{.*} 0$' "$D/m2.txt" || { kill -CONT "$TUI_SIM_PID"; tui_fail "--serve: reachable in the outage"; }
# (a run found stalled on current data stays stalled, as every held figure; nothing new is judged)
grep -E '^veltop_run_eta_seconds\{|^veltop_run_stalled\{.*} 0$|^veltop_run_stalled\{.*name="(drill|slow|mixed|unsized)"' \
    "$D/m2.txt" && { kill -CONT "$TUI_SIM_PID"; tui_fail "--serve judges stale data"; }
grep -q '^veltop_run_items_done{.*name="drill".*} 20$' "$D/m2.txt" || { kill -CONT "$TUI_SIM_PID"; tui_fail "--serve dropped the held figures"; }
st=0
timeout 60 "$VELTOP" --kubeconfig "$D/fleet.kc" --all-contexts --once --json >"$D/fleet2.json" 2>/dev/null || st=$?
kill -CONT "$TUI_SIM_PID"
[ "$st" = 8 ] || tui_fail "fleet in the outage: exit $st, not 8 (a context could not be read)"
python3 - "$D/fleet2.json" <<'PY' || tui_fail "fleet in the outage: $(cat "$D/fleet2.json")"
import json, sys
for c in json.load(open(sys.argv[1]))["contexts"]:
    assert c["reachable"] is False and c["runs"] is None and c["summary"]["wrong"] is None, c
PY
tui_wait '● live' 30
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +[0-9hms]+ ' 30
echo "outage: every surface held its figures and judged nothing"

# ---- the pod volume backups forbidden (the same port: the screen and the exporter stay on): no
# surface gives the backups with volumes an ETA it cannot stand behind, each says why
tui_sim_kill
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/surfaces.yaml" --quiet --faults forbid=podvolumebackups
tui_wait 'B.?mixed +InProgress +.* 10/~?10 +[0-9.]+/s +\? ' 60
st=0
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/once3.json" 2>/dev/null || st=$?
[ "$st" = 5 ] || tui_fail "--once with PVBs forbidden: exit $st, not 5"
"$VELTOP" --kubeconfig "$KC" --wait backup/mixed --timeout 1s >"$D/wait3.txt" 2>/dev/null
# a fresh exporter (the one watching since before holds the volumes it had listed)
kill "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null
"$VELTOP" --kubeconfig "$KC" --serve "127.0.0.1:$VPORT" >"$D/serve.out" 2>>"$D/serve.err" &
SERVE_PID=$!
for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m3.txt"
    grep -q '^veltop_cluster_incomplete_info{.*what="podvolumebackups forbidden"} 1$' "$D/m3.txt" && break
    sleep 0.1
done
python3 - "$D/once3.json" "$D/m3.txt" "$D/wait3.txt" <<'PY' || tui_fail "the surfaces disagree with PVBs forbidden"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["incomplete"] == ["podvolumebackups forbidden"], d["incomplete"]
runs = {r["name"]: r for r in d["runs"]}
m = open(sys.argv[2]).read()
assert 'what="podvolumebackups forbidden"} 1' in m, "--serve names nothing incomplete"
for n in ("mixed", "stuck", "unsized"):
    r = runs[n]
    assert r["etaSeconds"] is None and r["etaReason"] == "not visible" and r["bytesDone"] is None, r
    assert not re.search(r'^veltop_run_eta_seconds\{[^}]*name="%s"' % n, m, re.M), "--serve: an ETA for " + n
    # its items are done and its volumes cannot be seen: neither moving nor stalled
    assert r["stalled"] is None and r["stalledReason"] == "not visible", r
    assert not re.search(r'^veltop_run_stalled\{[^}]*name="%s"' % n, m, re.M), "--serve: stalled for " + n
    # nor is what it waits on known: not "finalizing"
    assert r["waitingOn"] is None, r
    assert not re.search(r'^veltop_run_waiting_info\{[^}]*name="%s"' % n, m, re.M), "--serve: waiting for " + n
assert runs["drill"]["etaKind"] == "estimate", runs["drill"]  # a restore: its volumes are visible
w = open(sys.argv[3]).read()
assert re.search(r"eta unknown: pod volumes and data uploads not visible: podvolumebackups forbidden +waiting on unknown \(not visible\)", w), w
PY
echo "forbidden: every surface says what it cannot see"

tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
[ -s "$D/serve.err" ] && { cat "$D/serve.err" >&2; tui_fail "--serve wrote to stderr"; }
echo "surfaces_every: ok"
