#!/usr/bin/env bash
# tui_demo_history.sh: --demo --speed 10 runs the demo's clock 10 times ours from its start;
# yesterday's and older nightlies keep their true start times in the list (not squeezed into
# today by the speed).
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_start 160 40 --demo --speed 10 --utc
tui_wait '● live' 30
d=$(date -u -d '3 days ago' +%Y%m%d)
md=$(date -u -d '3 days ago' +%m-%d)
tui_wait "^B nightly-${d}010000 +[A-Za-z]+ .* ${md} 01:00 "
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_demo_history"
