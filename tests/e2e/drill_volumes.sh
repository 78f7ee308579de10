#!/usr/bin/env bash
# drill_volumes.sh: the volumes screen against veltop-sim (basic.yaml): every PVB/DataUpload of a
# run with node, pod/volume or PVC, uploader, phase and exact bytes; the aggregate line; results.
source "$(dirname "$0")/tui_lib.bash"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --resource-progress
tui_start 160 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'backup-done' 15

# the list shows each run's aggregate volume bytes
tui_wait '^B backup-done .* 64\.0 MiB/64\.0 MiB *$' 5
tui_wait '^B backup-inprogress .* [0-9.]+ [KMG]?i?B/1\.3 GiB *$' 10
tui_keys / ; tui_keys "backup-done" Enter
tui_wait '^B backup-done' 5
# and so does the detail screen
tui_keys Enter
tui_wait '^Volumes 1 of 1 done.* 64\.0 MiB of 64\.0 MiB' 10
tui_keys Escape
tui_wait '^B backup-done' 5
tui_keys v
tui_wait 'Volumes of backup backup-done +1 volume: 0 in progress, 1 finished' 10
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
# in-progress rows first: no finished or pending row above a moving one
tui_screen | awk '/^NODE/{t=1;next} t&&/ (InProgress|Completed|Failed|New|Accepted|Prepared|Canceled) /{
    r = / InProgress / ? 0 : / (New|Accepted|Prepared) / ? 1 : 2; if (r < last) bad=1; last=r }
    END{exit bad}' || tui_fail "volumes not in progress-first order"

# results of a partially failed backup: errors grouped
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys "backup-partial" Enter
tui_wait '^B backup-partial' 5
tui_keys r
tui_wait 'Results of backup backup-partial +3 errors, 1 warning( |$)' 15
tui_wait '^Errors \(3\):' 5
tui_wait '^Warnings \(1\):' 5
# grouped by namespace: 2 errors under billing, 1 under shop, the warning under billing
scr=$(tui_screen | sed -n '/^Errors (3):/,$p')
[ "$(printf '%s\n' "$scr" | sed -n '2,3p')" = "$(printf '  Namespaces:\n    billing:')" ] || tui_fail "errors not grouped under Namespaces/billing"
[ "$(printf '%s\n' "$scr" | sed '/^Warnings/,$d' | sed -n '/^    billing:/,/^    shop:/p' | grep -c '^      [a-z]')" -eq 2 ] || tui_fail "expected 2 errors under billing"
printf '%s\n' "$scr" | sed -n '/^    shop:/,/^Warnings/p' | grep -q '^      failed to get pod volume backup for shop/' || tui_fail "shop's error missing"
printf '%s\n' "$scr" | sed -n '/^Warnings (1):/,$p' | grep -q '^    billing:' || tui_fail "the warning is not under billing"

# a failed backup: its failure is a Velero error
tui_keys Escape ; tui_keys / ; tui_keys C-u ; tui_keys "backup-failed" Enter
tui_wait '^B backup-failed' 5
tui_keys r
tui_wait 'Results of backup backup-failed +1 error, 0 warnings' 15
tui_wait '^  Velero:' 5
tui_wait '^    rpc error: code = Unavailable desc = error reading from server: EOF' 5
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
