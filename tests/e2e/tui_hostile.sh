#!/usr/bin/env bash
# tui_hostile.sh: text from the cluster cannot drive the terminal. Backups whose name, phase and
# failure reason carry ESC, CSI, OSC (title), C1 controls, a bidi override and invalid UTF-8 show
# them as visible placeholders (caret notation, U+FFFD, or '?' in a non-UTF-8 locale) in the list,
# the detail and the --once table; --once --json carries them exactly, as JSON escapes; the bytes
# veltop writes to the terminal contain none of them; in a
# non-UTF-8 locale with NO_COLOR the bars are ASCII and no colour is emitted.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --quiet --resource-progress
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not create the hostile backups"
import json, sys, urllib.request
def post(body):
    req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/backups",
                                 data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(req).status == 201
obj = {"apiVersion": "velero.io/v1", "kind": "Backup",
       "metadata": {"name": "evil", "namespace": "velero"}, "spec": {},
       "status": {"phase": "Failed\u001b[2J", "errors": 1,
                  "failureReason": "boom \u001b]0;pwned\u0007 \u009b31m red",
                  "startTimestamp": "2026-01-01T00:00:00Z",
                  "completionTimestamp": "2026-01-01T00:01:00Z",
                  "progress": {"totalItems": 10, "itemsBackedUp": 5},
                  "resourceProgress": {"pods": {"processed": 5, "total": 10}}}}
post(json.dumps(obj).encode())
# (both with resourceProgress: no resource-list downloads to wait for)
# raw bytes: a name with OSC and a C1 CSI, a failure reason with invalid UTF-8 and an RLO
post(b'{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"n\\u001b]0;owned\\u0007\\u009b2Jx",'
     b'"namespace":"velero"},"spec":{},"status":{"phase":"Failed","errors":1,'
     b'"startTimestamp":"2025-12-31T00:00:00Z","completionTimestamp":"2025-12-31T00:01:00Z",'
     b'"resourceProgress":{"pods":{"processed":0,"total":1}},'
     b'"failureReason":"bad \xff\xc3( utf8 \xe2\x80\xaeevil"}}')
PY

# --once: the table and the JSON carry no control character
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once.txt" || tui_fail "--once"
grep -q 'Failed^\[\[2J' "$TUI_DIR/once.txt" || tui_fail "--once: $(cat -v "$TUI_DIR/once.txt")"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TUI_DIR/once.txt" && tui_fail "--once wrote a control character"
LC_ALL=C.UTF-8 "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once-utf8.txt" || tui_fail "--once"
grep -q '^n^\[\]0;owned^G�2Jx ' "$TUI_DIR/once-utf8.txt" || tui_fail "--once (UTF-8): $(cat -v "$TUI_DIR/once-utf8.txt")"
LC_ALL=C "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once-c.txt" || tui_fail "--once"
grep -q '^n^\[\]0;owned^G?2Jx ' "$TUI_DIR/once-c.txt" || tui_fail "--once (C): $(cat -v "$TUI_DIR/once-c.txt")"
LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TUI_DIR/once-c.txt" && tui_fail "--once in a C locale wrote non-ASCII"
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" || tui_fail "--once --json"
# JSON is not for a terminal: the server's exact text, its escaping the safety (invalid UTF-8,
# which JSON cannot carry, as U+FFFD per byte, as kube-apiserver writes it); no control byte,
# DEL or C1 raw in the file
python3 -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw)
runs = {r["name"]: r for r in d["runs"]}
assert runs["evil"]["phase"] == "Failed\x1b[2J", runs["evil"]["phase"]
assert runs["evil"]["failureReason"] == "boom \x1b]0;pwned\x07 \x9b31m red", runs["evil"]["failureReason"]
assert "n\x1b]0;owned\x07\x9b2Jx" in runs, list(runs)
assert runs["n\x1b]0;owned\x07\x9b2Jx"]["failureReason"] == "bad \ufffd\ufffd( utf8 \u202eevil"
text = raw.decode("utf-8")
for ch in text.rstrip("\n"):
    assert ord(ch) >= 0x20 and not (0x7f <= ord(ch) <= 0x9f), repr(ch)
' "$TUI_DIR/once.json" || tui_fail "--once --json is not the exact text, safely escaped"

# the screens in UTF-8: placeholders on screen, none of the raw bytes in what veltop writes
tui_start 100 30 --kubeconfig "$TUI_DIR/kubeconfig"
tmux -L "$TUI_SOCK" pipe-pane -o -t veltop "cat >>'$TUI_DIR/out.raw'"
tui_wait '● live'
tui_keys C-l # everything again, through the pipe
tui_wait 'B evil +Failed\^\[\[2J +'
tui_wait 'B n\^\[\]0;owned\^G�2Jx +Failed +'
tui_keys j Enter
tui_wait '^Backup n\^\[\]0;owned\^G�2Jx +Failed'
tui_wait '^Failure reason bad ��\( utf8 �evil'
tui_keys '['
tui_wait '^Backup evil +Failed\^\[\[2J'
tui_wait '^Failure reason boom \^\[\]0;pwned\^G �31m red'
# y: the object as JSON in the pager, sanitised too (cJSON escapes C0, the C1 CSI is a placeholder)
tui_keys y o o
tui_wait '^Describe backup evil .* lines as JSON'
tui_wait '^    "failureReason": "boom \\u001b\]0;pwned\\u0007 �31m red",$'
tui_keys Escape
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
case $title in *pwned* | *owned*) tui_fail "an OSC sequence set the terminal title" ;; esac
tui_keys q
tui_wait_exit >/dev/null
python3 - "$TUI_DIR/out.raw" <<'PY' || tui_fail "raw cluster bytes reached the terminal"
import sys
raw = open(sys.argv[1], "rb").read()
assert b"Failure reason" in raw, "the pipe saw nothing"
for bad in (b"\x1b]0;", b"\x07", b"\xc2\x9b", b"\xff", b"\xe2\x80\xae"):
    assert bad not in raw, bad
PY
tmux -L "$TUI_SOCK" kill-server 2>/dev/null
TUI_SOCK="$TUI_SOCK-c" # a fresh tmux server (the old one may still be going away)

# the screens, in a C locale without colour
tmux -L "$TUI_SOCK" -f /dev/null new-session -d -s veltop -x 100 -y 30 \
    env LANG=C LC_ALL=C NO_COLOR=1 TERM=xterm-256color "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig"
tmux -L "$TUI_SOCK" set-option -g window-size manual >/dev/null
tui_wait '\* live'
tui_wait 'B evil +Failed\^\[\[2J +######\.\.\.\.\. +5/10 +0\.1/s' # the bar: 11 wide at 100 columns
tui_wait 'B n\^\[\]0;owned\^G\?2Jx +Failed'
tui_keys Enter
tui_wait '^Backup evil +Failed\^\[\[2J'
tui_wait '^Failure reason boom \^\[\]0;pwned\^G \?31m red'
tui_keys ']'
tui_wait '^Failure reason bad \?\?\( utf8 \?evil'
tmux -L "$TUI_SOCK" capture-pane -e -p -t veltop >"$TUI_DIR/screen.ans"
grep -q "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*38;" "$TUI_DIR/screen.ans" && tui_fail "NO_COLOR: colour codes on screen"
LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TUI_DIR/screen.ans" && tui_fail "C locale: non-ASCII on screen"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
case $title in *pwned* | *owned*) tui_fail "an OSC sequence set the terminal title" ;; esac
tui_keys q
echo "tui_hostile: ok"
