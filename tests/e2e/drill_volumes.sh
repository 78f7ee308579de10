#!/usr/bin/env bash
# drill_volumes.sh: the volumes screen against veltop-sim (basic.yaml): every PVB/DataUpload of a
# run with node, pod/volume or PVC, uploader, phase and exact bytes; the aggregate line; results.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'backup-done' 15

tui_keys / ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
tui_keys v
tui_wait 'Volumes of backup backup-done +1 volumes: 0 in progress, 1 finished' 10
tui_wait 'shop/db-0:data +kopia +Completed .* 64\.0 MiB / 64\.0 MiB' 5
tui_wait 'All volumes .* 64\.0 MiB / 64\.0 MiB' 5

# the backup in progress: kopia + restic PVBs and a DataUpload, in progress first
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys "backup-inprogress" Enter
tui_wait '^B backup-inprogress' 5
tui_keys v
tui_wait 'Volumes of backup backup-inprogress +3 volumes' 10
tui_wait 'shop/postgres-0:pgdata +kopia .* / 200\.0 MiB' 10
tui_wait 'billing/redis-0:cache +restic .* / 120\.0 MiB' 5
tui_wait 'billing/invoices-data \(PVC\) +data mover .* / 1\.0 GiB' 5
tui_wait 'All volumes .* / 1\.3 GiB' 5
line=$(tui_line 'shop/postgres-0:pgdata')
tui_wait_change 'shop/postgres-0:pgdata' "$line" 25 # bytes move (every 10 s)

# results of a partially failed backup: errors grouped
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys "backup-partial" Enter
tui_wait '^B backup-partial' 5
tui_keys r
tui_wait 'Results of backup backup-partial +3 errors, 1 warnings' 15
tui_wait '^Errors \(3\):' 5
tui_wait '^Warnings \(1\):' 5
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
