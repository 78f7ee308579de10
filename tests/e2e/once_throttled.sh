#!/usr/bin/env bash
# once_throttled.sh: a list answered 429 with Retry-After is tried again after the wait, as
# kubectl's client does (client-go rest/with_retry.go: up to 10 times), so `veltop --once` and
# `--wait` succeed after four 429s of every list (they used to give up at the first, exit 1, or
# after four tries in 15 s); a watch answered 429 resumes without a list.
. "$(dirname "$0")/tui_lib.bash" || exit 1

stat() { curl -s "$TUI_SIM_URL/debug/stats"; }

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait.yaml" --quiet --faults throttle-list=4
KC="$TUI_DIR/kubeconfig"
start=$(date +%s)
rc=0
timeout 120 "$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 0 ] || tui_fail "--once after four 429s: exit $rc, stderr: $(cat "$TUI_DIR/err")"
[ -s "$TUI_DIR/err" ] && tui_fail "--once: stderr $(cat "$TUI_DIR/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); names=[r["name"] for r in d["runs"]]; sys.exit(0 if "ok" in names else 1)' "$TUI_DIR/out" ||
    tui_fail "--once: no run 'ok' in $(head -c 300 "$TUI_DIR/out")"
# four waits of Retry-After: 1 before each list answered
[ "$took" -ge 4 ] || tui_fail "--once took ${took}s: it did not wait Retry-After four times"
n=$(stat | python3 -c 'import json,sys; print(json.load(sys.stdin)["faults"]["throttle"])')
[ "$n" -ge 8 ] || tui_fail "only $n throttled answers (backups and restores: 4 each)"
echo "--once after four 429s of every list: ok (${took}s, $n throttled)"
tui_sim_kill

# --wait: the same, then it follows the run to its end
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/wait.yaml" --quiet --faults throttle-list=4,retry-after=3
rc=0
timeout 120 "$VELTOP" --kubeconfig "$KC" --wait backup/ok >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 0 ] || tui_fail "--wait after four 429s (Retry-After: 3): exit $rc, $(cat "$TUI_DIR/err")"
tail -n 1 "$TUI_DIR/out" | grep -Eq '^backup ok finished: Completed after' || tui_fail "--wait: $(tail -n 2 "$TUI_DIR/out")"
echo "--wait after four 429s, 12 s of Retry-After: ok"
tui_sim_kill

# every list 429 for ever: given up after the tries, with the server's message
TUI_SIM_PORT=""
tui_sim_start --scenario empty --quiet --faults throttle-list=1000,retry-after=0
rc=0
timeout 60 "$VELTOP" --kubeconfig "$KC" --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 1 ] || tui_fail "429 for ever: exit $rc"
[ "$(cat "$TUI_DIR/err")" = 'veltop: the server has received too many requests and has asked us to try again later (HTTP 429 TooManyRequests)' ] ||
    tui_fail "429 for ever: stderr $(cat "$TUI_DIR/err")"
n=$(stat | python3 -c 'import json,sys; print(json.load(sys.stdin)["faults"]["throttle"])')
[ "$n" -ge 11 ] || tui_fail "429 for ever: only $n tries"
echo "--once with every list 429: exit 1 after the tries ($n throttled answers)"
tui_sim_kill
echo "PASS once_throttled"
