#!/usr/bin/env bash
# surfaces_agree.sh: one run, one answer. At one instant the list row, the detail screen, the
# terminal title, `--once --json` and `--wait` (started then) say the same of the same run:
# stalled or not, what it waits on, the kind of ETA, and the ETA itself within 15 % (the TUI's
# own surfaces exactly). Scenario runend.yaml: a restore moving at 22 MiB/s (its end gated by its
# pod volume, a run with history), a backup whose volume stopped for good (stalled); then the
# same with podvolumebackups/podvolumerestores forbidden (every surface says what it lacks).
. "$(dirname "$0")/tui_lib.bash" || exit 1

# seconds of an ETA cell or phrase: "3m12s", "45s", "1h02m", with "~", "+" or ">" around
secs() {
    python3 -c '
import re, sys
s = sys.argv[1].strip("~+ ")
m = re.fullmatch(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", s)
if not m or not any(m.groups()): sys.exit("no duration: " + sys.argv[1])
d, h, mi, se = (int(x) if x else 0 for x in m.groups())
print(((d * 24 + h) * 60 + mi) * 60 + se)' "$1"
}
# a within 15 % (and 3 s, the time between the looks) of b
near() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= max(3, 0.15 * b) else 1)' "$1" "$2"; }

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/runend.yaml" --quiet
KC="$TUI_DIR/kubeconfig"
tui_start 140 40 --kubeconfig "$KC"
tui_wait '● live'
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +[0-9hms]+ ' 30
tui_wait 'B.?stuck +InProgress +.* 10/~?10 +stalled [0-9]+s ' 60

# the instant: the list's cells, then --once and --wait at once
row=$(tui_screen | grep -E '^R drill ')
list_eta=$(echo "$row" | python3 -c '
import re, sys
t = sys.stdin.read().split()
i = [k for k, x in enumerate(t) if re.fullmatch(r"\d+/~?\d+", x)][0]
print(t[i + 2])')
"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" || tui_fail "--once"
"$VELTOP" --kubeconfig "$KC" --wait restore/drill --timeout 2s >"$TUI_DIR/wait.out" 2>/dev/null
[ $? = 6 ] || tui_fail "--wait --timeout did not end with 6"
"$VELTOP" --kubeconfig "$KC" --wait backup/stuck --timeout 2s >"$TUI_DIR/waits.out" 2>/dev/null

le=$(secs "$list_eta") || tui_fail "list ETA cell '$list_eta'"
read -r je jkind jstall jwait < <(python3 - "$TUI_DIR/once.json" <<'PY'
import json, sys
runs = {(r["kind"], r["name"]): r for r in json.load(open(sys.argv[1]))["runs"]}
d = runs[("Restore", "drill")]
print(d["etaSeconds"], d["etaKind"], d["stalled"], d["waitingOn"]["kind"])
PY
)
[ "$jkind" = estimate ] && [ "$jstall" = False ] && [ "$jwait" = PodVolumeRestore ] ||
    tui_fail "--once: drill $jkind stalled=$jstall waiting on $jwait"
near "$je" "$le" || tui_fail "ETA: list $list_eta ($le s), --once $je s"
weta=$(sed -n 's/.*  eta done in \([^ ]*\) (at .*/\1/p' "$TUI_DIR/wait.out" | head -n 1)
we=$(secs "$weta") || tui_fail "--wait line: $(cat "$TUI_DIR/wait.out")"
near "$we" "$le" || tui_fail "ETA: list $list_eta ($le s), --wait $weta ($we s)"
grep -q 'stalled' "$TUI_DIR/wait.out" && tui_fail "--wait called the moving restore stalled"
echo "drill: list $list_eta, --once ${je}s, --wait $weta"

# the stalled backup: stalled everywhere, no ETA anywhere, waiting on its volume
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once stuck: $(cat "$TUI_DIR/once.json")"
import json, sys
runs = {(r["kind"], r["name"]): r for r in json.load(open(sys.argv[1]))["runs"]}
s = runs[("Backup", "stuck")]
assert s["stalled"] is True and s["etaSeconds"] is None and s["etaReason"] == "stalled", s
assert s["waitingOn"]["kind"] == "PodVolumeBackup", s
PY
grep -Eq ' backup stuck  InProgress .* stalled [0-9hms]+ \(pod volumes inventory/minio-0:export\)  eta none  waiting on pod volumes [^ ]+$' "$TUI_DIR/waits.out" ||
    tui_fail "--wait stuck: $(cat "$TUI_DIR/waits.out")"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
[ "$title" = "veltop: backup stuck stalled" ] || tui_fail "title: '$title'"

# the detail screens: the same ETA as the list's cell (the TUI's own surfaces: exactly)
tui_keys / d r i l l Enter Enter
tui_wait '^Restore drill +InProgress'
dl=$(tui_screen | sed -n 's/^Rate .*ETA done in \(~[0-9hms]*\) (at .*/\1/p' | head -n 1)
de=$(secs "$dl") || tui_fail "detail ETA: $(tui_screen | grep '^Rate')"
near "$de" "$le" || tui_fail "detail $dl vs list $list_eta"
tui_screen | grep -Eq '^Waiting on payments/postgres-0:pgdata, ' || tui_fail "detail waits on?"
tui_keys Escape Escape
tui_keys / s t u c k Enter Enter
tui_wait '^Backup stuck +InProgress'
tui_wait '^Rate .*ETA none +stalled [0-9hms]+ \(pod volumes\)'
tui_keys Escape Escape

# an outage (the API server hangs): the list and a --wait started before it both freeze and say
# so, no ETA counting down, and both recover
"$VELTOP" --kubeconfig "$KC" --wait restore/drill >"$TUI_DIR/waito.out" 2>&1 &
WPID=$!
for _ in $(seq 1 100); do grep -q ' eta ' "$TUI_DIR/waito.out" && break; sleep 0.1; done
kill -STOP "$TUI_SIM_PID"
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +stale ' 30
tui_wait '^health unknown +no current data since'
for _ in $(seq 1 300); do grep -q '(cluster not answering since ' "$TUI_DIR/waito.out" && break; sleep 0.1; done
grep -Eq ' restore drill  InProgress .* eta unknown: no current data since [0-9:]+  waiting on .*  \(cluster not answering since [0-9:]+\)$' \
    "$TUI_DIR/waito.out" || { kill -CONT "$TUI_SIM_PID"; tui_fail "--wait in the outage: $(cat "$TUI_DIR/waito.out")"; }
kill -CONT "$TUI_SIM_PID"
tui_wait '● live' 20
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +[0-9hms]+ ' 20
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
TUI_SOCK="$TUI_SOCK-f"
tui_sim_kill
TUI_SIM_PORT=""

# the pod volumes forbidden: no surface gives an ETA it cannot stand behind, each says why
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/runend.yaml" --quiet \
    --faults forbid=podvolumerestores
st=0
"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" || st=$?
[ "$st" = 5 ] || tui_fail "--once with PVRs forbidden: status $st"
grep -qx 'veltop: incomplete: not visible: podvolumerestores forbidden' "$TUI_DIR/once.err" ||
    tui_fail "--once stderr: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once forbidden: $(cat "$TUI_DIR/once.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["incomplete"] == ["podvolumerestores forbidden"], d["incomplete"]
runs = {(r["kind"], r["name"]): r for r in d["runs"]}
r = runs[("Restore", "drill")]
assert r["etaSeconds"] is None and r["etaReason"] == "not visible", r
assert r["incomplete"] == "pod volumes and data downloads not visible: podvolumerestores forbidden", r
assert r["bytesDone"] is None and r["bytesTotal"] is None, r
PY
"$VELTOP" --kubeconfig "$KC" --wait restore/drill --timeout 2s >"$TUI_DIR/wait.out" 2>/dev/null
grep -q 'eta unknown: pod volumes and data downloads not visible: podvolumerestores forbidden' \
    "$TUI_DIR/wait.out" || tui_fail "--wait forbidden: $(cat "$TUI_DIR/wait.out")"
tui_start 140 40 --kubeconfig "$KC"
tui_wait 'R drill +InProgress +.* 20/~?20 +[0-9.]+/s +\? ' 30
tui_keys / d r i l l Enter Enter
tui_wait '^Rate .*ETA unknown: pod volumes and data downloads not visible: podvolumerestores forbidden'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "surfaces_agree: ok"
