#!/usr/bin/env bash
# tui_hostile.sh: text from the cluster cannot drive the terminal: a backup whose phase and
# failure reason carry ESC/CSI/OSC/C1 sequences shows them as visible placeholders (list, detail,
# --once); in a non-UTF-8 locale with NO_COLOR the bars are ASCII and no colour is emitted.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --quiet
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not create the hostile backup"
import json, sys, urllib.request
obj = {"apiVersion": "velero.io/v1", "kind": "Backup",
       "metadata": {"name": "evil", "namespace": "velero"}, "spec": {},
       "status": {"phase": "Failed\u001b[2J", "errors": 1,
                  "failureReason": "boom \u001b]0;pwned\u0007 \u009b31m red",
                  "startTimestamp": "2026-01-01T00:00:00Z",
                  "completionTimestamp": "2026-01-01T00:01:00Z",
                  "progress": {"totalItems": 10, "itemsBackedUp": 5}}}
req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/backups",
                             data=json.dumps(obj).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY

# --once: the table and the JSON carry no control character
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once.txt" || tui_fail "--once"
grep -q 'Failed^\[\[2J' "$TUI_DIR/once.txt" || tui_fail "--once: $(cat -v "$TUI_DIR/once.txt")"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TUI_DIR/once.txt" && tui_fail "--once wrote a control character"
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" || tui_fail "--once --json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["phase"] == "Failed^[[2J", r["phase"]
assert r["name"] == "evil"
for ch in json.dumps(d, ensure_ascii=False):
    assert ord(ch) >= 0x20 and not (0x7f <= ord(ch) <= 0x9f), repr(ch)
' "$TUI_DIR/once.json" || tui_fail "--once --json not sanitised"

# the screens, in a C locale without colour
tmux -L "$TUI_SOCK" -f /dev/null new-session -d -s veltop -x 100 -y 30 \
    env LANG=C LC_ALL=C NO_COLOR=1 TERM=xterm-256color "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig"
tmux -L "$TUI_SOCK" set-option -g window-size manual >/dev/null
tui_wait '\* live'
tui_wait 'B evil +Failed\^\[\[2J +####\.\.\.\. +5/10 +0\.1/s'
tui_keys Enter
tui_wait '^Backup evil +Failed\^\[\[2J'
tui_wait '^Failure reason boom \^\[\]0;pwned\^G \?31m red'
tmux -L "$TUI_SOCK" capture-pane -e -p -t veltop >"$TUI_DIR/screen.ans"
grep -q "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*38;" "$TUI_DIR/screen.ans" && tui_fail "NO_COLOR: colour codes on screen"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
[ "$title" != pwned ] || tui_fail "the OSC sequence set the terminal title"
tui_keys q
echo "tui_hostile: ok"
