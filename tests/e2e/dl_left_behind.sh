#!/usr/bin/env bash
# dl_left_behind.sh: every DownloadRequest veltop creates is deleted on every path out, against
# veltop-sim's object-store faults (dl-hang: the store answers and sends nothing; dl-drip: 2 bytes
# a second; dl-expired: S3's 403 "Request has expired"): --once --details at its deadline and on
# SIGTERM/SIGHUP; the full screen on Esc from a log and from results while the download hangs, on
# q and on SIGTERM/SIGHUP during a download. After each: 0 DownloadRequests left in the cluster. A
# dripping store is given up with a message; an expired link is renewed once, then told.
source "$(dirname "$0")/tui_lib.bash"

SCEN="$FIXTURES_DIR/scenarios/basic.yaml"
KC="$TUI_DIR/kubeconfig"

# DownloadRequests in the cluster (of target kind $1 when given: while the full screen runs, the
# restore in progress has its backup's resource list on its way, hanging too)
left() {
    curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/downloadrequests" |
        python3 -c 'import json,sys; k=sys.argv[1:]; print(len([i for i in json.load(sys.stdin)["items"] if not k or i["spec"]["target"]["kind"] == k[0]]))' "$@"
}
created() {
    curl -s "$TUI_SIM_URL/debug/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["downloadRequestsCreated"])'
}
# waits (bounded) until no DownloadRequest is left; $1 says after what
wait_none_left() { # what [kind]
    local end=$((SECONDS + 10)) n
    while [ "$SECONDS" -le "$end" ]; do
        n=$(left "${@:2}")
        [ "$n" = 0 ] && return 0
        sleep 0.1
    done
    tui_fail "$1: $n DownloadRequests left behind"
}
wait_created() { # at least N
    local end=$((SECONDS + 20))
    while [ "$SECONDS" -le "$end" ]; do
        [ "$(created)" -ge "$1" ] && return 0
        sleep 0.05
    done
    tui_fail "no DownloadRequest created (want $1, have $(created))"
}
sim() { # faults [scenario]
    [ -n "$TUI_SIM_PID" ] && tui_sim_kill
    tui_sim_start --scenario "${2:-$SCEN}" --quiet --no-resource-progress --faults "$1"
}
# one finished backup and nothing else, so that every DownloadRequest created is its log's
ONE="$TUI_DIR/one.yaml"
printf '%s\n' 'namespaces: [shop]' 'runs:' \
    '  - {kind: backup, name: backup-done, start: -1h, rate: 20, resources: [{name: pods, items: 5}]}' >"$ONE"

# ---- --once --details: its deadline with a store that hangs ----
sim dl-hang
t0=$SECONDS
"$VELTOP" --kubeconfig "$KC" --once --details --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --details failed: $(cat "$TUI_DIR/once.err")"
[ $((SECONDS - t0)) -le 12 ] || tui_fail "--once --details took $((SECONDS - t0)) s with a hanging store"
[ "$(created)" -ge 1 ] || tui_fail "--once --details created no DownloadRequest"
wait_none_left "--once at its deadline"
grep -Eq '^veltop: backup backup-done: per-resource rows unknown: BackupResourceList not in before the --once deadline \((downloading|queued)\)$' "$TUI_DIR/once.err" ||
    tui_fail "stderr does not name the list that did not come: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" <<'PY' || tui_fail "--once --json: rows of a list that did not come"
import json, sys
r = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}["backup-done"]
assert r["resources"] is None, r["resources"]
assert r["resourcesNote"] in ("BackupResourceList not in before the --once deadline (downloading)",
                              "BackupResourceList not in before the --once deadline (queued)"), r
PY

# ---- --once --details: SIGTERM and SIGHUP while the downloads hang ----
for sig in TERM HUP; do
    before=$(created)
    "$VELTOP" --kubeconfig "$KC" --once --details --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" &
    pid=$!
    wait_created $((before + 1))
    kill -"$sig" "$pid"
    wait "$pid"
    st=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$st" = "$want" ] || tui_fail "--once on SIG$sig exited $st, want $want"
    [ -s "$TUI_DIR/once.json" ] && tui_fail "--once printed a snapshot after SIG$sig"
    wait_none_left "--once on SIG$sig"
done

# ---- the full screen: Esc from a log and from results while the download hangs, then q ----
tui_start 140 40 --kubeconfig "$KC"
tui_wait 'backup-done' 15
tui_keys / ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
before=$(created)
tui_keys l
tui_wait 'Log of backup backup-done +downloading: 0 B received' 20
wait_created $((before + 1))
tui_keys Escape
wait_none_left "Esc from a log being downloaded" BackupLog
before=$(created)
tui_keys Enter
tui_wait 'Backup backup-done' 5
tui_keys r
tui_wait 'Results of backup backup-done +downloading\.\.\.' 20
wait_created $((before + 1))
tui_keys Escape
wait_none_left "Esc from results being downloaded" BackupResults
tui_keys l
tui_wait 'Log of backup backup-done +downloading' 20
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q did not exit 0"
wait_none_left "q during a download"

# ---- the full screen: SIGTERM and SIGHUP during a download ----
for sig in TERM HUP; do
    tui_server_stop
    tui_start 140 40 --kubeconfig "$KC"
    tui_wait 'backup-done' 15
    tui_keys / ; tui_keys "backup-done" Enter
    tui_keys l
    tui_wait 'Log of backup backup-done +downloading' 20
    pane=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_pid}')
    vpid=$(pgrep -P "$pane" -x veltop)
    [ -n "$vpid" ] || tui_fail "veltop's pid not found"
    kill -"$sig" "$vpid"
    tui_wait_exit >/dev/null
    wait_none_left "SIG$sig on the full screen during a download"
done
tui_server_stop

# ---- a store dripping 2 bytes a second is given up, with a message ----
sim dl-drip=2
tui_start 160 40 --kubeconfig "$KC"
tui_wait 'backup-done' 15
tui_keys / ; tui_keys "backup-done" Enter
tui_keys l
tui_wait 'Log of backup backup-done +downloading: [0-9]+ B received' 20
tui_wait 'downloading BackupLog: the object store sent [0-9]+ bytes in 1[5-9] s, under 256 bytes a second: given up' 40
wait_none_left "a dripping store"
tui_server_stop

# ---- an expired link: a new DownloadRequest once, and the log arrives ----
sim dl-expired=1 "$ONE"
tui_start 160 40 --kubeconfig "$KC"
tui_wait 'backup-done' 15
tui_keys / ; tui_keys "backup-done" Enter
tui_keys l
tui_wait 'Log of backup backup-done +stored log, [0-9]+ lines' 20
[ "$(created)" = 2 ] || tui_fail "an expired link: $(created) DownloadRequests, want 2 (one renewal)"
wait_none_left "an expired link renewed"
tui_server_stop

# ---- expired twice: told so, not "forbidden" ----
sim dl-expired=100 "$ONE"
tui_start 200 40 --kubeconfig "$KC"
tui_wait 'backup-done' 15
tui_keys / ; tui_keys "backup-done" Enter
tui_keys l
tui_wait 'the download link expired before it was used, twice' 20
tui_screen | grep -q forbidden && tui_fail "an expired link shown as forbidden"
[ "$(created)" = 2 ] || tui_fail "expired twice: $(created) DownloadRequests, want 2"
wait_none_left "an expired link, twice"
echo "ok"
