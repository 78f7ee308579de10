#!/usr/bin/env bash
# once_write_errors.sh: output that could not be written is an error, never a silent 0: --once
# (table or JSON) into a full disk (/dev/full) or a closed stdout exits 1 and says why on stderr,
# as coreutils do.
set -u
: "${VELTOP:?set VELTOP to the veltop binary}"
[ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check() { # what status-file err-file want-message
    local st
    st=$(cat "$2")
    [ "$st" = 1 ] || fail "$1: exit $st, want 1 (stderr: $(cat "$3"))"
    grep -qx "veltop: cannot write the output: $4" "$3" || fail "$1: stderr '$(cat "$3")'"
}

"$VELTOP" --demo --scenario empty --once >/dev/full 2>"$dir/err"; echo $? >"$dir/st"
check "--once >/dev/full" "$dir/st" "$dir/err" "No space left on device"
"$VELTOP" --demo --scenario empty --once --json >/dev/full 2>"$dir/err"; echo $? >"$dir/st"
check "--once --json >/dev/full" "$dir/st" "$dir/err" "No space left on device"
"$VELTOP" --demo --scenario empty --once >&- 2>"$dir/err"; echo $? >"$dir/st"
check "--once >&-" "$dir/st" "$dir/err" "Bad file descriptor"
"$VELTOP" --version >/dev/full 2>"$dir/err"; echo $? >"$dir/st"
check "--version >/dev/full" "$dir/st" "$dir/err" "No space left on device"
# written: 0, nothing on stderr
"$VELTOP" --demo --scenario empty --once >"$dir/out" 2>"$dir/err" || fail "--once to a file: $?"
[ ! -s "$dir/err" ] || fail "--once to a file: stderr '$(cat "$dir/err")'"
head -n 1 "$dir/out" | grep -q '^NAME ' || fail "--once to a file: $(head -n 1 "$dir/out")"
echo PASS
