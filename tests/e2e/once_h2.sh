#!/usr/bin/env bash
# once_h2.sh: veltop against an HTTP/2 server over TLS (nghttpd serving canned lists): every
# request (the ten Velero lists, the pods list and the watches after them) goes over ONE
# connection, multiplexed, and asks for gzip; the output is the served list. The sim speaks only HTTP/1.1, so this needs
# nghttpd (Debian nghttp2-server) and the openssl command; without them: SKIP.
set -u
: "${VELTOP:?set VELTOP to the veltop binary}"
command -v nghttpd >/dev/null || { echo "SKIP: nghttpd (nghttp2-server) not installed"; exit 0; }
command -v openssl >/dev/null || { echo "SKIP: openssl not installed"; exit 0; }
DIR=$(mktemp -d)
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

V=$DIR/htdocs/apis/velero.io
for gr in v1/backups v1/restores v1/podvolumebackups v1/podvolumerestores v1/schedules \
    v1/backupstoragelocations v1/volumesnapshotlocations v1/backuprepositories v2alpha1/datauploads \
    v2alpha1/datadownloads; do
    mkdir -p "$V/${gr%/*}/namespaces/velero"
    echo '{"kind":"List","apiVersion":"velero.io/'"${gr%/*}"'","metadata":{"resourceVersion":"5"},"items":[]}' \
        >"$V/${gr%/*}/namespaces/velero/${gr#*/}"
done
echo '{"kind":"BackupList","apiVersion":"velero.io/v1","metadata":{"resourceVersion":"5"},"items":[{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"h2-backup","namespace":"velero","resourceVersion":"5"},"status":{"phase":"Completed","progress":{"totalItems":7,"itemsBackedUp":7}}}]}' \
    >"$V/v1/namespaces/velero/backups"
mkdir -p "$DIR/htdocs/api/v1/namespaces/velero"
echo '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}' \
    >"$DIR/htdocs/api/v1/namespaces/velero/pods"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$DIR/key.pem" \
    -out "$DIR/cert.pem" -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    2>/dev/null || fail "openssl could not make a certificate"

# a free port (nghttpd takes a number), then wait until it accepts
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nghttpd -v -a 127.0.0.1 -d "$DIR/htdocs" "$PORT" "$DIR/key.pem" "$DIR/cert.pem" >"$DIR/h2.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do
    python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PORT" \
        2>/dev/null && break
    sleep 0.05
done
cat >"$DIR/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: h2
  cluster:
    server: https://127.0.0.1:$PORT
    certificate-authority-data: $(base64 -w0 "$DIR/cert.pem")
contexts:
- name: h2
  context: {cluster: h2, user: u, namespace: velero}
current-context: h2
users:
- name: u
  user: {token: h2-token}
KC

out=$("$VELTOP" --kubeconfig "$DIR/kubeconfig" --once 2>"$DIR/err") || fail "--once failed: $(cat "$DIR/err")"
echo "$out" | grep -Eq '^h2-backup +Backup +Completed +7/7 ' || fail "unexpected output: $out"

# every request on one connection (nghttpd numbers its sessions [id=N])
lists=$(grep -a -c ':path: /apis/velero.io/.*?resourceVersion=0' "$DIR/h2.log")
[ "$lists" -eq 10 ] || fail "$lists lists, not 10"
pods=$(grep -a -c ':path: /api/v1/namespaces/velero/pods?resourceVersion=0' "$DIR/h2.log")
[ "$pods" -eq 1 ] || fail "$pods pod lists, not 1"
conns=$(grep -a -E 'recv \(stream_id=[0-9]+\) :path:' "$DIR/h2.log" | grep -a -o '^\[id=[0-9]*\]' | sort -u | wc -l)
[ "$conns" -eq 1 ] || fail "the requests came over $conns connections, not 1"
gz=$(grep -a -c 'accept-encoding: gzip' "$DIR/h2.log")
paths=$(grep -a -c ':path: ' "$DIR/h2.log")
[ "$gz" -eq "$paths" ] || fail "$gz of $paths requests asked for gzip"
echo "PASS: $paths requests over 1 HTTP/2 connection"
