#!/usr/bin/env bash
# tui_small.sh: a 60x16 terminal with long names (tests/fixtures/scenarios/small_terminal.yaml).
# The list keeps ETA and cuts names in the middle (the ends, where the two runs differ, survive;
# the detail has the whole name); the volumes screen keeps the pods' ordinals apart; the health
# screen's NEXT RUN column is whole.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/small_terminal.yaml" --quiet
tui_start 60 16 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS +ETA *$'
# the health line is cut with an ellipsis, never in the middle of "(H: details)"
tui_wait '^health ATTENTION  schedules 1 \(1 overdue\)'
tui_line '^health ' | grep -Eq '\(H: [a-z]*$|\(H: details\)…' && tui_fail "the health line cuts its pointer: $(tui_line '^health ')"
tui_wait '^B paymen…261202010000 +InProgress +[^ ]+ +[0-9]+/~?[0-9]+ +~?[0-9]+m[0-9]{2}s *$'
tui_wait '^B paymen…261201010000 +InProgress +[^ ]+ +[0-9]+/~?[0-9]+ +~?[0-9]+m[0-9]{2}s *$'
# the whole name in the detail
tui_keys Enter
tui_wait '^Backup payments-cluster-wide-nightly-backup-20261202010000 *$'
tui_wait '^Phase InProgress'
# the volumes: the ordinal and the volume survive the cut
tui_keys v
tui_wait 'Volumes of backup'
tui_wait '^pay…0:pgdata +InProgress'
tui_wait '^pay…1:pgdata +InProgress'
# health: NEXT RUN whole, OVERDUE too
tui_keys H
tui_wait 'Health *$'
tui_wait '^  NAME +SCHEDULE +LAST BACKUP +NEXT RUN *$'
tui_wait '^[ >] nightly +0 1 \* \* \* +none yet +due now OVERDUE *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_small"
