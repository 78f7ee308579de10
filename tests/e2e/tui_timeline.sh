#!/usr/bin/env bash
# tui_timeline.sh: where a run has been (tests/fixtures/scenarios/timeline.yaml). The detail's
# Phases line: a backup watched from its creation through New, Queued (with its position),
# ReadyToStart, InProgress, Finalizing and Completed, each with when it was entered and how
# long it lasted (the one it is in: so far); a backup that finished before veltop started, from
# its timestamps and its stored log's own times (marked "(log)"), "unknown" where nothing says;
# a restore (no queue) likewise, and it shows its backup's storage location.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/timeline.yaml" --quiet
tui_start 200 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
open_run() {
    tui_keys Escape Escape
    tui_wait 'Backups & Restores *$'
    tui_keys /
    tui_keys C-u
    tui_keys -l "$1"
    tui_keys Enter
    tui_wait "^filter: /$1"
    tui_wait "^[BR][ ⚠]$1 "
    tui_keys Enter
    tui_wait "^(Backup|Restore) $1 "
}
C='[0-9]{2}:[0-9]{2}:[0-9]{2}'
D='[0-9]+(h[0-9]{2}m|m[0-9]{2}s|s)'
# watched from its creation, 4 s in
open_run watched
tui_wait "^Phases New $C \\(${D}\\) · Queued #1 $C \\(${D}\\) · ReadyToStart $C \\(${D}\\) · InProgress $C \\([0-9]+s so far\\) *\$"
tui_wait_change '^Phases ' "$(tui_line '^Phases ')"
tui_wait "^Phases New $C \\(${D}\\) · Queued #1 $C \\(${D}\\) · ReadyToStart $C \\(${D}\\) · InProgress $C \\(1[0-9]s\\) · Finalizing $C \\(${D}\\) · Completed $C *\$" 40
tui_screen | grep -q 'unknown' && tui_fail "a watched run has an unknown phase"
# finished an hour ago: the item pass's end from its log, the queue unknown
open_run past-b
tui_wait "^Phases New ([0-9-]+ )?$C \\(for unknown\\) · Queued unknown · ReadyToStart unknown · InProgress ([0-9-]+ )?$C \\(${D}\\) · Finalizing ([0-9-]+ )?$C \\(log\\) \\(${D}\\) · Completed ([0-9-]+ )?$C *\$"
open_run past-r
tui_wait "^Phases New ([0-9-]+ )?$C \\(${D}\\) · InProgress ([0-9-]+ )?$C \\(${D}\\) · Finalizing ([0-9-]+ )?$C \\(log\\) \\(${D}\\) · Completed ([0-9-]+ )?$C *\$"
tui_wait '^Location default \(its backup.s\)  Schedule'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_timeline"
