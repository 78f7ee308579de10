#!/usr/bin/env bash
# tui_read.sh: everything can be read whole at 80 columns. Results lines wrap (at a space, same
# indent) and, with W, scroll sideways; the detail's failure reason wraps; a log search match past
# the right edge is scrolled into view; y describes a run (the whole object, pretty-printed, in the
# pager, searchable); Enter on a volume describes the volume.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 80 24 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-done +Completed'
first_row() { tui_screen | grep -E -A1 'NAME +PHASE' | tail -n 1; }
select_run() { # name: filter the list down to it
    tui_keys /
    tui_keys C-u
    tui_keys -l "$1"
    tui_keys Enter
    tui_wait "^. $1 "
}

# results: long lines wrap at a space and keep their indent
select_run backup-partial
tui_keys r
tui_wait 'Results of backup backup-partial +3 errors, 1 warning'
tui_wait '^      error executing custom action \(groupResource=pods, namespace=billing,$'
tui_wait '^      name=worker-0-[a-z0-9]+\): rpc error: code = Unknown desc = timed out waiting$'
tui_wait '^      for hook to complete$'
# W: one row each, cut at the edge; Right scrolls sideways
tui_keys W
tui_wait '^      error executing custom action \(groupResource=pods, namespace=billing, name$'
tui_keys Right
tui_wait '^      om action \(groupResource=pods, namespace=billing, name=worker-0-[a-z0-9]+\): '
tui_keys W
tui_wait '^      for hook to complete$'

# the log: a match past the right edge is brought into view (no wrap in the pager at first)
tui_keys l
tui_wait 'Log of backup backup-partial +stored log'
tui_wait '^time="[^"]+" level=info msg="Setting up backup temp file" backup='
tui_keys /
tui_keys -l 'logSource'
tui_keys Enter
tui_wait 'logSource="pkg/'
tui_screen | grep -q '^time=' && tui_fail "the view did not move sideways to the match"

# y: the run itself as YAML (k9s' y); o o: JSON, pretty-printed; searchable
tui_keys y
tui_wait 'Describe backup backup-partial +live \([0-9:]{8}\) +[0-9]+ lines as YAML'
tui_wait '^kind: Backup$'
tui_keys o o
tui_wait 'Describe backup backup-partial +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '^  "apiVersion": "velero.io/v1",$'
tui_wait '^    "name": "backup-partial",$'
tui_keys /
tui_keys -l 'phase'
tui_keys Enter
tui_wait '^    "phase": "PartiallyFailed",$'
tui_keys Escape Escape Escape
tui_wait 'NAME +PHASE'

# the failure reason wraps in the detail
select_run backup-failed
tui_keys Enter
tui_wait '^Failure reason rpc error: code = Unavailable desc = error reading from server:$'
tui_wait '^               EOF$'
tui_keys Escape

# Enter on a volume: the volume, described
select_run backup-done
tui_keys v
tui_wait 'shop/db-0:data +Completed'
tui_keys Enter
tui_wait 'Describe PodVolumeBackup backup-done-[a-z0-9]{5} +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '^  "kind": "PodVolumeBackup",$'
tui_keys G
tui_wait '^    "phase": "Completed"'
tui_keys Escape
tui_wait 'shop/db-0:data +Completed'
tui_keys y
tui_wait 'Describe PodVolumeBackup backup-done-'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_read: ok"
