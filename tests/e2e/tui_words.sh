#!/usr/bin/env bash
# tui_words.sh: what the screens say, word for word: a Failed run's unreached resource types say
# "not reached" (not "pending") and the one it stopped in "stopped"; a run without volumes shows a
# dash for its volume bytes; canceled volumes are counted as canceled, not failed; a namespace with
# no Velero in it says so instead of "no backups or restores (yet)".
. "$(dirname "$0")/tui_lib.bash" || exit 1

# a Failed run's unreached types need their totals: status.resourceProgress (--resource-progress);
# on stock Velero a finished run's rows come from its BackupResourceList, which lists only what
# was backed up
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --resource-progress
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-failed +Failed'
# no volumes: a dash in VOLUME BYTES (after E/W 1/0), as for any unknown cell
tui_wait '^B backup-failed +Failed .* 1/0 +- *$'
tui_wait '^B backup-done +Completed .* 0/2 +64\.0 MiB/64\.0 MiB *$'
tui_keys /
tui_keys -l 'backup-failed'
tui_keys Enter Enter
tui_wait '^Backup backup-failed +Failed'
tui_wait '^  pods +[^ ]+ +9 of 10 +stopped$'
tui_wait '^  configmaps +[^ ]+ +0 of 9 +not reached$'
tui_wait '^  namespaces +[^ ]+ +1 of 1 +done$'
tui_screen | grep -q 'pending' && tui_fail "a Failed run shows pending resources"
tui_keys q
tui_wait_exit >/dev/null
tui_server_stop

# a namespace without Velero
tui_start 100 30 --kubeconfig "$TUI_DIR/kubeconfig" -n wrongns
tui_wait '^  no Velero found in namespace wrongns$'
tui_wait "^  no backup storage location, backup or restore there; -n names Velero's namespace\$"
# and where Velero is (a cluster-wide look for a storage location): the option that shows it
tui_wait '^  Velero is in namespace velero: veltop -n velero$'
tui_screen | grep -q 'no backups or restores' && tui_fail "says only: no backups or restores"
tui_keys q
tui_wait_exit >/dev/null
tui_server_stop
tui_sim_kill

# flow-failed: Failed at 5 of 10 items, its pod volume backup Canceled
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/flow.yaml" --quiet
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B flow-failed +Failed' 30
tui_keys /
tui_keys -l 'flow-failed'
tui_keys Enter Enter
tui_wait '^Backup flow-failed +Failed'
tui_wait '^Volumes 0 of 1 done, 1 canceled   0 B of 0 B$'
tui_keys v
tui_wait 'Volumes of backup flow-failed +1 volume: 0 in progress, 1 finished, 1 canceled$'
tui_wait '^All volumes .*  \(some canceled\)$'
tui_screen | grep -Eq '[0-9]+ failed|some failed' && tui_fail "canceled volumes counted as failed"
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_words: ok"
