#!/bin/sh
# Installs the Debian 12 packages veltop needs to build, test and take screenshots.
# The one place the package list lives; the Makefile's demo and test targets call it.
set -eu
PKGS="build-essential cmake pkg-config libncurses-dev libcurl4-openssl-dev libcjson-dev
libyaml-dev zlib1g-dev libmicrohttpd-dev libssl-dev libgnutls28-dev check tmux restic valgrind"
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
