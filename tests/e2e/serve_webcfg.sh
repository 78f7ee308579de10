#!/usr/bin/env bash
# serve_webcfg.sh: `veltop --serve ADDR --web-config FILE`, Prometheus exporter-toolkit's web
# configuration: over TLS (tls_server_config cert_file/key_file, relative to the file) with
# basic_auth_users (bcrypt) a scrape with the password is answered, one without it or with a wrong
# one is 401 with a Basic challenge, an unknown user too, and plain HTTP gets no answer; the
# answer is gzipped when the scraper asks (Accept-Encoding: gzip, as Prometheus does), the same
# exposition; a file veltop cannot serve is a usage error (exit 2) naming the key.
. "$(dirname "$0")/tui_lib.bash" || exit 1
. "$(dirname "$0")/serve_lib.bash" || exit 1
serve_need curl python3 openssl
D=$TUI_DIR
tui_sim_start --scenario empty --passive --quiet
serve_webcfg_files
serve_start --web-config "$D/web/web.yml"
M="https://127.0.0.1:$VPORT/metrics"
C=(curl -s --max-time 5 --cacert "$D/web/cert.pem")
end=$((SECONDS + 20))
until "${C[@]}" -f -u 'prometheus:s3cret pass' "$M" | grep -q '^veltop_cluster_reachable{.*} 1$'; do
    kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$D/veltop.err" >&2; tui_fail "veltop --serve exited"; }
    [ "$SECONDS" -le "$end" ] || tui_fail "no authenticated scrape over TLS"
    sleep 0.1
done
echo "TLS + password: 200, metrics"
[ "$("${C[@]}" -o /dev/null -w '%{http_code}' "$M")" = 401 ] || tui_fail "no password: not 401"
"${C[@]}" -D - -o /dev/null "$M" | grep -qi '^WWW-Authenticate: Basic realm="veltop"' ||
    tui_fail "no Basic challenge"
[ "$("${C[@]}" -o /dev/null -w '%{http_code}' -u 'prometheus:wrong' "$M")" = 401 ] || tui_fail "wrong password: not 401"
[ "$("${C[@]}" -o /dev/null -w '%{http_code}' -u 'someone:s3cret pass' "$M")" = 401 ] || tui_fail "unknown user: not 401"
[ "$("${C[@]}" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$VPORT/healthz")" = 401 ] || tui_fail "/healthz open without a password"
echo "no, wrong or unknown credentials: 401 with a Basic challenge"
# the verified pair is remembered: 20 scrapes take far less than 20 bcrypts would
t0=$(date +%s%N)
for _ in $(seq 1 20); do "${C[@]}" -f -u 'prometheus:s3cret pass' -o /dev/null "$M" || tui_fail "a scrape failed"; done
ms=$((($(date +%s%N) - t0) / 1000000))
echo "20 authenticated scrapes: $ms ms"
code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' -u 'prometheus:s3cret pass' "http://127.0.0.1:$VPORT/metrics") && [ "$code" = 200 ] &&
    tui_fail "plain HTTP answered over TLS"
echo "plain HTTP: no answer ($code)"
# gzip on request, the same exposition
"${C[@]}" -f -u 'prometheus:s3cret pass' -H 'Accept-Encoding: gzip' -D "$D/h.txt" -o "$D/m.gz" "$M" || tui_fail "gzip scrape"
grep -qi '^Content-Encoding: gzip' "$D/h.txt" || tui_fail "Accept-Encoding: gzip not honoured"
"${C[@]}" -f -u 'prometheus:s3cret pass' -D "$D/h2.txt" -o "$D/m.txt" "$M" || tui_fail "plain scrape"
grep -qi '^Content-Encoding' "$D/h2.txt" && tui_fail "gzipped without being asked"
gunzip -c "$D/m.gz" | grep -q '^veltop_cluster_reachable{.*} 1$' || tui_fail "the gzipped answer is not the exposition"
[ "$(gunzip -c "$D/m.gz" | grep -c '^# TYPE')" = "$(grep -c '^# TYPE' "$D/m.txt")" ] || tui_fail "gzipped and plain differ in families"
"${C[@]}" -f -u 'prometheus:s3cret pass' -H 'Accept-Encoding: gzip;q=0, identity' -D "$D/h3.txt" -o /dev/null "$M"
grep -qi '^Content-Encoding' "$D/h3.txt" && tui_fail "gzip;q=0 was gzipped"
echo "gzip: on request only, the same exposition ($(stat -c %s "$D/m.gz") bytes for $(stat -c %s "$D/m.txt"))"
kill -TERM "$VELTOP_PID"
wait "$VELTOP_PID" || tui_fail "SIGTERM: exit $?"
VELTOP_PID=""

# files veltop cannot serve: exit 2, the key named
bad() { # YAML want
    printf '%s\n' "$1" >"$D/web/bad.yml"
    rc=0
    "$VELTOP" --kubeconfig "$D/kubeconfig" --serve 127.0.0.1:0 --web-config "$D/web/bad.yml" >/dev/null 2>"$D/bad.err" || rc=$?
    [ "$rc" = 2 ] || tui_fail "bad web config ($1): exit $rc"
    grep -qF "$2" "$D/bad.err" || { cat "$D/bad.err" >&2; tui_fail "bad web config: not '$2'"; }
}
bad $'tls_server_config:\n  cert_file: cert.pem' 'tls_server_config needs both cert_file and key_file'
bad $'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  client_auth_type: RequireAndVerifyClientCert' 'tls_server_config.client_auth_type is not supported'
bad $'basic_auth_users:\n  bob: plaintext' 'basic_auth_users.bob: not a bcrypt hash'
bad 'tls_config: {}' 'unknown key tls_config'
bad $'tls_server_config:\n  cert_file: nope.pem\n  key_file: key.pem' 'cert_file: cannot read'
rc=0
"$VELTOP" --kubeconfig "$D/kubeconfig" --once --web-config "$D/web/web.yml" >/dev/null 2>"$D/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q -- '--web-config only goes with --serve' "$D/bad.err" || tui_fail "--web-config without --serve"
echo "files veltop cannot serve: exit 2, naming the key"
echo "serve_webcfg: ok"
