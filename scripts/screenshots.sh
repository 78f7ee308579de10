#!/bin/sh
# screenshots.sh BUILD: PNGs of the real veltop (list, detail, help, disconnected; 120x40 and
# 80x24; list and detail at 200x50 and 60x16 too; volumes, logs and health; the queue, restore
# readiness, maintenance jobs and plugin operations at 80x24 and 200x50 on their test scenarios; the fleet screen of
# --demo --fleet) into screenshots/: tmux runs veltop against veltop-sim's demo scenario, capture-pane
# keeps the colours, aha turns them into HTML and headless Chromium takes the picture.
set -eu
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT="$SRC/screenshots"
VELTOP=$(cd "$BUILD" && pwd)/veltop
SIM=$(cd "$BUILD" && pwd)/veltop-sim
SOCK="veltop-shots-$$"
TMP=$(mktemp -d)
SIM_PID=""
mkdir -p "$OUT"

cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

wait_for() { # regex: bounded polling of the screen
    i=0
    while [ $i -lt 300 ]; do
        tmux -L "$SOCK" capture-pane -p -t shots | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "screenshots: timed out waiting for /$1/" >&2
    tmux -L "$SOCK" capture-pane -p -t shots >&2
    exit 1
}

wait_last() { # regex on the last screen line: the frame at the new size is drawn
    i=0
    while [ $i -lt 300 ]; do
        tmux -L "$SOCK" capture-pane -p -t shots | tail -n 1 | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "screenshots: timed out waiting for the last line /$1/" >&2
    exit 1
}

shot() { # name cols rows
    name=$1 cols=$2 rows=$3
    tmux -L "$SOCK" capture-pane -e -p -N -t shots >"$TMP/$name.ans"
    aha --black --title "veltop $name" <"$TMP/$name.ans" |
        sed 's#</head>#<style>body{margin:8px;background:\#000}pre{font-family:"DejaVu Sans Mono",monospace;font-size:14px;line-height:17px;margin:0}</style></head>#' \
            >"$TMP/$name.html"
    w=$((cols * 843 / 100 + 16))
    h=$((rows * 17 + 16))
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$TMP/chrome-$name" --window-size="$w,$h" \
        --screenshot="$OUT/$name.png" "file://$TMP/$name.html" >/dev/null 2>&1
    echo "screenshots: $OUT/$name.png"
}

resize() {
    tmux -L "$SOCK" resize-window -t shots -x "$1" -y "$2"
}

# sim_start SCENARIO NAME: veltop-sim on SCENARIO (SIM_PID), its kubeconfig $TMP/kc-NAME, once it
# listens. One sim a scenario: the demo's is stopped for the disconnected screens, and each later
# screen needs the cluster of its own test scenario, so no two runs can share one.
sim_start() {
    "$SIM" --scenario "$1" --quiet --kubeconfig-out "$TMP/kc-$2" >"$TMP/sim-$2.out" 2>&1 &
    SIM_PID=$!
    i=0
    until grep -q 'listening on' "$TMP/sim-$2.out"; do
        i=$((i + 1))
        [ $i -lt 200 ] || { echo "screenshots: veltop-sim did not start ($2)" >&2; exit 1; }
        sleep 0.05
    done
}

# the demo scenario on a sim we can stop (for the disconnected screen)
sim_start demo demo

tmux -L "$SOCK" -f /dev/null new-session -d -s shots -x 120 -y 40 \
    env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color TZ=UTC "$VELTOP" --kubeconfig "$TMP/kc-demo"
tmux -L "$SOCK" set-option -g window-size manual >/dev/null
wait_for 'live'
wait_for 'InProgress'
# let rates and ETAs settle on a few samples
wait_for '[0-9]+s +[0-9:]+ '
tmux -L "$SOCK" send-keys -t shots f
sleep 3 # a few seconds of history for the rates and the sparkline (a picture, not a test)
shot list-120x40 120 40
# the detail, volumes and logs of the demo's restore drill (its pod volumes and data mover): when
# the demo starts after 01:00 UTC, today's nightly is the newest run, above it
if tmux -L "$SOCK" capture-pane -p -t shots | grep -q '^B nightly-.*InProgress'; then
    tmux -L "$SOCK" send-keys -t shots j
fi
tmux -L "$SOCK" send-keys -t shots Enter
wait_for '^Resources'
sleep 2
shot detail-120x40 120 40
tmux -L "$SOCK" send-keys -t shots '?'
wait_for 'Everywhere'
shot help-120x40 120 40
tmux -L "$SOCK" send-keys -t shots Escape
wait_for '^Resources'
tmux -L "$SOCK" send-keys -t shots v
wait_for 'POD/VOLUME'
sleep 1
shot volumes-120x40 120 40
tmux -L "$SOCK" send-keys -t shots Escape
wait_for '^Resources'
tmux -L "$SOCK" send-keys -t shots l
wait_for 'LIVE log|stored log'
sleep 2
shot logs-120x40 120 40
tmux -L "$SOCK" send-keys -t shots Escape
wait_for '^Resources'
tmux -L "$SOCK" send-keys -t shots Escape
wait_for 'NAME +PHASE'
tmux -L "$SOCK" send-keys -t shots H
wait_for '^Schedules'
wait_for '^Velero server'
shot health-120x40 120 40
tmux -L "$SOCK" send-keys -t shots Escape
wait_for 'NAME +PHASE'
tmux -L "$SOCK" send-keys -t shots Enter
wait_for '^Resources'
resize 200 50
wait_last '\[/\]:run'
wait_for '^Restore|^Backup'
shot detail-200x50 200 50
resize 60 16
wait_last '\[/\]:run'
wait_for '^Restore|^Backup'
shot detail-60x16 60 16
resize 80 24
wait_last '\[/\]:run'
wait_for '^Restore|^Backup'
shot detail-80x24 80 24
tmux -L "$SOCK" send-keys -t shots Escape
wait_last 'Enter:detail'
wait_for 'NAME +PHASE'
shot list-80x24 80 24
tmux -L "$SOCK" send-keys -t shots '?'
wait_for 'lines 1-[0-9]+ of [0-9]+' # help scrolls at 80x24
shot help-80x24 80 24
tmux -L "$SOCK" send-keys -t shots Escape
wait_for 'NAME +PHASE'
resize 200 50
wait_last 'Enter:detail'
wait_for 'NAME +PHASE'
shot list-200x50 200 50
resize 60 16
wait_last 'Enter:detail'
wait_for 'NAME +PHASE'
shot list-60x16 60 16
resize 120 40
wait_last 'Enter:detail'
kill "$SIM_PID"
SIM_PID=""
wait_for 'retrying'
sleep 2
shot disconnected-120x40 120 40
resize 80 24
wait_last 'Enter:detail'
wait_for 'retrying'
shot disconnected-80x24 80 24

# issue 26's screens, each on the scenario whose truth the tests pin: the queue on the list
# (queue.yaml: 5 queued, limit 2, an overlap), the detail of a schedule's backup with its
# restorable line (restorable.yaml), the health screen's repositories with their maintenance
# jobs (repo_jobs.yaml) and a job's pod log
# fresh_session COLS ROWS ARGS...: veltop ARGS in a new "shots" session on a tmux server of its
# own: the old server is killed and a new socket name taken, so that the new session never
# reaches a server on its way out ("server exited unexpectedly"); tmux 3.3a also ends the server
# on a second -x/-y session beside a window-size manual one.
SESSIONS=0
fresh_session() {
    cols=$1 rows=$2
    shift 2
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    SESSIONS=$((SESSIONS + 1))
    SOCK="veltop-shots-$$-$SESSIONS"
    tmux -L "$SOCK" -f /dev/null new-session -d -s shots -x "$cols" -y "$rows" \
        env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color TZ=UTC "$VELTOP" "$@"
    tmux -L "$SOCK" set-option -g window-size manual >/dev/null
}
scenario_start() { # scenario file: a sim of its own, veltop in a fresh session at 200x50
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null || true
    sim_start "$SRC/tests/fixtures/scenarios/$1" "$1"
    fresh_session 200 50 --kubeconfig "$TMP/kc-$1"
    wait_for 'live'
}
scenario_start queue.yaml
wait_for '#1, limit 2 full'
shot queue-list-200x50 200 50
resize 80 24
wait_last 'Enter:detail'
wait_for '#1, limit 2 full'
shot queue-list-80x24 80 24
tmux -L "$SOCK" send-keys -t shots G k k k Enter # q2: its namespaces overlap running-a
wait_for '^Not running'
shot queue-detail-80x24 80 24
tmux -L "$SOCK" send-keys -t shots Escape H
wait_for '^Backup queue'
resize 200 50
wait_last 'runs *$' # the frame at 200 columns (the status at the right of the hint line)
wait_for '^Backup queue'
shot queue-health-200x50 200 50
scenario_start restorable.yaml
wait_for 'daily-1d'
tmux -L "$SOCK" send-keys -t shots / daily-1d Enter
sleep 1
tmux -L "$SOCK" send-keys -t shots Enter
wait_for '^Restorable'
shot restorable-detail-200x50 200 50
resize 80 24
wait_last '\[/\]:run'
wait_for '^Restorable'
shot restorable-detail-80x24 80 24
scenario_start repo_jobs.yaml
tmux -L "$SOCK" send-keys -t shots H
wait_for '^Repositories'
tmux -L "$SOCK" send-keys -t shots G k k k
wait_for '^> app-default'
shot repo-jobs-health-200x50 200 50
resize 80 24
wait_last 'Esc:back'
wait_for '^> app-default'
shot repo-jobs-health-80x24 80 24
tmux -L "$SOCK" send-keys -t shots l
wait_for '^Log of pod'
wait_for 'Start to maintain repo'
shot repo-jobs-log-80x24 80 24
scenario_start itemops.yaml # a run waiting on plugin operations: a data mover at 40 %, a widget op
wait_for '^B ops-40 +WaitingOps'
tmux -L "$SOCK" send-keys -t shots Enter
wait_for '^  DU\* shop/db-data +data mover InProgress'
shot itemops-detail-200x50 200 50
resize 80 24
wait_last '\[/\]:run'
wait_for '^  data mover +0 of 1 done  400\.0 MiB of 1000\.0 MiB'
shot itemops-detail-80x24 80 24
kill "$SIM_PID"
SIM_PID=""

# the fleet screen: veltop --demo --fleet (seven simulated clusters in-process), once the stalled
# restore is called stalled
fresh_session 160 20 --demo --fleet
wait_for 'fleet of 7 contexts'
wait_for '1 stalled restore'
shot fleet-160x20 160 20
