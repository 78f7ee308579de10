#!/bin/sh
# Installs the Debian 12 packages veltop needs; the one place the package list lives. The
# Makefile's targets call it: `sh scripts/deps.sh` for building and the whole test suite,
# `sh scripts/deps.sh screenshots` adds what scripts/screenshots.sh needs (aha, headless Chromium),
# `sh scripts/deps.sh fuzz` what `make fuzz` needs (clang and its libFuzzer runtime).
#
# Not a Debian package: kubectl (the kubectl conformance tests report SKIP without it; Debian's
# kubernetes-client is kubectl 1.20, which cannot stand in for the 1.27-1.33 they target).
set -eu
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
SHOTS="aha chromium"
FUZZ="clang libclang-rt-14-dev"
PKGS="$BUILD $TEST"
[ "${1:-}" = screenshots ] && PKGS="$PKGS $SHOTS"
[ "${1:-}" = fuzz ] && PKGS="$PKGS $FUZZ"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
