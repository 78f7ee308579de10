#!/usr/bin/env bash
# kubectl_parity.sh: veltop and the real kubectl against the same recording HTTPS API server
# (tests/e2e/kuberecord.py), through the same HTTPS proxy: the Impersonate-* headers they send
# are the same; an https proxy-url signed by the kubeconfig's CA is verified with it and used
# (the server's name resolves only through the proxy); bad proxy-url values, groups without a
# user, both forms of a client certificate and duplicate names are refused by both before any
# connection (veltop: exit 2, naming the field).
set -u
if ! command -v kubectl >/dev/null 2>&1; then
    echo "SKIP: kubectl is not installed"
    exit 0
fi
if ! command -v openssl >/dev/null 2>&1; then
    echo "SKIP: openssl is not installed"
    exit 0
fi
: "${VELTOP:?VELTOP must point at the veltop binary}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
HERE=$(cd "$(dirname "$0")" && pwd)

D=$(mktemp -d)
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$D"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
export KUBECACHEDIR="$D/cache" HOME="$D"
mkdir -p "$KUBECACHEDIR"

# one CA; the API server's certificate for kube.invalid (reachable only through the proxy) and
# 127.0.0.1, the proxy's for 127.0.0.1
cert() { # name san
    openssl req -newkey rsa:2048 -nodes -keyout "$D/$1.key" -subj "/CN=$1" -out "$D/$1.csr" 2>/dev/null
    printf 'subjectAltName=%s\n' "$2" >"$D/$1.ext"
    openssl x509 -req -in "$D/$1.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" -CAcreateserial \
        -days 2 -extfile "$D/$1.ext" -out "$D/$1.crt" 2>/dev/null || fail "openssl: $1"
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/ca.key" -subj "/CN=parity-ca" -days 2 \
    -out "$D/ca.crt" 2>/dev/null || fail "openssl: ca"
cert api "DNS:kube.invalid,IP:127.0.0.1"
cert proxy "IP:127.0.0.1"
CA=$(base64 -w0 <"$D/ca.crt")

serve() { # role log extra...
    local role=$1 log=$2
    shift 2
    : >"$log"
    "$PY" "$HERE/kuberecord.py" "$role" "$D/$role.crt" "$D/$role.key" "$D/$role.port" "$log" "$@" \
        2>"$D/$role.err" &
    PIDS="$PIDS $!"
    local i
    for i in $(seq 1 200); do
        [ -s "$D/$role.port" ] && return 0
        sleep 0.05
    done
    fail "$role did not start: $(cat "$D/$role.err")"
}
serve api "$D/api.log"
serve proxy "$D/proxy.log" kube.invalid=127.0.0.1
API=$(cat "$D/api.port")
PROXY=$(cat "$D/proxy.port")

kubeconfig() { # file server cluster-extra user-yaml
    cat >"$1" <<EOF
apiVersion: v1
kind: Config
current-context: x
clusters:
- name: c
  cluster:
    server: $2
    certificate-authority-data: $CA
$3
users:
- name: alice
  user:
$4
contexts:
- name: x
  context: {cluster: c, user: alice, namespace: velero}
EOF
}

IMP='    token: t0k3n
    as: bob@example.com
    as-uid: "1234"
    as-groups: [dev, ops]
    as-user-extra:
      reason: [audit]
      example.com/scopes: [view, edit]'

LIST=/apis/velero.io/v1/namespaces/velero/backups

# the Impersonate-* and Authorization headers of the first request of a client to LIST
# (lower-case names as HTTP/2 would send them, in order), one per line
headers_of() { # log ua-prefix
    "$PY" - "$1" "$2" "$LIST" <<'EOF'
import json, sys
log, ua, want = sys.argv[1:4]
for line in open(log):
    e = json.loads(line)
    if "path" not in e or not e["ua"].startswith(ua) or e["path"].split("?")[0] != want:
        continue
    for k, v in e["headers"]:
        k = k.lower()
        if k.startswith("impersonate-") or k == "authorization":
            print(f"{k}: {v}")
    sys.exit(0)
sys.exit(f"no request to {want} from {ua} in {log}")
EOF
}

run_kubectl() { # kubeconfig -> rc, output in $D/k.out
    local rc=0
    timeout 60 kubectl --kubeconfig "$1" --request-timeout=20s get --raw "$LIST" >"$D/k.out" 2>&1 || rc=$?
    echo "$rc"
}
run_veltop() { # kubeconfig -> rc, output in $D/v.out (stdout) and $D/v.err
    local rc=0
    timeout 60 "$VELTOP" --kubeconfig "$1" --once >"$D/v.out" 2>"$D/v.err" || rc=$?
    echo "$rc"
}
# veltop read the (empty) recording server to the end: it exits 5, "no Velero" being no success
# (an empty answer from the wrong place), with exactly that said
read_all() { # rc
    [ "$1" = 5 ] && grep -q '^veltop: no Velero found in namespace velero: ' "$D/v.err"
}

# ---- 1. impersonation, directly ----
kubeconfig "$D/imp.kc" "https://127.0.0.1:$API" "" "$IMP"
: >"$D/api.log"
rc=$(run_kubectl "$D/imp.kc")
[ "$rc" = 0 ] || fail "kubectl with impersonation: exit $rc: $(cat "$D/k.out")"
rc=$(run_veltop "$D/imp.kc")
read_all "$rc" || fail "veltop with impersonation: exit $rc: $(cat "$D/v.err")"
headers_of "$D/api.log" kubectl/ | sort -s -t: -k1,1 >"$D/k.h" || fail "kubectl's request not recorded"
headers_of "$D/api.log" veltop/ | sort -s -t: -k1,1 >"$D/v.h" || fail "veltop's request not recorded"
grep -q '^impersonate-user: bob@example.com$' "$D/k.h" || fail "kubectl sent no Impersonate-User: $(cat "$D/k.h")"
diff -u "$D/k.h" "$D/v.h" >&2 || fail "veltop's impersonation headers differ from kubectl's"
echo "impersonation headers as kubectl's: ok ($(wc -l <"$D/k.h") headers)"
cat "$D/v.h"

# ---- 2. an https proxy signed by the kubeconfig's CA; the server only behind it ----
kubeconfig "$D/proxy.kc" "https://kube.invalid:$API" "    proxy-url: https://127.0.0.1:$PROXY" "$IMP"
: >"$D/api.log"
: >"$D/proxy.log"
rc=$(run_kubectl "$D/proxy.kc")
[ "$rc" = 0 ] || fail "kubectl through the https proxy: exit $rc: $(cat "$D/k.out")"
k_connects=$(grep -c "\"kube.invalid:$API\"" "$D/proxy.log")
rc=$(run_veltop "$D/proxy.kc")
read_all "$rc" || fail "veltop through the https proxy: exit $rc: $(cat "$D/v.err")"
v_connects=$(($(grep -c "\"kube.invalid:$API\"" "$D/proxy.log") - k_connects))
[ "$k_connects" -ge 1 ] || fail "kubectl did not CONNECT through the proxy"
[ "$v_connects" -ge 1 ] || fail "veltop did not CONNECT through the proxy"
headers_of "$D/api.log" kubectl/ | sort -s -t: -k1,1 >"$D/k.h" || fail "kubectl's proxied request not recorded"
headers_of "$D/api.log" veltop/ | sort -s -t: -k1,1 >"$D/v.h" || fail "veltop's proxied request not recorded"
diff -u "$D/k.h" "$D/v.h" >&2 || fail "headers through the proxy differ"
echo "https proxy verified with the kubeconfig's CA: ok (CONNECTs: kubectl $k_connects, veltop $v_connects)"

# a proxy whose certificate the kubeconfig's CA did not sign: both refuse it
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/other.key" -subj "/CN=other" -days 2 \
    -addext "subjectAltName=IP:127.0.0.1" -out "$D/other.crt" 2>/dev/null
cp "$D/other.crt" "$D/proxy2.crt"
cp "$D/other.key" "$D/proxy2.key"
"$PY" "$HERE/kuberecord.py" proxy "$D/proxy2.crt" "$D/proxy2.key" "$D/proxy2.port" "$D/proxy2.log" \
    kube.invalid=127.0.0.1 2>/dev/null &
PIDS="$PIDS $!"
for i in $(seq 1 200); do [ -s "$D/proxy2.port" ] && break; sleep 0.05; done
kubeconfig "$D/badproxy.kc" "https://kube.invalid:$API" "    proxy-url: https://127.0.0.1:$(cat "$D/proxy2.port")" "$IMP"
rc=$(run_kubectl "$D/badproxy.kc")
[ "$rc" != 0 ] || fail "kubectl trusted a proxy the CA did not sign"
rc=$(run_veltop "$D/badproxy.kc")
[ "$rc" = 1 ] || fail "veltop and an untrusted proxy: exit $rc: $(cat "$D/v.err")"
grep -q "^veltop: the proxy's certificate is not trusted by the configured certificate authority, or does not match its host name (proxy-url https://127.0.0.1:" "$D/v.err" ||
    fail "untrusted proxy: veltop blames another: $(cat "$D/v.err")"
echo "untrusted proxy refused by both: ok ($(head -c 160 "$D/v.err"))"

# with tls-server-name, the proxy is verified against that name (Go's addTLS keeps ServerName):
# a proxy certificate for kube.invalid only, at 127.0.0.1, passes for both
cert named "DNS:kube.invalid"
"$PY" "$HERE/kuberecord.py" proxy "$D/named.crt" "$D/named.key" "$D/named.port" "$D/named.log" \
    2>/dev/null &
PIDS="$PIDS $!"
for i in $(seq 1 200); do [ -s "$D/named.port" ] && break; sleep 0.05; done
kubeconfig "$D/named.kc" "https://127.0.0.1:$API" "    tls-server-name: kube.invalid
    proxy-url: https://127.0.0.1:$(cat "$D/named.port")" "    token: t0k3n"
rc=$(run_kubectl "$D/named.kc")
[ "$rc" = 0 ] || fail "kubectl, tls-server-name and a proxy certified for it: exit $rc: $(cat "$D/k.out")"
rc=$(run_veltop "$D/named.kc")
read_all "$rc" || fail "veltop, tls-server-name and a proxy certified for it: exit $rc: $(cat "$D/v.err")"
echo "tls-server-name verifies the proxy for both: ok"

# ---- 3. configuration errors: refused by both, before any connection ----
refused() { # description kubeconfig veltop-stderr kubectl-pattern
    : >"$D/api.log"
    : >"$D/proxy.log"
    local krc vrc
    krc=$(run_kubectl "$2")
    vrc=$(run_veltop "$2")
    [ "$krc" != 0 ] || fail "$1: kubectl accepted it"
    grep -Fq -- "$4" "$D/k.out" || fail "$1: kubectl said $(cat "$D/k.out"), want $4"
    [ "$vrc" = 2 ] || fail "$1: veltop exit $vrc: $(cat "$D/v.err")"
    [ "$(cat "$D/v.err")" = "veltop: $3" ] || fail "$1: veltop said '$(cat "$D/v.err")', want 'veltop: $3'"
    # kubectl's dispatcher asks /version before it reads the configuration: only veltop's silence
    # is checked, and kubectl's main request
    grep -q '"veltop/' "$D/api.log" && fail "$1: veltop connected"
    grep -q "\"path\": \"$LIST" "$D/api.log" && fail "$1: kubectl connected"
    [ -s "$D/proxy.log" ] && fail "$1: a connection through the proxy: $(cat "$D/proxy.log")"
    echo "$1: refused by both: ok"
}
for bad in "socks6://127.0.0.1:1080|unsupported scheme \"socks6\", must be http, https, or socks5" \
    "example.com|unsupported scheme \"\", must be http, https, or socks5" \
    "user@example.com|unsupported scheme \"\", must be http, https, or socks5"; do
    url=${bad%%|*}
    why=${bad#*|}
    kubeconfig "$D/bad.kc" "https://127.0.0.1:$API" "    proxy-url: $url" "    token: t0k3n"
    refused "proxy-url $url" "$D/bad.kc" "clusters[c].proxy-url: $why" "$why"
done
kubeconfig "$D/bad.kc" "https://127.0.0.1:$API" "" "    token: t0k3n
    as-groups: [dev]"
refused "as-groups without as" "$D/bad.kc" \
    "requesting uid, groups or user-extra for alice without impersonating a user" \
    "requesting uid, groups or user-extra for alice without impersonating a user"
cp "$D/api.crt" "$D/alice.crt"
cp "$D/api.key" "$D/alice.key"
kubeconfig "$D/bad.kc" "https://127.0.0.1:$API" "" "    client-certificate: $D/alice.crt
    client-certificate-data: $(base64 -w0 <"$D/alice.crt")
    client-key: $D/alice.key"
refused "client-certificate and client-certificate-data" "$D/bad.kc" \
    "client-cert-data and client-cert are both specified for alice. client-cert-data will override." \
    "client-cert-data and client-cert are both specified for alice. client-cert-data will override."
kubeconfig "$D/bad.kc" "https://127.0.0.1:$API" "- name: c
  cluster: {server: 'https://127.0.0.1:1'}" "    token: t0k3n"
refused "a cluster named twice" "$D/bad.kc" \
    "duplicate name \"c\" in list clusters of $D/bad.kc" 'duplicate name "c" in list'
echo "PASS kubectl_parity"
