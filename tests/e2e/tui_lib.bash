# tui_lib.bash: helpers for veltop's tmux end-to-end tests: a private tmux server, a veltop-sim
# started on a known port, and bounded waits for screen content (no fixed sleeps).
# Sourced by tests/e2e/tui_*.sh; needs VELTOP, VELTOP_SIM, FIXTURES_DIR.

set -u
: "${VELTOP:?set VELTOP to the veltop binary}"
: "${VELTOP_SIM:?set VELTOP_SIM to the veltop-sim binary}"
: "${FIXTURES_DIR:?set FIXTURES_DIR}"

TUI_SOCK="veltop-e2e-$$"
TUI_DIR=$(mktemp -d)
TUI_SIM_PID=""
TUI_SIM_URL=""
TUI_SIM_PORT=""

tui_cleanup() {
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
    if [ -n "$TUI_SIM_PID" ]; then kill "$TUI_SIM_PID" 2>/dev/null || true; wait "$TUI_SIM_PID" 2>/dev/null || true; fi
    rm -rf "$TUI_DIR"
}
trap tui_cleanup EXIT

tui_fail() {
    echo "FAIL: $*" >&2
    echo "---- screen ----" >&2
    tmux -L "$TUI_SOCK" capture-pane -p -t veltop >&2 || true
    exit 1
}

# Starts veltop-sim with the given extra arguments; listens on $TUI_SIM_PORT when set (restart on
# the same port), writes $TUI_DIR/kubeconfig; waits for its "listening on URL" line.
tui_sim_start() {
    local listen="127.0.0.1:${TUI_SIM_PORT:-0}" out="$TUI_DIR/sim.out" i
    : >"$out"
    "$VELTOP_SIM" --listen "$listen" --kubeconfig-out "$TUI_DIR/kubeconfig" "$@" >"$out" 2>"$TUI_DIR/sim.err" &
    TUI_SIM_PID=$!
    for i in $(seq 1 200); do
        if grep -q 'listening on' "$out"; then
            TUI_SIM_URL=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$out" | head -n 1)
            TUI_SIM_PORT=${TUI_SIM_URL##*:}
            return 0
        fi
        kill -0 "$TUI_SIM_PID" 2>/dev/null || { cat "$TUI_DIR/sim.err" >&2; tui_fail "veltop-sim exited"; }
        sleep 0.05
    done
    tui_fail "veltop-sim did not start listening"
}

tui_sim_kill() {
    kill "$TUI_SIM_PID" 2>/dev/null
    wait "$TUI_SIM_PID" 2>/dev/null || true
    TUI_SIM_PID=""
}

# Starts veltop in a private tmux server (window "veltop") of the given size, in a UTF-8 locale.
tui_start() { # cols rows args...
    local cols=$1 rows=$2
    shift 2
    rm -f "$TUI_DIR/exit"
    # a shell around veltop records its exit status (tmux may be slow to reap a dead pane); it
    # outlives a Ctrl-C sent to the pane (trap, not ignore: veltop gets the default disposition)
    tmux -L "$TUI_SOCK" -f /dev/null new-session -d -s veltop -x "$cols" -y "$rows" \
        env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color sh -c \
        'trap : INT; "$0" "$@"; echo $? >"'"$TUI_DIR"'/exit.tmp"; mv "'"$TUI_DIR"'/exit.tmp" "'"$TUI_DIR"'/exit"; sleep 30' \
        "$VELTOP" "$@" || tui_fail "tmux did not start"
    tmux -L "$TUI_SOCK" set-option -g window-size manual >/dev/null
}

# Stops the tmux server (and veltop with it) and waits until it is gone, so that tui_start can
# start a fresh one on the same socket.
tui_server_stop() {
    local end=$((SECONDS + 10)) sock="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TUI_SOCK"
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null
    while [ "$SECONDS" -le "$end" ]; do
        [ -S "$sock" ] || return 0
        tmux -L "$TUI_SOCK" has-session 2>/dev/null || { rm -f "$sock"; return 0; }
        sleep 0.05
    done
    tui_fail "the tmux server did not go away"
}

tui_screen() {
    tmux -L "$TUI_SOCK" capture-pane -p -t veltop
}

tui_keys() {
    tmux -L "$TUI_SOCK" send-keys -t veltop "$@"
}

tui_resize() { # cols rows
    tmux -L "$TUI_SOCK" resize-window -t veltop -x "$1" -y "$2"
}

# Waits (bounded, polling the screen) until an extended regex matches the screen.
tui_wait() { # regex [seconds]
    local re=$1 limit=${2:-20} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        tui_screen | grep -Eq -- "$re" && return 0
        sleep 0.1
    done
    tui_fail "timed out after ${limit}s waiting for /$re/"
}

# Waits until the regex no longer matches.
tui_wait_gone() { # regex [seconds]
    local re=$1 limit=${2:-20} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        tui_screen | grep -Eq -- "$re" || return 0
        sleep 0.1
    done
    tui_fail "timed out after ${limit}s waiting for /$re/ to go away"
}

# The first screen line matching a regex.
tui_line() {
    tui_screen | grep -E -m1 -- "$1"
}

# Waits until the first line matching regex differs from the given text (a value moved).
tui_wait_change() { # regex old [seconds]
    local re=$1 old=$2 limit=${3:-20} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        [ "$(tui_line "$re")" != "$old" ] && return 0
        sleep 0.1
    done
    tui_fail "timed out after ${limit}s waiting for /$re/ to change from '$old'"
}

# Waits until veltop has exited and prints its exit status.
tui_wait_exit() {
    local end=$((SECONDS + 10))
    while [ "$SECONDS" -le "$end" ]; do
        if [ -f "$TUI_DIR/exit" ]; then
            cat "$TUI_DIR/exit"
            return 0
        fi
        sleep 0.1
    done
    tui_fail "veltop did not exit"
}
