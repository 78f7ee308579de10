#!/usr/bin/env bash
# tui_exec_interactive.sh: an exec plugin with interactiveMode Always gets the terminal before
# the screen starts, as kubectl hands it stdin (client-go exec.go: cmd.Stdin = os.Stdin): it
# prompts, reads the token typed, and receives spec.interactive true; then the screen comes up,
# authenticated. veltop used to refuse such a plugin ("needs an interactive terminal").
# IfAvailable on a terminal likewise; --once with stdin not a terminal: IfAvailable runs it with
# spec.interactive false, Always is refused with client-go's reason.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --tls --auth token
TOKEN=$(sed -n 's/^ *token: //p' "$TUI_DIR/kubeconfig")
[ -n "$TOKEN" ] || tui_fail "no token in the sim's kubeconfig"
INFO="$TUI_DIR/info"

kc_with_mode() { # mode -> kubeconfig with the prompting plugin as the user
    sed '/^ *token: /d' "$TUI_DIR/kubeconfig" | sed "s|^  user:\$|  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: $FIXTURES_DIR/plugins/prompt-plugin.sh\n      interactiveMode: $1\n      env: [{name: INFO_FILE, value: '$INFO'}]|" >"$TUI_DIR/kc-$1"
    grep -q "interactiveMode: $1" "$TUI_DIR/kc-$1" || tui_fail "kubeconfig for $1 not written"
}

for mode in Always IfAvailable; do
    kc_with_mode "$mode"
    rm -f "$INFO"
    tui_start 120 40 --kubeconfig "$TUI_DIR/kc-$mode"
    tui_wait 'test-login token:'
    grep -q '"interactive":true' "$INFO" || tui_fail "$mode: spec.interactive not true: $(cat "$INFO")"
    tui_keys -l "$TOKEN"
    tui_keys Enter
    tui_wait 'live' 30
    tui_wait 'B backup-done +Completed'
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "$mode: exit status"
    tui_server_stop
    echo "$mode on a terminal: prompted before the screen, then live: ok"
done

# the login fails (end of input at the prompt): exit 1 with the reason, before any screen
# (wide enough that the message, which names the plugin's full path, is not wrapped: the
# checkout's path may be long)
tui_start 400 40 --kubeconfig "$TUI_DIR/kc-Always"
tui_wait 'test-login token:'
tui_keys C-d
[ "$(tui_wait_exit)" = 1 ] || tui_fail "failed login: exit status"
tui_wait 'veltop: exec plugin ".*prompt-plugin.sh" returned neither a token'
tui_server_stop
echo "a failed login before the screen: exit 1 with the reason: ok"

# --once, stdin not a terminal: IfAvailable runs without it (stdin /dev/null, as kubectl)
rm -f "$INFO"
rc=0
echo "not-for-the-plugin" | FALLBACK_TOKEN=$TOKEN timeout 60 "$VELTOP" --kubeconfig "$TUI_DIR/kc-IfAvailable" --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 0 ] || tui_fail "--once IfAvailable: exit $rc: $(cat "$TUI_DIR/err")"
grep -q '"interactive":false' "$INFO" || tui_fail "--once IfAvailable: $(cat "$INFO")"
kc_with_mode Always
rc=0
echo "$TOKEN" | FALLBACK_TOKEN=$TOKEN timeout 60 "$VELTOP" --kubeconfig "$TUI_DIR/kc-Always" --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" || rc=$?
[ "$rc" = 1 ] || tui_fail "--once Always without a terminal: exit $rc"
grep -q "cannot support interactive mode: standard input is not a terminal" "$TUI_DIR/err" ||
    tui_fail "--once Always: $(cat "$TUI_DIR/err")"
echo "PASS tui_exec_interactive"
