#!/usr/bin/env bash
# surfaces_itemops.sh: one answer, every surface, for a backup whose end is a moving plugin
# operation while its data mover is stalled (scenario itemops.yaml: a DataUpload stopped for good
# at 40 %, a widget operation moving at 2 Items a second towards 100000). Where the operations
# are read (the list and detail screens, `--once --details`, `--wait`, `--serve`) each says the
# same: not stalled, an estimate from the operations' progress with the caveat "a volume is
# stalled" (`+` in the ETA cells), within 15 % of `--once --details --json`. A snapshot that does
# not read them (`--once` without --details) does not call the run stalled: stalled unknown, no
# ETA, and why ("nothing to measure"), in its table and its JSON.
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
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/itemops.yaml" --quiet
KC="$D/kubeconfig"

tui_start 200 40 --kubeconfig "$KC"
VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELTOP" --kubeconfig "$KC" --serve "127.0.0.1:$VPORT" >"$D/serve.out" 2>"$D/serve.err" &
SERVE_PID=$!
tui_wait '● live'
# the list: an estimate that may grow ("+"), not "stalled"
tui_wait 'B.?ops-40 +WaitingOps +.* 20/20 +[0-9.]+/[sm] +[0-9dhms]+\+ ' 30
for _ in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m.txt" &&
        grep -q '^veltop_run_eta_caveat_info{.*name="ops-40".*caveat="a volume is stalled"} 1$' "$D/m.txt" && break
    sleep 0.1
done

T0=$SECONDS
tui_screen >"$D/list.txt"
"$VELTOP" --kubeconfig "$KC" --once --details --json >"$D/details.json" || tui_fail "--once --details --json"
"$VELTOP" --kubeconfig "$KC" --once --details >"$D/details.txt" || tui_fail "--once --details"
"$VELTOP" --kubeconfig "$KC" --once --json >"$D/once.json" || tui_fail "--once --json"
"$VELTOP" --kubeconfig "$KC" --once >"$D/once.txt" || tui_fail "--once"
curl -sf "http://127.0.0.1:$VPORT/metrics" >"$D/m.txt" || tui_fail "no scrape"
# --wait reads the operations as the screen does: its lines until one has the estimate
"$VELTOP" --kubeconfig "$KC" --wait backup/ops-40 --timeout 10s --interval 0 >"$D/wait.txt" 2>/dev/null
[ $? = 6 ] || tui_fail "--wait did not time out with 6"
SPAN=$((SECONDS - T0 + 2))

python3 - "$D" "$SPAN" <<'PY' || tui_fail "the surfaces disagree"
import json, re, sys
D, SPAN = sys.argv[1], float(sys.argv[2])
def run(f):
    return {r["name"]: r for r in json.load(open(D + "/" + f))["runs"]}["ops-40"]
ref = run("details.json")
# the reference, pinned: the operations read, the run moves, its end is theirs, with the caveat
assert ref["phase"] == "WaitingForPluginOperations", ref["phase"]
assert ref["stalled"] is False, ref
assert ref["etaKind"] == "estimate" and ref["etaCaveat"] == "a volume is stalled", ref
eta = ref["etaSeconds"]
assert eta > 3600, ref  # 100000 Items at 2 a second: hours, not the data mover's minutes

def secs(s):
    m = re.fullmatch(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", s)
    assert m and any(m.groups()), "no duration: " + s
    d, h, mi, se = (int(x) if x else 0 for x in m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + se
def near(a, what):
    # the cells are rounded to their two biggest units ("13h52m"): a minute, or 15 %
    assert abs(a - eta) <= max(60 + SPAN, 0.15 * eta), f"{what}: {a} s against --once --details --json's {eta} s"

# the list row
row = [l for l in open(D + "/list.txt") if re.match(r"^B.?ops-40 ", l)]
assert len(row) == 1, row
cell = re.search(r" 20/20 +\S+ +(\S+) ", row[0]).group(1)
assert cell.endswith("+"), f"list: ETA cell '{cell}' without its '+'"
near(secs(cell.rstrip("+")), "list")

# the --once --details table
def table(f):
    lines = open(D + "/" + f).read().splitlines()
    starts = [m.start() for m in re.finditer(r"(?<!\S)(?!BYTES)\S+", lines[0])]
    cols = [lines[0][a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
    for line in lines[1:]:
        r = {c: line[a:b].strip() for c, a, b in zip(cols, starts, starts[1:] + [None])}
        if r["NAME"] == "ops-40":
            return r
    raise AssertionError(f"{f}: no row of ops-40")
t = table("details.txt")
assert t["ETA"].endswith("+"), f"--once --details table: ETA '{t['ETA']}'"
near(secs(t["ETA"].rstrip("+")), "--once --details table")

# --wait: no line calls it stalled; its last line has the estimate, the caveat and its source
lines = open(D + "/wait.txt").read().splitlines()
assert lines, "--wait printed nothing"
for l in lines:
    assert not re.search(r"(?:^|  )stalled \d", l), "--wait called it stalled: " + l
m = re.search(r"  eta done in ~(\S+) \(at [^)]*\), a volume is stalled, from the plugin operations' progress  ", lines[-1])
assert m, "--wait's last line: " + lines[-1]
near(secs(m.group(1)), "--wait")

# --serve
text = open(D + "/m.txt").read()
def sample(fam):
    return [(dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', a)), float(v)) for a, v in
            re.findall(r'^%s\{(.*name="ops-40".*)\} (\S+)$' % fam, text, re.M)]
assert [v for _, v in sample("veltop_run_stalled")] == [0.0], sample("veltop_run_stalled")
assert [l["caveat"] for l, _ in sample("veltop_run_eta_caveat_info")] == ["a volume is stalled"]
e = sample("veltop_run_eta_seconds")
assert len(e) == 1, e
near(e[0][1], "--serve")

# the snapshot that does not read the operations: not stalled, not an ETA: unknown, and why
o = run("once.json")
assert o["stalled"] is None and o["stalledReason"] == "nothing to measure", o
assert o["etaKind"] == "none" and o["etaSeconds"] is None and o["etaReason"] == "nothing to measure", o
t = table("once.txt")
assert t["ETA"] == "?", f"--once table: ETA '{t['ETA']}' where --once --json has none"
print("every surface agrees on ops-40")
PY

# the detail screen: the same estimate, caveat and source
tui_keys / o p s Enter Enter
tui_wait '^Backup ops-40 +WaitingForPluginOperations'
tui_wait '^Rate .*ETA done in ~[0-9dhms]+ \(at [0-9:]+\), a volume is stalled, from the plugin operations. progress'
tui_keys Escape Escape q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
[ -s "$D/serve.err" ] && { cat "$D/serve.err" >&2; tui_fail "--serve wrote to stderr"; }
echo "surfaces_itemops: ok"
