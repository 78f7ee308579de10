# kubectl_lib.bash: helpers for the kubectl conformance scripts (sourced; not a test itself).
# Starts veltop-sim on a free loopback port with a fresh KUBECACHEDIR and waits on conditions.

if ! command -v kubectl >/dev/null 2>&1; then
    echo "SKIP: kubectl is not installed"
    exit 0
fi
: "${VELTOP_SIM:?VELTOP_SIM must point at the veltop-sim binary}"

KT_DIR=$(mktemp -d)
KT_PIDS=""
kt_cleanup() {
    for p in $KT_PIDS; do kill "$p" 2>/dev/null; done
    for p in $KT_PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$KT_DIR"
}
trap kt_cleanup EXIT

kt_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# kt_start NAME ARGS...: starts a sim, sets KUBECONFIG/KUBECACHEDIR and KT_URL for it.
kt_start() {
    local name=$1
    shift
    : >"$KT_DIR/$name.out"
    "$VELTOP_SIM" --quiet --kubeconfig-out "$KT_DIR/$name.kubeconfig" "$@" >"$KT_DIR/$name.out" 2>&1 &
    KT_PIDS="$KT_PIDS $!"
    local deadline=$((SECONDS + 15))
    until grep -q '^listening on ' "$KT_DIR/$name.out"; do
        [ $SECONDS -lt $deadline ] || kt_fail "sim $name did not start: $(cat "$KT_DIR/$name.out")"
        sleep 0.05
    done
    KT_URL=$(sed -n 's/^listening on //p' "$KT_DIR/$name.out")
    export KUBECONFIG="$KT_DIR/$name.kubeconfig"
    export KUBECACHEDIR="$KT_DIR/$name.cache"
    mkdir -p "$KUBECACHEDIR"
}

# kt_wait SECONDS DESCRIPTION CMD...: polls CMD until it succeeds, or fails the test.
kt_wait() {
    local secs=$1 what=$2
    shift 2
    local deadline=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || kt_fail "timed out waiting for $what"
        sleep 0.1
    done
}

# kt_expect DESCRIPTION PATTERN TEXT: the text must match the (grep -E) pattern.
kt_expect() {
    if ! printf '%s\n' "$3" | grep -Eq -- "$2"; then
        echo "--- output:" >&2
        printf '%s\n' "$3" >&2
        kt_fail "$1: no match for /$2/"
    fi
    echo "ok: $1"
}

kt_backup_yaml() { # name [labels]
    cat <<YAML
apiVersion: velero.io/v1
kind: Backup
metadata:
  name: $1
  namespace: velero
  labels: {app: kt, run: "$1"}
spec:
  storageLocation: default
  ttl: 720h0m0s
YAML
}
