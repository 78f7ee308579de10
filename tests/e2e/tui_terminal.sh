#!/usr/bin/env bash
# tui_terminal.sh: on a terminal veltop cannot drive (TERM=dumb, TERM unset, a TERM terminfo does
# not know) it says so in one line on stderr, suggests --once and exits 2 instead of showing a
# blank screen; the same terminal with a usable TERM starts the full-screen view.
. "$(dirname "$0")/tui_lib.bash" || exit 1

# Runs veltop --demo on a real pty (tmux) with the given environment; prints its exit status and
# leaves its stderr in $TUI_DIR/err.
run_on_tty() { # env assignments...
    rm -f "$TUI_DIR/exit" "$TUI_DIR/err"
    tmux -L "$TUI_SOCK" -f /dev/null new-session -d -s dumb -x 80 -y 24 \
        env -u TERM LANG=C.UTF-8 LC_ALL=C.UTF-8 "$@" sh -c \
        '"$0" --demo 2>"'"$TUI_DIR"'/err"; echo $? >"'"$TUI_DIR"'/exit.tmp"; mv "'"$TUI_DIR"'/exit.tmp" "'"$TUI_DIR"'/exit"' \
        "$VELTOP" || tui_fail "tmux did not start"
    tui_wait_exit
    tmux -L "$TUI_SOCK" kill-session -t dumb 2>/dev/null || true
}

want='veltop: TERM=dumb cannot move the cursor: the full-screen view needs a terminal such as xterm-256color (or use --once for a one-shot table)'
status=$(run_on_tty TERM=dumb)
[ "$status" = 2 ] || tui_fail "TERM=dumb: exit $status"
[ "$(cat "$TUI_DIR/err")" = "$want" ] || tui_fail "TERM=dumb: stderr '$(cat "$TUI_DIR/err")'"

want='veltop: TERM is not set: the full-screen view needs a terminal type such as xterm-256color (or use --once for a one-shot table)'
status=$(run_on_tty)
[ "$status" = 2 ] || tui_fail "no TERM: exit $status"
[ "$(cat "$TUI_DIR/err")" = "$want" ] || tui_fail "no TERM: stderr '$(cat "$TUI_DIR/err")'"

want='veltop: unknown terminal type TERM=no-such-terminal (no terminfo entry): the full-screen view needs a terminal such as xterm-256color (or use --once for a one-shot table)'
status=$(run_on_tty TERM=no-such-terminal)
[ "$status" = 2 ] || tui_fail "unknown TERM: exit $status"
[ "$(cat "$TUI_DIR/err")" = "$want" ] || tui_fail "unknown TERM: stderr '$(cat "$TUI_DIR/err")'"

# --once needs no terminal at all, whatever TERM says
TERM=dumb "$VELTOP" --demo --scenario empty --once >"$TUI_DIR/once.txt" 2>"$TUI_DIR/err" ||
    tui_fail "TERM=dumb --once: $(cat "$TUI_DIR/err")"
head -n 1 "$TUI_DIR/once.txt" | grep -q '^NAME ' || tui_fail "TERM=dumb --once: $(cat "$TUI_DIR/once.txt")"

# a usable TERM starts the full-screen view
tui_start 80 24 --demo --scenario empty
tui_wait 'veltop'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_terminal: ok"
