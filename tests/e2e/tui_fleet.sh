#!/usr/bin/env bash
# tui_fleet.sh: the fleet screen in tmux against several veltop-sim processes (one per cluster,
# each with its own kubeconfig context, merged through $KUBECONFIG): every lamp (live, a stalled
# restore, an overdue schedule, pods forbidden, no Velero in the namespace, unauthorised, a black
# hole and a dead port both unreachable), the counts and the worst-first order, the totals; an
# exec-plugin context beside a static token to the same cluster; Enter into a cluster's list and
# Esc back; the picker with a filter as you type, :ctx NAME; [ and ] through clusters; a cluster
# going down and coming back while the others keep updating; alerts naming the context (the
# title and --notify's VELTOP_CONTEXT); with one context, c growing a fleet; a slow cluster (every
# answer 6 s late) delaying no other.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }

D=$TUI_DIR
declare -A PID PORT
# sim NAME [PORT] args...: a veltop-sim whose kubeconfig context is NAME, in $D/NAME.kc
sim() {
    local name=$1 port=$2
    shift 2
    : >"$D/$name.out"
    "$VELTOP_SIM" --listen "127.0.0.1:$port" --context-name "$name" --kubeconfig-out "$D/$name.kc" \
        --quiet "$@" >"$D/$name.out" 2>"$D/$name.err" &
    PID[$name]=$!
    for _ in $(seq 1 200); do
        grep -q 'listening on' "$D/$name.out" && break
        sleep 0.05
    done
    grep -q 'listening on' "$D/$name.out" || tui_fail "sim $name did not start: $(cat "$D/$name.err")"
    PORT[$name]=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$D/$name.out" | head -n 1)
}
stop_sims() { for p in "${PID[@]}"; do kill "$p" 2>/dev/null; done; }
trap 'stop_sims; kill ${HOLE_PID:-} 2>/dev/null; tui_cleanup' EXIT

sim prod-a 0 --scenario fleet-healthy --tls --auth token
sim overdue-c 0 --scenario fleet-overdue
sim forbid-d 0 --scenario fleet-healthy --faults forbid=pods
sim ns-e 0 --scenario fleet-healthy --velero-namespace openshift-adp
sim auth-f 0 --scenario fleet-healthy --tls --auth token
sed -i 's/^    token: .*/    token: not-the-token/' "$D/auth-f.kc"
# down-g: a cluster that is up now; it goes down and comes back on the same port below
sim down-g 0 --scenario fleet-healthy
python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(600)' >"$D/hole.port" &
HOLE_PID=$!
for _ in $(seq 1 100); do [ -s "$D/hole.port" ] && break; sleep 0.05; done
# exec-h: prod-a again, its token from an exec plugin; hole-i: never answers
python3 - "$D" "$(cat "$D/hole.port")" <<'PY' || tui_fail "kubeconfig"
import sys, yaml
d, hole = sys.argv[1:3]
kc = yaml.safe_load(open(d + "/prod-a.kc"))
tok = kc["users"][0]["user"]["token"]
open(d + "/plugin.sh", "w").write("#!/bin/sh\nprintf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                                  "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + tok + "\"}}'\n")
extra = {"apiVersion": "v1", "kind": "Config",
         "clusters": [{"name": "hole", "cluster": {"server": "http://127.0.0.1:" + hole}}],
         "users": [{"name": "exec-user", "user": {"exec": {
             "apiVersion": "client.authentication.k8s.io/v1", "command": d + "/plugin.sh",
             "interactiveMode": "Never"}}}, {"name": "nobody", "user": {}}],
         "contexts": [{"name": "exec-h", "context": {"cluster": "prod-a", "user": "exec-user"}},
                      {"name": "hole-i", "context": {"cluster": "hole", "user": "nobody"}}]}
yaml.safe_dump(extra, open(d + "/extra.kc", "w"))
PY
chmod +x "$D/plugin.sh"
# last, so that veltop sees its restore move before it stops (an alert needs a change it saw)
sim stall-b 0 --scenario fleet-stalled-restore
KC=""
for n in prod-a overdue-c forbid-d ns-e auth-f down-g stall-b; do KC="$KC:$D/$n.kc"; done
export KUBECONFIG="${KC#:}:$D/extra.kc"

NOTE="$D/notify.log"
tui_start 240 30 --all-contexts --notify "echo \"\$VELTOP_CONTEXT \$VELTOP_EVENT \$VELTOP_KIND \$VELTOP_RUN\" >>$NOTE"
tui_wait '^ veltop  fleet of 9 contexts'
# worst first: unreachable (the black hole after 8 s of silence), unauthorised, no Velero, the
# stalled restore, the overdue schedule, forbidden pods, then the healthy ones by name
# the totals: the judgement's (as --once's exit status and JSON summary), then the headlines
tui_wait '^ 9 clusters: 3 OK, 4 wrong, 1 unreadable, 1 unreachable \(1 forbidden, 1 overdue schedule, 1 stalled restore, 1 no Velero, 1 unauthorized, 1 unreachable\)$' 20
tui_wait '^ ● unreachable +hole-i +- +\? +\? +\? +\? +\? +no answer from http://127\.0\.0\.1:[0-9]+ for [0-9]+s' 15
rows=$(tui_screen | grep -E '^ ● ' | sed -E 's/^ ● (no Velero|[a-z]+) +([^ ]+) .*/\2/' | tr '\n' ' ')
[ "$rows" = "hole-i auth-f ns-e stall-b overdue-c forbid-d down-g exec-h prod-a " ] || tui_fail "order: $rows"
tui_wait '^ ● unauthorized +auth-f .*unauthorized: the server rejected the credentials of user "auth-f"'
tui_wait '^ ● no Velero +ns-e +\? +none +0/0/0 +none +0/0 +0/0 +no Velero in namespace velero; Velero is in namespace openshift-adp \(--namespace-for ns-e=openshift-adp\)'
tui_wait '^ ● live +stall-b +v1\.18\.2 +1, 1 stalled +1/0/0 +none +1/1 +3/3 +1 stalled$'
tui_wait '^ ● live +overdue-c .* none +1/0/0 +1, 1 overdue, 1 restorable stale; nightly never +1/1 +3/3 +1 schedule overdue, 1 schedule with nothing restorable newer than 2 intervals'
tui_wait '^ ● forbidden +forbid-d +\? +1, last ~[0-9]+m[0-9]+s +2/0/0 +1, 0 overdue; hourly 30m[0-9]+s/1h00m +1/1 +\? .*forbidden: pods'
tui_wait '^ ● live +exec-h .* 1, last ~[0-9]+m[0-9]+s +2/0/0 +1, 0 overdue; hourly .* 1/1 +3/3'
tui_wait '^ ● live +prod-a .* 1, last ~'
echo "fleet rows: ok"

# WHY readable: cut at first; Right scrolls it sideways, W wraps every WHY whole under itself
why_row() { tui_screen | grep -E '^ ● forbidden +forbid-d '; }
why_row | grep -q 'in the namespace "velero"' && tui_fail "WHY not cut at 240 columns: $(why_row)"
tui_keys Right
tui_wait '^ ● forbidden +forbid-d .*  pods is forbidden: User "system'
why_row | grep -q 'forbidden: pods: pods' && tui_fail "Right did not scroll WHY: $(why_row)"
tui_keys Left W
tui_wait 'WHY wrapped in full'
tui_wait '^ ● forbidden +forbid-d .*  forbidden: pods: pods is forbidden'
tui_wait '^ {100,}[^ ].*in the namespace "velero"'
tui_keys W
tui_wait 'WHY on one line'
tui_wait_gone '^ {100,}[^ ].*in the namespace "velero"'
# / filters the contexts by regular expression (the totals stay the fleet's), !RE the others
fleet_rows() { tui_screen | grep -E '^ ● ' | sed -E 's/^ ● (no Velero|[a-z]+) +([^ ]+) .*/\2/' | tr '\n' ' '; }
tui_keys / '-[AB]$' Enter
tui_wait '^ filter: /-\[AB\]\$ +2 of 9 contexts  Esc clears$'
[ "$(fleet_rows)" = "stall-b prod-a " ] || tui_fail "filter: $(fleet_rows)"
tui_wait '^ 9 clusters: 3 OK, 4 wrong'
tui_keys Escape / '!-[ab]$' Enter
tui_wait '^ filter: /!-\[ab\]\$ +7 of 9 contexts  Esc clears$'
[ "$(fleet_rows)" = "hole-i auth-f ns-e overdue-c forbid-d down-g exec-h " ] || tui_fail "!filter: $(fleet_rows)"
tui_keys Escape / 'x[' Enter
tui_wait 'not a regular expression: x\['
[ -z "$(fleet_rows)" ] || tui_fail "a bad expression shows rows: $(fleet_rows)"
tui_keys Escape
tui_wait_gone 'filter:'
[ "$(fleet_rows)" = "hole-i auth-f ns-e stall-b overdue-c forbid-d down-g exec-h prod-a " ] || tui_fail "cleared: $(fleet_rows)"
# at 80x24 the totals are cut with an ellipsis, the rows keep their lamp, context and WHY
tui_resize 80 24
tui_wait '^ 9 clusters: 3 OK, 4 wrong, 1 unreadable, 1 unreachable \(1 forbidden, 1 overdu…$'
tui_wait '^ LAMP +CONTEXT +IN FLIGHT +WHY$'
tui_wait '^ ● live +overdue-c +none +1 schedule overdue, 1 schedule…$'
tui_wait '^ ● no Velero +ns-e +none +no Velero in namespace velero;…$'
tui_keys W
tui_wait '^ {40,}Velero is in namespace$'
tui_wait '^ {40,}openshift-adp \(--namespace-for$'
tui_wait '^ {40,}ns-e=openshift-adp\)$'
tui_keys W
# the column budget, header lines exact (the widest cells: overdue-c's schedules, 47 columns; the
# healthy ones' "1, last ~33m..s"): at 80 and 120 the version, node agents, locations and
# schedules (at 80 the last 24 h too) give way to a WHY of 30 or more; from 160 on every column
# shows and WHY takes what is left (160 used to drop the version)
header_is() { # cols line
    tui_resize "$1" 30
    local end=$((SECONDS + 20))
    until tui_screen | grep -Fxq -- "$2"; do
        [ "$SECONDS" -le "$end" ] || tui_fail "header at $1 columns: '$(tui_screen | grep -E '^ LAMP ')', want '$2'"
        sleep 0.1
    done
}
ALL=' LAMP            CONTEXT    VELERO   IN FLIGHT        24H OK/PF/F  SCHEDULES                                        BSL  AGENTS     WHY'
header_is 80 ' LAMP            CONTEXT    IN FLIGHT           WHY'
header_is 120 ' LAMP            CONTEXT    IN FLIGHT        24H OK/PF/F     WHY'
header_is 160 "$ALL"
# every cell whole, and WHY beside them (cut: Right and W show the rest)
tui_wait '^ ● live +overdue-c +v1\.18\.2 +none +1/0/0 +1, 1 overdue, 1 restorable stale; nightly never +1/1 +3/3 +1 schedule overdue, 1 s[^ ]*…$'
tui_wait '^ ● forbidden +forbid-d +\? +1, last ~[0-9]+m[0-9]+s +2/0/0 +1, 0 overdue; hourly 30m[0-9]+s/1h00m +1/1 +\? +forbidden: pods: pods is f[^ ]*…$'
header_is 200 "$ALL"
header_is 240 "$ALL"
tui_wait '^ 9 clusters: .*1 unreachable\)$'
echo "fleet columns at 80, 120, 160, 200, 240: ok"

# alerts name the context: the stalled restore rang with its context in the title and the env
for _ in $(seq 1 100); do grep -q 'restore-drill' "$NOTE" 2>/dev/null && break; sleep 0.1; done
grep -qx 'stall-b stalled restore restore-drill' "$NOTE" || tui_fail "--notify: $(cat "$NOTE" 2>/dev/null)"
title=$(tmux -L "$TUI_SOCK" display-message -p -t veltop '#{pane_title}')
[ "$title" = "veltop: stall-b: restore restore-drill stalled" ] || tui_fail "title: $title"
echo "alerts: ok"

# Enter opens the selected cluster's list (the header names its context), Esc comes back
tui_keys G
tui_keys Enter
tui_wait '^ veltop  ctx prod-a  ns velero  read-only  https://127\.0\.0\.1:'
tui_wait 'B adhoc-full +InProgress'
tui_keys Escape
tui_wait '^ veltop  fleet of 9 contexts'
# [ and ] on the fleet screen move the selection; then into stall-b and through the clusters
tui_keys g ']' ']' ']' Enter
tui_wait '^ veltop  ctx stall-b '
tui_wait 'R restore-drill +InProgress .*stalled'
tui_keys ']'
tui_wait '^ veltop  ctx overdue-c '
tui_keys ']'
tui_wait '^ veltop  ctx forbid-d '
tui_keys '['
tui_wait '^ veltop  ctx overdue-c '
echo "enter, esc, [ ]: ok"

# the picker: :ctx (c is left for copying, as k9s), a filter as you type, Enter; :ctx NAME
tui_keys ':' c t x Enter
tui_wait '^ context:'
tui_wait '^ 9 of 9 contexts'
tui_keys e x
tui_wait '^ 1 of 9 contexts'
tui_wait '^   exec-h +watched'
tui_keys Enter
tui_wait '^ veltop  ctx exec-h  ns velero  read-only  https://'
tui_keys ':'
tui_keys c t x ' ' n s - e Enter
tui_wait '^ veltop  ctx ns-e '
tui_keys ':' c t x Enter
tui_wait '^ context:'
tui_keys Escape
tui_wait_gone '^ context:'
tui_keys ':' n o p e Enter
tui_wait "unknown command 'nope' \(bak rst sched bsl vsl repo pvb pvr du dd ctx q\)"
echo "picker: ok"

# a cluster goes down (its row says so within 10 s) while the others update, then comes back
tui_keys Escape
tui_wait '^ veltop  fleet of 9 contexts'
kill "${PID[down-g]}"
wait "${PID[down-g]}" 2>/dev/null
tui_wait '^ ● unreachable +down-g ' 10
before=$(tui_line '^ ● live +prod-a ')
tui_wait_change '^ ● live +prod-a ' "$before" 15
sim down-g "${PORT[down-g]}" --scenario fleet-healthy
tui_wait '^ ● live +down-g .* 1, last ~' 40
echo "down and back: ok"

tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "exit status"

# one context: the screens of before; :ctx offers the kubeconfig's contexts, and picking one makes
# a fleet of two (the fleet screen under the new cluster's list)
tui_server_stop
tui_start 200 30 --context forbid-d
tui_wait '^ veltop  ctx forbid-d  ns velero '
tui_wait 'B adhoc-full +InProgress'
tui_keys ']'
tui_wait 'one context watched \(:ctx picks another\)'
tui_keys ':' c t x Enter
tui_wait '^ context:'
tui_keys o v e r
tui_wait '^ 1 of 9 contexts'
tui_wait '^   overdue-c$'
tui_keys Enter
tui_wait '^ veltop  ctx overdue-c  ns velero '
tui_keys Escape
tui_wait '^ veltop  fleet of 2 contexts'
tui_wait '^ 2 clusters: 2 wrong \(1 forbidden, 1 overdue schedule\)$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "exit status"
echo "picker grows a fleet: ok"

# a slow cluster (every answer 6 s late) delays no other: prod-a is live while slow-j still
# connects, then slow-j is live too
sim slow-j 0 --scenario fleet-healthy --faults stall=6000
export KUBECONFIG="$KUBECONFIG:$D/slow-j.kc"
tui_server_stop
tui_start 200 30 --context prod-a,slow-j
both=""
end=$((SECONDS + 5))
while [ "$SECONDS" -le "$end" ]; do
    scr=$(tui_screen)
    if grep -Eq '^ ● live +prod-a .* 1, last ~' <<<"$scr" && grep -Eq '^ ● connecting +slow-j ' <<<"$scr"; then
        both=1
        break
    fi
    sleep 0.1
done
[ -n "$both" ] || tui_fail "prod-a not live while slow-j connects"
tui_wait '^ ● live +slow-j .* 1, last ~' 40
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "exit status"
echo "tui_fleet: ok"
