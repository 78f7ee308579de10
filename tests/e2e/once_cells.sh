#!/usr/bin/env bash
# once_cells.sh: --once pads its table to the widest cell, so one run's 1 MiB phase (a hostile
# server) must not pad every row to a megabyte: its cells are cut at 253 columns with an
# ellipsis, stderr says so, and --once --json still carries the whole text.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 0; }
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 0; }

tui_sim_start --scenario empty --passive --quiet
python3 - "$TUI_DIR/huge.json" <<'PY'
import json, sys
json.dump({"apiVersion": "velero.io/v1", "kind": "Backup", "metadata": {"name": "huge-phase"},
           "spec": {}, "status": {"phase": "P" * (1 << 20),
                                  "startTimestamp": "2026-01-01T00:00:00Z"}},
          open(sys.argv[1], "w"))
PY
code=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
    "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backups" --data-binary @"$TUI_DIR/huge.json")
[ "$code" = 201 ] || tui_fail "POST huge-phase: $code"
for i in 1 2 3 4 5 6; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
        "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backups" \
        -d '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"run-'$i'"},"spec":{},"status":{"phase":"Completed","startTimestamp":"2026-01-0'$i'T00:00:00Z","completionTimestamp":"2026-01-0'$i'T00:01:00Z"}}')
    [ "$code" = 201 ] || tui_fail "POST run-$i: $code"
done

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/out" 2>"$TUI_DIR/err" ||
    tui_fail "--once: $? $(cat "$TUI_DIR/err")"
size=$(wc -c <"$TUI_DIR/out")
[ "$size" -lt 10000 ] || tui_fail "--once wrote $size bytes for 7 runs"
[ "$(wc -l <"$TUI_DIR/out")" = 8 ] || tui_fail "--once: not 8 lines"
grep -q "^huge-phase  Backup  $(printf 'P%.0s' $(seq 1 252))… " "$TUI_DIR/out" ||
    tui_fail "--once: the phase is not cut at 253 columns with an ellipsis"
[ "$(cat "$TUI_DIR/err")" = "veltop: 1 cell longer than 253 columns cut, ending in an ellipsis: --once --json carries the whole text" ] ||
    tui_fail "--once stderr: $(cat "$TUI_DIR/err")"

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/out.json" 2>"$TUI_DIR/err" ||
    tui_fail "--once --json: $(cat "$TUI_DIR/err")"
[ ! -s "$TUI_DIR/err" ] || tui_fail "--once --json stderr: $(cat "$TUI_DIR/err")"
python3 - "$TUI_DIR/out.json" <<'PY' || tui_fail "--once --json: the phase is not whole"
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["runs"] if r["name"] == "huge-phase"][0]
assert r["phase"] == "P" * (1 << 20), len(r["phase"])
PY
echo PASS
