#!/usr/bin/env bash
# cli_contexts.sh: words about kubeconfigs. --context NAME with no kubeconfig file at all says no
# kubeconfig was found and where veltop looked (not "not found in" a file that does not exist);
# --list-contexts marks the current context on a terminal ("*", as kubectl config
# get-contexts) and prints the bare names when piped (shell completion reads them).
set -u
: "${VELTOP:?}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$dir/home"
out=$(HOME="$dir/home" KUBECONFIG= "$VELTOP" --context nope --once 2>&1) && fail "--context nope succeeded"
[ "$out" = "veltop: no kubeconfig found (looked in $dir/home/.kube/config), so no context \"nope\"" ] ||
    fail "no kubeconfig: $out"
out=$(HOME="$dir/home" KUBECONFIG="$dir/a:$dir/b" "$VELTOP" --context nope --once 2>&1)
[ "$out" = "veltop: no kubeconfig found (looked in $dir/a:$dir/b), so no context \"nope\"" ] ||
    fail "no kubeconfig in KUBECONFIG: $out"
cat >"$dir/config" <<'YAML'
apiVersion: v1
kind: Config
current-context: staging
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: prod
  context: {cluster: c, user: u}
- name: staging
  context: {cluster: c, user: u}
YAML
# a file that exists: the context is what is missing
out=$("$VELTOP" --kubeconfig "$dir/config" --context nope --once 2>&1)
[ "$out" = "veltop: context \"nope\" not found in $dir/config" ] || fail "missing context: $out"
# piped: bare names
[ "$("$VELTOP" --kubeconfig "$dir/config" --list-contexts)" = "$(printf 'prod\nstaging')" ] ||
    fail "--list-contexts piped: $("$VELTOP" --kubeconfig "$dir/config" --list-contexts)"
# on a terminal: the current one marked
if command -v script >/dev/null; then
    script -qec "$VELTOP --kubeconfig $dir/config --list-contexts" /dev/null | tr -d '\r' >"$dir/tty.txt"
    [ "$(cat "$dir/tty.txt")" = "$(printf '  prod\n* staging')" ] || fail "--list-contexts on a terminal: $(cat -A "$dir/tty.txt")"
else
    echo "SKIP: no script(1) for a terminal (the piped form was checked)"
    exit 0
fi
echo "PASS cli_contexts"
