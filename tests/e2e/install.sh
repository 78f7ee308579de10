#!/usr/bin/env bash
# install.sh: `cmake --install` into a temporary prefix puts veltop, veltop-sim, the kubectl plugin
# (kubectl-veltop -> veltop, kubectl_complete-veltop), the manual page and bash/zsh completion in
# place; `man veltop` finds and renders the page without a groff warning; the real kubectl runs
# the plugin with its --kubeconfig, --context and -n flags; bash completion offers the options and
# the kubeconfig's context names, as does kubectl's plugin completion.
set -u
: "${VELTOP:?}" "${VELTOP_SIM:?}" "${SRC_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
BUILD_DIR=$(dirname "$VELTOP")
T=$(mktemp -d)
SIM_PID=""
cleanup() {
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
P="$T/prefix"

cmake --install "$BUILD_DIR" --prefix "$P" >"$T/install.out" 2>&1 || fail "install: $(cat "$T/install.out")"
for f in bin/veltop bin/veltop-sim bin/kubectl_complete-veltop; do
    [ -x "$P/$f" ] || fail "$f not installed"
done
[ "$(readlink "$P/bin/kubectl-veltop")" = veltop ] || fail "kubectl-veltop is not a link to veltop"
cmp -s "$P/share/man/man1/veltop.1" "$SRC_DIR/doc/veltop.1" || fail "man page not installed"
cmp -s "$P/share/bash-completion/completions/veltop" "$SRC_DIR/completions/veltop.bash" ||
    fail "bash completion not installed"
[ "$(readlink "$P/share/bash-completion/completions/kubectl-veltop")" = veltop ] ||
    fail "bash completion for kubectl-veltop"
cmp -s "$P/share/zsh/site-functions/_veltop" "$SRC_DIR/completions/_veltop" || fail "zsh completion"
# installing again over the same prefix works (the links exist already)
cmake --install "$BUILD_DIR" --prefix "$P" >"$T/install.out" 2>&1 || fail "reinstall: $(cat "$T/install.out")"

# man veltop: found under the prefix, rendered with no warning
[ "$(MANPATH="$P/share/man" man -w veltop)" = "$P/share/man/man1/veltop.1" ] || fail "man -w veltop"
groff -man -Tutf8 -ww -z "$P/share/man/man1/veltop.1" 2>"$T/groff.err" || fail "groff failed"
[ -s "$T/groff.err" ] && fail "groff warnings: $(cat "$T/groff.err")"
MANPATH="$P/share/man" MANPAGER=cat COLUMNS=80 man veltop 2>/dev/null >"$T/man.txt"
grep -q '^NAME' "$T/man.txt" && grep -q 'veltop - watch Velero backups and restores live' "$T/man.txt" ||
    fail "man veltop: $(head -n 5 "$T/man.txt")"
# every option of --help is in the manual
for o in $("$VELTOP" --help | grep -oE '^  (-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
    grep -q -- "${o//-/\\\\-}" "$P/share/man/man1/veltop.1" || fail "option $o missing from the man page"
done

# the installed program runs; as kubectl-veltop its help says so
"$P/bin/veltop" --version | grep -q '^veltop [0-9]' || fail "installed veltop --version"
[ "$("$P/bin/kubectl-veltop" --help | head -n 1)" = "usage: kubectl veltop [options]" ] ||
    fail "kubectl-veltop --help: $("$P/bin/kubectl-veltop" --help | head -n 1)"

if ! command -v kubectl >/dev/null 2>&1; then
    echo "SKIP: kubectl is not installed (install layout checked)"
    exit 0
fi

# a sim, and a kubeconfig with a second context whose server is unreachable: --context decides
"$VELTOP_SIM" --quiet --listen 127.0.0.1:0 --scenario "$SRC_DIR/tests/fixtures/scenarios/basic.yaml" \
    --kubeconfig-out "$T/sim.kubeconfig" >"$T/sim.out" 2>&1 &
SIM_PID=$!
for _ in $(seq 1 200); do grep -q '^listening on ' "$T/sim.out" && break; sleep 0.05; done
grep -q '^listening on ' "$T/sim.out" || fail "sim did not start: $(cat "$T/sim.out")"
ctx=$(KUBECONFIG="$T/sim.kubeconfig" kubectl config current-context)
cp "$T/sim.kubeconfig" "$T/two.kubeconfig"
KUBECONFIG="$T/two.kubeconfig" kubectl config set-cluster nowhere --server=https://127.0.0.1:1 >/dev/null
KUBECONFIG="$T/two.kubeconfig" kubectl config set-credentials nobody --token=none >/dev/null
KUBECONFIG="$T/two.kubeconfig" kubectl config set-context elsewhere --cluster=nowhere --user=nobody >/dev/null
KUBECONFIG="$T/two.kubeconfig" kubectl config use-context elsewhere >/dev/null

export PATH="$P/bin:$PATH"
kubectl plugin list 2>/dev/null | grep -q "$P/bin/kubectl-veltop" || fail "kubectl plugin list: $(kubectl plugin list 2>&1)"
kubectl veltop --kubeconfig "$T/two.kubeconfig" --context "$ctx" -n velero --once >"$T/once.txt" 2>"$T/once.err" ||
    fail "kubectl veltop --once: $(cat "$T/once.err")"
grep -qE '^backup-done +Backup +Completed ' "$T/once.txt" || fail "kubectl veltop --once: $(cat "$T/once.txt")"
# the flags in their other spellings, the kubeconfig from the environment
KUBECONFIG="$T/two.kubeconfig" kubectl veltop --context="$ctx" --namespace=velero --once --json >"$T/once.json" ||
    fail "kubectl veltop --context= --namespace="
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["namespace"]=="velero" and d["context"]==sys.argv[2], d' \
    "$T/once.json" "$ctx" || fail "kubectl veltop --json: $(head -c 300 "$T/once.json")"
# the current context (unreachable) is used without --context; -n is Velero's namespace
KUBECONFIG="$T/two.kubeconfig" kubectl veltop -nvelero --once >"$T/out" 2>"$T/err" && fail "the unreachable context answered"
grep -q '127.0.0.1:1' "$T/err" || fail "unreachable context: $(cat "$T/err")"

# completion: bash (options, context names of the kubeconfig on the line), kubectl's plugin completion
complete_bash() { # words...
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _veltop
    printf '%s\n' "${COMPREPLY[@]}"
}
. "$P/share/bash-completion/completions/veltop"
[ "$(complete_bash veltop --ut)" = "--utc" ] || fail "bash: --ut -> $(complete_bash veltop --ut)"
[ "$(complete_bash veltop --no)" = "$(printf -- '--no-bell\n--notify')" ] || fail "bash: --no -> $(complete_bash veltop --no)"
[ "$(complete_bash veltop --wait re)" = "restore/" ] || fail "bash: --wait re -> $(complete_bash veltop --wait re)"
[ "$(complete_bash veltop --kubeconfig "$T/two.kubeconfig" --context '' | sort)" = "$(printf '%s\n' elsewhere "$ctx" | sort)" ] ||
    fail "bash contexts: $(complete_bash veltop --kubeconfig "$T/two.kubeconfig" --context '')"
[ "$(KUBECONFIG="$T/two.kubeconfig" complete_bash kubectl-veltop --context el)" = elsewhere ] ||
    fail "bash contexts (KUBECONFIG): $(KUBECONFIG="$T/two.kubeconfig" complete_bash kubectl-veltop --context el)"
out=$(KUBECONFIG="$T/two.kubeconfig" kubectl __complete veltop --context el 2>/dev/null)
[ "$(printf '%s\n' "$out" | head -n 2)" = "$(printf 'elsewhere\n:4')" ] || fail "kubectl __complete: $out"
out=$(kubectl __complete veltop --wa 2>/dev/null)
[ "$(printf '%s\n' "$out" | head -n 2)" = "$(printf -- '--wait\n:4')" ] || fail "kubectl __complete --wa: $out"
out=$(kubectl __complete veltop --onc 2>/dev/null)
[ "$(printf '%s\n' "$out" | head -n 2)" = "$(printf -- '--once\n:4')" ] || fail "kubectl __complete options: $out"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$P/share/zsh/site-functions/_veltop" || fail "zsh completion does not parse"
    # an interactive zsh on a pty (zpty) with the installed completion: TAB after what is typed
    cat >"$T/complete.zsh" <<'ZSH'
zmodload zsh/zpty
zpty -b z "zsh -f -i"
zpty -w z "stty columns 400; PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; PATH=$2:\$PATH"
sleep 0.5
zpty -w -n z "$3"$'\t'
sleep 1
out=""
while zpty -r -t z line; do out+="$line"; done
zpty -d z
print -r -- "${out//$'\r'/}"
ZSH
    zcomplete() { timeout 20 zsh -f "$T/complete.zsh" "$P/share/zsh/site-functions" "$P/bin" "$1" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g'; }
    zcomplete "veltop --ut" | grep -q 'veltop --utc' || fail "zsh: --ut: $(zcomplete "veltop --ut" | tail -c 200)"
    zcomplete "veltop --no-b" | grep -q 'veltop --no-bell' || fail "zsh: --no-b: $(zcomplete "veltop --no-b" | tail -c 200)"
    zcomplete "veltop --kubeconfig $SRC_DIR/tests/fixtures/kubeconfig/merge-c.yaml --context " |
        grep -q -- '--context ctx-c' || fail "zsh contexts: $(zcomplete "veltop --kubeconfig $SRC_DIR/tests/fixtures/kubeconfig/merge-c.yaml --context " | tail -c 300)"
fi
echo "install: ok"
