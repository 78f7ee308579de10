#!/usr/bin/env bash
# soak.sh: the full screen for a long while under churn, to see that nothing grows: runs created
# and deleted through the API every 20 s (the sim's controller runs them), every watch closed by
# the server every 60 s and its history expired every 5 min (re-watches and re-lists), followed
# logs ended by the server (log follows reconnect), and every 60 s the results and the log of a
# finished run opened and closed (DownloadRequests). Every 30 s it samples veltop's RSS (VmRSS),
# open file descriptors and the DownloadRequests in the cluster, as CSV on stdout.
# Not a test (it takes SOAK_S seconds, default 1800): `sh bench/soak.sh BUILD_DIR > soak.csv`.
set -u
BUILD=${1:-build}
SOAK_S=${SOAK_S:-1800}
VELTOP=${VELTOP:-$BUILD/veltop}
SIM=${VELTOP_SIM:-$BUILD/veltop-sim}
for t in tmux curl python3; do command -v $t >/dev/null || { echo "soak: needs $t" >&2; exit 2; }; done
dir=$(mktemp -d)
sock="veltop-soak-$$"
sim_pid=""
cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null
    [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

"$SIM" --listen 127.0.0.1:0 --kubeconfig-out "$dir/kubeconfig" --scenario demo --quiet \
    --faults close-watch=60,expire-every=300,close-logs >"$dir/sim.out" 2>"$dir/sim.err" &
sim_pid=$!
for i in $(seq 1 200); do grep -q 'listening on' "$dir/sim.out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$dir/sim.out" | head -n 1)
[ -n "$url" ] || { echo "soak: the sim did not start" >&2; exit 1; }
api="$url/apis/velero.io/v1/namespaces/velero"

tmux -L "$sock" -f /dev/null new-session -d -s soak -x 120 -y 40 \
    env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color "$VELTOP" --kubeconfig "$dir/kubeconfig"
shpid=$(tmux -L "$sock" list-panes -t soak -F '#{pane_pid}')
pid=""
for i in $(seq 1 100); do
    # the pane runs veltop itself (no shell around it)
    [ -r "/proc/$shpid/status" ] && pid=$shpid && break
    sleep 0.05
done
[ -n "$pid" ] || { echo "soak: veltop did not start" >&2; exit 1; }

keys() { tmux -L "$sock" send-keys -t soak "$@"; }
count_drs() {
    curl -s "$api/downloadrequests" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))' 2>/dev/null || echo "?"
}
sample() { # elapsed
    local rss fds
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    echo "$1,${rss:-gone},$fds,$(count_drs),$n_created,$n_deleted"
}

echo "seconds,rss_kib,fds,downloadrequests,runs_created,runs_deleted"
n_created=0 n_deleted=0
start=$SECONDS
next_sample=0 next_churn=0 next_open=30
while :; do
    el=$((SECONDS - start))
    if [ "$el" -ge "$next_sample" ]; then
        sample "$el"
        next_sample=$((next_sample + 30))
    fi
    [ "$el" -ge "$SOAK_S" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "soak: veltop exited at ${el}s" >&2; exit 1; }
    if [ "$el" -ge "$next_churn" ]; then
        n_created=$((n_created + 1))
        curl -s -o /dev/null -XPOST -H 'Content-Type: application/json' "$api/backups" \
            -d '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"soak-'$n_created'"},"spec":{"includedNamespaces":["shop"]}}'
        if [ "$n_created" -gt 5 ]; then
            curl -s -o /dev/null -XDELETE "$api/backups/soak-$((n_created - 5))"
            n_deleted=$((n_deleted + 1))
        fi
        next_churn=$((next_churn + 20))
    fi
    if [ "$el" -ge "$next_open" ]; then
        # a finished nightly: its results (a DownloadRequest), back, its stored log, back
        keys Escape Escape / nightly Enter
        sleep 1
        keys G Enter
        sleep 2
        keys r
        sleep 3
        keys Escape l
        sleep 3
        keys Escape Escape Escape
        next_open=$((next_open + 60))
    fi
    sleep 1
done
keys q
for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
echo "# after q: downloadrequests $(count_drs)"
