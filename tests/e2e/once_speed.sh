#!/usr/bin/env bash
# once_speed.sh: `--demo --speed N` runs the simulated cluster's clock N times faster than ours;
# rates, ETAs and durations veltop shows stay true in wall time (they were read from the cluster's
# timestamps as they were, so at --speed 10 a run moving ~10 items a second said 1-3/s and
# durations jumped when runs completed). The same scenario at --speed 1 and 10: the same counts,
# 10 x the rates, a tenth of the durations.
. "$(dirname "$0")/tui_lib.bash" || exit 1

SCEN="$FIXTURES_DIR/scenarios/basic.yaml"
for s in 1 10; do
    "$VELTOP" --demo --scenario "$SCEN" --speed $s --once --json >"$TUI_DIR/s$s.json" ||
        tui_fail "--demo --speed $s --once --json failed"
done
python3 - "$TUI_DIR/s1.json" "$TUI_DIR/s10.json" <<'PY' || tui_fail "--speed 10 figures are not in wall time"
import json, sys
one, ten = ({(r["kind"], r["name"]): r for r in json.load(open(p))["runs"]} for p in sys.argv[1:3])
# a finished run: same items, its duration a tenth, its average rate 10 x
a, b = one[("Backup", "backup-done")], ten[("Backup", "backup-done")]
assert a["itemsDone"] == b["itemsDone"] == 55, (a, b)
ratio = b["itemsPerSecond"] / a["itemsPerSecond"]
assert abs(ratio - 10) < 0.05, ratio
# in flight at the sim's start (30 simulated seconds in, 0.5 items per simulated second): 0.5/s
# at --speed 1, 5/s at --speed 10
a, b = one[("Backup", "backup-inprogress")], ten[("Backup", "backup-inprogress")]
assert 0.4 <= a["itemsPerSecond"] <= 0.6, a
assert 4 <= b["itemsPerSecond"] <= 6, b
# its ETA (minutes of simulated time) shrinks likewise
assert a["etaSeconds"] and b["etaSeconds"], (a, b)
assert 6 <= a["etaSeconds"] / b["etaSeconds"] <= 14, (a["etaSeconds"], b["etaSeconds"])
PY
echo "once_speed: ok"
