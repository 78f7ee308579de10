#!/usr/bin/env bash
# drill_live_to_stored.sh: the logs screen of a backup in progress shows the live log (labelled
# LIVE); when the backup finishes, the screen says so and shows the stored log instead, whole
# (first and last lines), keeping the level filter.
source "$(dirname "$0")/tui_lib.bash"

scen="$TUI_DIR/quick.yaml"
cat >"$scen" <<'YAML'
namespaces: [shop]
runs:
  - kind: backup
    name: quick
    start: -3s
    rate: 2
    warnings: 1
    resources:
      - {name: pods, items: 16}
      - {name: configmaps, items: 8}
YAML
tui_sim_start --scenario "$scen" --quiet --resource-progress
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '^B quick' 15
tui_keys l
tui_wait 'LIVE log of backup quick +[0-9]+ lines' 10
tui_wait 'msg="Processing item" backup=velero/quick' 10
# the level filter set on the live log stays on the stored one
tui_keys L L
tui_wait 'level>=warning' 5

# the backup finishes: the stored log replaces the live one, and the screen says why
tui_wait 'Log of backup quick +stored log, [0-9]+ lines .*\(the run finished: stored log replaces the live one\)' 40
tui_screen | grep -q 'LIVE log' && tui_fail "still labelled as the live log"
tui_wait 'level>=warning' 5
[ "$(tui_screen | grep -c 'level=warning')" -eq 1 ] || tui_fail "expected the backup's 1 warning line"
tui_keys L L L
tui_wait_gone 'level>=' 5
tui_keys g
tui_wait 'msg="Setting up backup temp file" backup=velero/quick' 10
tui_keys G
tui_wait 'msg="Backed up a total of 24 items" backup=velero/quick' 5
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
