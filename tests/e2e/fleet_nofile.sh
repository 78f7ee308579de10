#!/usr/bin/env bash
# fleet_nofile.sh: more contexts than veltop's open-file limit can hold. Twelve contexts of one
# plain-http veltop-sim (HTTP/1.1: a connection per watch, 17 descriptors a context) under a hard
# limit of 128: --once watches the 3 that fit and says of the others exactly "open-file limit 128
# reached: 9 contexts not watched; raise it with ulimit -n" (its own exit status 10), never
# "unreachable" or "cannot connect"; under `ulimit -S -n 128` alone veltop raises its limit and
# watches all twelve; --serve answers scrapes with veltop_contexts_not_watched 10 (16 descriptors
# kept for its clients) and does not spin; the fleet screen carries the same line, and its
# picker does not add a context beyond the budget (:ctx c04 says why). An exec credential plugin
# runs with the soft limit veltop was started with (1024), not the one it raised.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 0; }
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 0; }
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ] || {
    echo "SKIP: the hard open-file limit is below 1024"
    exit 0
}
D=$TUI_DIR
VELTOP_PID="" TLS_SIM_PID=""
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; [ -n "$TLS_SIM_PID" ] && kill "$TLS_SIM_PID" 2>/dev/null; tui_cleanup' EXIT
tui_sim_start --scenario fleet-healthy --quiet
# twelve contexts c01..c12, each the sim's cluster and user
python3 - "$D/kubeconfig" "$D/many.kc" <<'PY'
import sys, yaml
kc = yaml.safe_load(open(sys.argv[1]))
ctx = kc["contexts"][0]["context"]
kc["contexts"] = [{"name": "c%02d" % i, "context": dict(ctx)} for i in range(1, 13)]
kc["current-context"] = "c01"
yaml.safe_dump(kc, open(sys.argv[2], "w"))
PY
export KUBECONFIG="$D/many.kc"
grep -q 'server: http://' "$D/many.kc" || tui_fail "the sim is not plain http"
LINE9='veltop: open-file limit 128 reached: 9 contexts not watched; raise it with ulimit -n'

# --once under a hard limit of 128: 3 watched, 9 not, exit 10, one line on stderr
rc=0
(ulimit -n 128 && exec "$VELTOP" --once --all-contexts) >"$D/once.out" 2>"$D/once.err" || rc=$?
cat "$D/once.err"
[ "$rc" = 10 ] || tui_fail "--once under ulimit -n 128: exit $rc, not 10"
grep -qxF "$LINE9" "$D/once.err" || tui_fail "--once: no line '$LINE9'"
grep -Eiq 'unreachable|cannot connect|refused' "$D/once.err" "$D/once.out" &&
    tui_fail "--once called the limit a network fault"
[ "$(grep -Ec '^c(0[1-3]) ' "$D/once.out")" -ge 3 ] || { cat "$D/once.out" >&2; tui_fail "--once: c01-c03 not in the table"; }
grep -Eq '^c(0[4-9]|1[0-2]) ' "$D/once.out" && tui_fail "--once: a context not watched has rows"
rc=0
(ulimit -n 128 && exec "$VELTOP" --once --json --all-contexts) >"$D/once.json" 2>/dev/null || rc=$?
[ "$rc" = 10 ] || tui_fail "--once --json under ulimit -n 128: exit $rc, not 10"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["context"] for c in d["contexts"]]
assert names == ["c01", "c02", "c03"], names
assert all(c["reachable"] for c in d["contexts"]), d["contexts"]' "$D/once.json" ||
    tui_fail "--once --json: not the three watched contexts, all reachable"
echo "--once under ulimit -n 128: 3 watched, 9 said not watched, exit 10: ok"

# only the soft limit at 128: raised to the hard one, all twelve watched
rc=0
(ulimit -S -n 128 && exec "$VELTOP" --once --all-contexts) >"$D/once2.out" 2>"$D/once2.err" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 7 ] || { cat "$D/once2.err" >&2; tui_fail "--once under ulimit -S -n 128: exit $rc"; }
grep -q 'open-file limit' "$D/once2.err" && tui_fail "--once under ulimit -S -n 128 did not raise its limit"
[ "$(grep -Ec '^c(0[1-9]|1[0-2]) ' "$D/once2.out")" -ge 12 ] || tui_fail "--once under ulimit -S -n 128: not all twelve"
echo "--once under ulimit -S -n 128: all twelve: ok"

# an exec credential plugin starts with the limit veltop was given (1024), not the raised one
cat >"$D/plugin.sh" <<EOF2
#!/bin/sh
ulimit -Sn >"$D/plugin.limit"
printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'
EOF2
chmod +x "$D/plugin.sh"
# over TLS: no credentials go over plain http
"$VELTOP_SIM" --listen 127.0.0.1:0 --tls --kubeconfig-out "$D/tls.kc" --scenario fleet-healthy \
    --quiet >"$D/tls.out" 2>"$D/tls.err" &
TLS_SIM_PID=$!
for _ in $(seq 1 200); do grep -q 'listening on' "$D/tls.out" && break; sleep 0.05; done
grep -q 'listening on' "$D/tls.out" || tui_fail "the TLS sim did not start: $(cat "$D/tls.err")"
python3 - "$D/tls.kc" "$D/exec.kc" "$D/plugin.sh" <<'PY'
import sys, yaml
kc = yaml.safe_load(open(sys.argv[1]))
kc["users"][0]["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1",
                                   "command": sys.argv[3], "interactiveMode": "Never"}}
yaml.safe_dump(kc, open(sys.argv[2], "w"))
PY
rc=0
(ulimit -S -n 1024 && exec "$VELTOP" --kubeconfig "$D/exec.kc" --once) >/dev/null 2>"$D/exec.err" || rc=$?
[ "$rc" = 0 ] || { cat "$D/exec.err" >&2; tui_fail "--once with an exec plugin: exit $rc"; }
[ "$(cat "$D/plugin.limit")" = 1024 ] || tui_fail "the exec plugin ran with a soft limit of $(cat "$D/plugin.limit"), not 1024"
echo "exec plugin: started with the original soft limit 1024 (veltop's: $(ulimit -Hn)): ok"
kill "$TLS_SIM_PID"
wait "$TLS_SIM_PID" 2>/dev/null
TLS_SIM_PID=""

# --serve: the metric, the stderr line, scrapes answered, no spinning
VPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(ulimit -n 128 && exec "$VELTOP" --all-contexts --serve "127.0.0.1:$VPORT") >"$D/serve.out" 2>"$D/serve.err" &
VELTOP_PID=$!
M="http://127.0.0.1:$VPORT/metrics"
end=$((SECONDS + 20))
until curl -sf --max-time 2 "$M" >"$D/m.txt" && [ "$(grep -c '^veltop_cluster_reachable{.*} 1$' "$D/m.txt")" = 2 ]; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/serve.err" >&2; tui_fail "--serve exited"; }
    [ "$SECONDS" -le "$end" ] || { grep '^veltop_' "$D/m.txt" | head -20 >&2; tui_fail "--serve: two reachable contexts never showed"; }
    sleep 0.2
done
grep -qx 'veltop_contexts_not_watched 10' "$D/m.txt" || tui_fail "--serve: veltop_contexts_not_watched is not 10"
grep -qx 'veltop_open_files_limit 128' "$D/m.txt" || tui_fail "--serve: veltop_open_files_limit is not 128"
grep -qxF 'veltop: open-file limit 128 reached: 10 contexts not watched; raise it with ulimit -n' "$D/serve.err" ||
    { cat "$D/serve.err" >&2; tui_fail "--serve: no stderr line"; }
ticks() { awk '{print $14 + $15}' "/proc/$VELTOP_PID/stat"; }
t0=$(ticks)
for _ in $(seq 1 30); do curl -sf --max-time 1 "$M" >/dev/null || tui_fail "a scrape failed"; sleep 0.1; done
t1=$(ticks)
hz=$(getconf CLK_TCK)
echo "--serve: $((t1 - t0)) ticks of CPU in about 3 s of scrapes (at $hz a second)"
[ $((t1 - t0)) -le $((hz * 3 / 5)) ] || tui_fail "--serve spins: $((t1 - t0)) ticks in 3 s"
kill -TERM "$VELTOP_PID"
wait "$VELTOP_PID" || tui_fail "--serve: SIGTERM exit $?"
VELTOP_PID=""
echo "--serve under ulimit -n 128: not_watched 10, scrapes answered, no spin: ok"

# the fleet screen: the same words under the totals
cat >"$D/veltop128" <<EOF2
#!/bin/sh
ulimit -n 128 && exec "$VELTOP" "\$@"
EOF2
chmod +x "$D/veltop128"
VELTOP="$D/veltop128" tui_start 120 30 --all-contexts
tui_wait 'open-file limit 128 reached: 9 contexts not watched; raise it with ulimit -n'
tui_wait 'live +c03 '
tui_screen | grep -Eq ' c(0[4-9]|1[0-2]) ' && tui_fail "the fleet screen shows a context not watched"
# the picker does not add one beyond the budget either: it says why
tui_keys ':'
tui_keys c t x ' ' c 0 4 Enter
tui_wait 'open-file limit 128 reached: c04 not watched; raise it with ulimit -n'
tui_screen | grep -q 'fleet of 3 contexts' || tui_fail "the picker grew the fleet past the budget"
tui_keys Escape
tui_keys q
echo "fleet screen: ok"
echo "fleet_nofile: ok"
