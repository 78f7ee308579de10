#!/bin/sh
# Installs the Debian 12 packages veltop needs; the one place the package list lives. The
# Makefile's targets call it: `sh scripts/deps.sh` for building and the whole test suite,
# `sh scripts/deps.sh screenshots` adds what scripts/screenshots.sh needs (aha, headless Chromium),
# `sh scripts/deps.sh fuzz` what `make fuzz` needs (clang and its libFuzzer runtime),
# `sh scripts/deps.sh build` only what building needs (the Containerfile's build stage, which
# says so with VELTOP_DEPS=build around `make install`: an argument in the environment).
#
# Not a Debian package: kubectl (the kubectl conformance tests and the deploy/ tests, which build
# it with `kubectl kustomize`, report SKIP without it; Debian's kubernetes-client is kubectl 1.20,
# which cannot stand in for the 1.27-1.33 they target).
set -eu
MODE="${1:-${VELTOP_DEPS:-}}"
# build: compiler, CMake, and the libraries of design.md (libmicrohttpd + GnuTLS for the sim and
# --serve's TLS; libcrypt-dev: libxcrypt's crypt_r for --web-config's bcrypt hashes);
# ca-certificates: the system trust libcurl falls back on when a kubeconfig names no CA;
# tzdata: the zones of Schedule crons (CRON_TZ=)
BUILD="build-essential cmake pkg-config libncurses-dev libcurl4-openssl-dev libcjson-dev
libyaml-dev zlib1g-dev libmicrohttpd-dev libssl-dev libgnutls28-dev libcrypt-dev ca-certificates
tzdata"
# tests: Check, valgrind, tmux (screen tests), python3 (JSON checks in the end-to-end scripts),
# curl (raw API checks), strace (no key or certificate is ever written to a file), restic
# (the sim's restic-real volumes), python3-kubernetes (a second real client, run with
# /usr/bin/python3), nghttp2-server + openssl (an HTTP/2 server over TLS: the sim speaks only
# HTTP/1.1), zsh (the zsh completion test), man-db + groff-base (the installed manual page is found
# and renders without a warning), procps (pgrep: the log-cap test measures veltop's memory),
# prometheus (the real Prometheus scrapes veltop --serve; its promtool checks the exposition and
# tests doc/prometheus's alert rules), python3-prometheus-client (the reference client's strict
# OpenMetrics parser, run with /usr/bin/python3), python3-yaml (the fleet tests write kubeconfigs
# of several contexts)
TEST="check valgrind tmux python3 curl strace restic python3-kubernetes nghttp2-server openssl zsh
man-db groff-base procps prometheus python3-prometheus-client python3-yaml"
# npm (only when there is none: a Node.js from elsewhere brings its own): the offline schema
# validation of deploy/ (tests/e2e/deploy_validate.sh) runs the npm packages below
command -v npm >/dev/null 2>&1 || TEST="$TEST npm"
SHOTS="aha chromium"
FUZZ="clang libclang-rt-14-dev"
PKGS="$BUILD $TEST"
[ "$MODE" = screenshots ] && PKGS="$PKGS $SHOTS"
[ "$MODE" = fuzz ] && PKGS="$PKGS $FUZZ"
[ "$MODE" = build ] && PKGS="$BUILD"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "installing:$missing" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
fi
[ "$MODE" = build ] && exit 0
# npm packages, not committed and not Debian's: Kubernetes' and the Prometheus Operator's
# object schemas with a validate() each, for deploy_validate.sh to check every object
# `kubectl kustomize deploy/` builds, offline. Into a cache folder of their own (the test looks
# there; VELTOP_NODE_DIR moves it), once per version.
NODE_DIR="${VELTOP_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/veltop/node}"
NODE_PKGS="kubernetes-models@5.1.0 @kubernetes-models/prometheus-operator@6.0.0"
if [ "$(cat "$NODE_DIR/.installed" 2>/dev/null)" != "$NODE_PKGS" ] ||
    [ ! -d "$NODE_DIR/node_modules/@kubernetes-models/prometheus-operator" ] ||
    [ ! -d "$NODE_DIR/node_modules/kubernetes-models" ]; then
    echo "installing into $NODE_DIR: $NODE_PKGS" >&2
    mkdir -p "$NODE_DIR"
    [ -f "$NODE_DIR/package.json" ] || echo '{"private": true}' >"$NODE_DIR/package.json"
    (cd "$NODE_DIR" && npm install --no-audit --no-fund --silent $NODE_PKGS >&2)
    echo "$NODE_PKGS" >"$NODE_DIR/.installed"
fi
