#!/usr/bin/env bash
# first_sight.sh: evidence, not attach time. A run idle for 6 minutes when veltop starts (its last
# status write and its volume's 6 minutes old, as the API server's managedFields say) is "stalled
# 6m" at first sight, on every surface: --once --json, the list and detail screens, --wait; a
# moving run beside it is not stalled, and its last progress comes from the same evidence.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/idle.yaml" --quiet

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --json: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json: $(cat "$TUI_DIR/once.json")"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
i = runs["idle-6m"]
assert i["phase"] == "InProgress", i
assert i["stalled"] is True and 355 <= i["stalledSeconds"] <= 420, i
assert i["lastProgressEvidence"] == "managedFields", i
assert i["etaSeconds"] is None and i["etaKind"] == "none" and i["etaReason"] == "stalled", i
m = runs["moving"]
assert m["stalled"] is False and m["lastProgressEvidence"] == "managedFields", m
assert m["etaKind"] == "estimate" and m["etaSeconds"] > 0, m
PY

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# at first sight: stalled for the 6 minutes the evidence says, not for the seconds since veltop
# started
tui_wait 'B.idle-6m +InProgress +.* stalled 6m' 8
tui_screen | grep -E 'B moving ' | grep -q stalled && tui_fail "the moving run was called stalled"
tui_keys / i d l e Enter Enter
tui_wait '^Backup idle-6m +InProgress'
tui_wait '^Rate .*ETA none +stalled 6m[0-9]+s'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"

# --wait says the same, and gives up at its --timeout (exit 6)
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --wait backup/idle-6m --timeout 3s \
    >"$TUI_DIR/wait.out" 2>"$TUI_DIR/wait.err"; st=$?
[ "$st" = 6 ] || tui_fail "--wait --timeout: status $st, $(cat "$TUI_DIR/wait.out" "$TUI_DIR/wait.err")"
# (every item and its volume done, the phase never moving on: stuck on finalizing)
grep -Eq '^[0-9T:+-]+ backup idle-6m  InProgress  items 30/~?30  bytes 100.0 MiB/100.0 MiB  stalled 6m[0-9]+s \(finalizing\)  eta none  waiting on finalizing$' "$TUI_DIR/wait.out" ||
    tui_fail "--wait line: $(cat "$TUI_DIR/wait.out")"
grep -q 'timed out after 3s: backup idle-6m is InProgress' "$TUI_DIR/wait.err" ||
    tui_fail "--wait stderr: $(cat "$TUI_DIR/wait.err")"
echo "first_sight: ok"
