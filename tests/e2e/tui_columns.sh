#!/usr/bin/env bash
# tui_columns.sh: the list never cuts a number into another one. Runs with realistic big counts
# (123 456 of ~150 000 items, 4 321 of ~98 765, 12 345 errors and 678 901 warnings, 677 TiB of
# volume bytes; created through the API of a passive sim) at 60, 80, 120 and 250 columns: every
# cell is exact, or abbreviated whole with its unit ("123k/~150k"), starts under its title and
# ends before the next column.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 0; }
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 0; }

tui_sim_start --scenario empty --passive --quiet
post() { # resource json
    local code
    code=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
        "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/$1" -d "$2")
    [ "$code" = 201 ] || tui_fail "POST $1: $code"
}
start=$(date -u -d '-5 min' +%Y-%m-%dT%H:%M:%SZ)
post backups '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"big-items"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$start"'","progress":{"totalItems":150000,"itemsBackedUp":123456}}}'
post backups '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"mid-items"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$start"'","progress":{"totalItems":98765,"itemsBackedUp":4321}}}'
post backups '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"noisy"},"spec":{},"status":{"phase":"PartiallyFailed","startTimestamp":"'"$start"'","completionTimestamp":"'"$start"'","progress":{"totalItems":10,"itemsBackedUp":10},"errors":12345,"warnings":678901}}'
post podvolumebackups '{"apiVersion":"velero.io/v1","kind":"PodVolumeBackup","metadata":{"name":"noisy-v1","labels":{"velero.io/backup-name":"noisy"}},"spec":{"node":"worker-1","volume":"data","pod":{"name":"db-0","namespace":"shop"}},"status":{"phase":"Completed","progress":{"totalBytes":744413801922560,"bytesDone":744413801922560}}}'

for cols in 60 80 120 250; do
    tui_start "$cols" 20 --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait '^B noisy '
    tui_wait_gone 'loading\.\.\.' # the volume sums are in
    tui_screen >"$TUI_DIR/screen"
    python3 - "$TUI_DIR/screen" "$cols" <<'PY' || tui_fail "columns at $cols"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
cols = int(sys.argv[2])
head = next(l for l in lines if l.startswith("  NAME "))
titles = ["ITEMS", "RATE", "ETA", "STARTED", "DUR", "E/W", "VOLUME BYTES"]
import re
pos = {}
for t in titles:
    m = re.search(r"(?<= )" + re.escape(t) + r"(?=[↑↓]? |[↑↓]?$)", head)  # ↓: the sort column
    if m:
        pos[t] = m.start()
order = sorted(pos, key=pos.get)
def cells(name):
    row = next(l for l in lines if l.startswith("B " + name + " ") or l.startswith("B⚠" + name + " "))
    out = {}
    for i, t in enumerate(order):
        end = pos[order[i + 1]] if i + 1 < len(order) else len(row)
        cell = row[pos[t]:end]
        # a cell ends before the next column starts: a space between them
        assert i + 1 == len(order) or cell.endswith(" "), (name, t, cell)
        assert pos[t] == 0 or row[pos[t] - 1] == " ", (name, t, "glued to the column before")
        out[t] = cell.strip()
    return out
# 60: ITEMS at its narrowest whole form for the widest row; 80: exact items, E/W abbreviated
# whole (no room for 12 cells); from 120 on everything exact
narrow, mid = cols < 80, cols < 120
want = {
    "big-items": {"ITEMS": "123k/~150k" if narrow else "123456/~150000", "E/W": "0/0"},
    "mid-items": {"ITEMS": "4321/~98765", "E/W": "0/0"},
    "noisy": {"ITEMS": "10/10", "E/W": "12k/679k" if mid else "12345/678901",
              "VOLUME BYTES": "677.0 TiB/677.0 TiB"},
}
shown = {60: {"ITEMS"}, 80: {"ITEMS", "E/W"}}.get(cols, {"ITEMS", "E/W", "VOLUME BYTES"})
assert shown <= set(pos), (cols, head)
for name, w in want.items():
    got = cells(name)
    for t, v in w.items():
        if t in shown:
            assert got[t] == v, (cols, name, t, got[t], v)
PY
    tui_keys q
    [ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0 at $cols"
    tui_server_stop
done

# --once: the same formatter, exact
"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once >"$TUI_DIR/once.txt" || tui_fail "--once"
grep -Eq '^big-items +Backup +InProgress +123456/~150000 ' "$TUI_DIR/once.txt" || tui_fail "--once: $(cat "$TUI_DIR/once.txt")"
grep -Eq '^noisy .* 677\.0 TiB/677\.0 TiB .* 12345 +678901$' "$TUI_DIR/once.txt" || tui_fail "--once: $(cat "$TUI_DIR/once.txt")"
echo PASS
