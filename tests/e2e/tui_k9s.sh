#!/usr/bin/env bash
# tui_k9s.sh: k9s' habits. `:` takes Velero's short names (bak, rst: the list of those only;
# sched, bsl, vsl, repo: health; pvb, pvr, du, dd: the selected run's volumes), lists the commands
# that match as you type, and says so for one it does not know; the volumes of a kind are the
# run's volumes filtered by their kind (`/` there too); `/` filters by regular
# expression (any case), `/!` inverts, `/-l key=value` selects by label, a bad expression is said
# and crashes nothing; Shift+a column's letter sorts by it, again the other way, the column title
# showing the direction; d describes (velero describe), y shows YAML.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-done +Completed'
rows() { tui_screen | grep -E '^[BR][ ⚠]' | awk '{print $2}' | tr '\n' ' '; }
expect_rows() { # what, rows (in screen order)
    local end=$((SECONDS + 10))
    while [ "$SECONDS" -le "$end" ]; do
        [ "$(rows)" = "$2" ] && return 0
        sleep 0.1
    done
    tui_fail "$1: rows '$(rows)', want '$2'"
}

# sort: the default is STARTED, newest first; N by name, N again the other way; S back
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS +RATE +ETA +STARTED↓ +DUR'
expect_rows "by start" "restore-inprogress backup-inprogress backup-partial backup-failed restore-done backup-done "
tui_keys N
tui_wait '^  NAME↑ +PHASE +PROGRESS +ITEMS +RATE +ETA +STARTED +DUR'
tui_wait 's:sort\(name\)'
expect_rows "N" "backup-done backup-failed backup-inprogress backup-partial restore-done restore-inprogress "
tui_keys N
tui_wait '^  NAME↓ +PHASE'
tui_wait 's:sort\(name,reversed\)'
expect_rows "N N" "restore-inprogress restore-done backup-partial backup-inprogress backup-failed backup-done "
tui_keys S
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS +RATE +ETA +STARTED↓ '
expect_rows "S" "restore-inprogress backup-inprogress backup-partial backup-failed restore-done backup-done "
tui_keys S
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS +RATE +ETA +STARTED↑ '
expect_rows "S S" "backup-done restore-done backup-failed backup-partial backup-inprogress restore-inprogress "
tui_keys P
tui_wait '^  NAME +PHASE↑ '
tui_keys 1
tui_wait 'STARTED↓ '

# / filters by regular expression (any case)
tui_keys / '^BACKUP-(done|failed)$' Enter
tui_wait '^filter: /\^BACKUP-\(done\|failed\)\$ +2 of 6 runs  Esc clears$'
expect_rows "regex" "backup-failed backup-done "
tui_keys Escape
expect_rows "cleared" "restore-inprogress backup-inprogress backup-partial backup-failed restore-done backup-done "
# /! inverts
tui_keys / '!backup' Enter
tui_wait '^filter: /!backup +2 of 6 runs  Esc clears$'
expect_rows "!backup" "restore-inprogress restore-done "
tui_keys Escape
# /-l key=value: by label (k9s), key!=value the others
tui_keys / '-l velero.io/storage-location=default' Enter
expect_rows "-l" "backup-inprogress backup-partial backup-failed backup-done "
tui_keys Escape / '-l velero.io/storage-location!=default' Enter
expect_rows "-l !=" "restore-inprogress restore-done "
tui_keys Escape
# a bad expression: said, no row, no crash; fixed, the rows come back
tui_keys / 'fail[' Enter
tui_wait '^not a regular expression: fail\[ \(.+\)$'
tui_wait '^  no run shown: the filter is not a regular expression$'
tui_keys / BSpace Enter
tui_wait '^filter: /fail +2 of 6 runs  Esc clears$'
expect_rows "fixed" "backup-partial backup-failed "
tui_screen | grep -q 'not a regular expression' && tui_fail "the error outlived the bad filter"
tui_keys Escape

# : lists the commands that match what is typed
tui_keys ':'
tui_wait '^ : *$'
tui_wait '^ ctx    pick a context \(ctx NAME: show it\)$'
tui_wait '^ dd     data downloads of the run$'
tui_keys b
tui_wait '^ :b *$'
tui_wait_gone '^ rst '
tui_wait '^ bak    backups$'
tui_wait '^ bsl    storage locations \(health\)$'
tui_screen | grep -q '^ ctx ' && tui_fail ":b lists ctx"
tui_keys a k Enter
tui_wait '^backups only +4 of 6 runs  Esc clears$'
expect_rows ":bak" "backup-inprogress backup-partial backup-failed backup-done "
tui_keys ':' r e s t o r e s Enter
tui_wait '^restores only +2 of 6 runs  Esc clears$'
expect_rows ":restores" "restore-inprogress restore-done "
# :pvb wants a backup: the selected run is a restore
tui_keys g
tui_keys ':' p v b Enter
tui_wait 'pvb: select a backup first \(its volumes are listed with it\)'
tui_keys ':' p v r Enter
tui_wait '^Volumes of restore restore-inprogress '
tui_wait '^filter: /\^PodVolumeRestore\$ +[1-9][0-9]* of [1-9][0-9]* volumes  Esc clears$'
tui_keys Escape # the volumes' filter, then back, then the list's restores only
tui_wait_gone '^filter: '
tui_keys Escape Escape
expect_rows "Esc" "restore-inprogress backup-inprogress backup-partial backup-failed restore-done backup-done "
# :du and :pvb: the selected backup's volumes of that kind; / filters them too, !RE inverts
tui_keys / '^backup-inprogress$' Enter
expect_rows "backup-inprogress" "backup-inprogress "
tui_keys ':' d u Enter
tui_wait '^Volumes of backup backup-inprogress  3 volumes: '
tui_wait '^filter: /\^DataUpload\$ +1 of 3 volumes  Esc clears$'
tui_wait '^billing/invoices-data \(PVC\) +data mover '
tui_screen | grep -q 'postgres' && tui_fail ":du shows a pod volume"
tui_keys Escape ':' p v b Enter
tui_wait '^filter: /\^PodVolumeBackup\$ +2 of 3 volumes  Esc clears$'
tui_keys Escape / '!redis' Enter
tui_wait '^filter: /!redis +2 of 3 volumes  Esc clears$'
tui_wait '^shop/postgres-0:pgdata '
tui_screen | grep -q 'redis-0' && tui_fail "!redis shows redis"
tui_keys / 'BSpace' 'BSpace' 'BSpace' 'BSpace' 'BSpace' 'BSpace' '(' Enter
tui_wait '^no volume shown: the filter is not a regular expression$'
tui_keys Escape
tui_wait_gone '^filter: '
tui_keys Escape
tui_wait '^filter: /\^backup-inprogress\$'
tui_keys Escape
expect_rows "Esc" "restore-inprogress backup-inprogress backup-partial backup-failed restore-done backup-done "
tui_keys ':' s c h e d Enter
tui_wait 'Health *$'
tui_wait '^Schedules \(1\)'
tui_keys ':' b s l Enter
tui_wait 'Health *$'
tui_keys ':' n o p e Enter
tui_wait "unknown command 'nope' \(bak rst sched bsl vsl repo pvb pvr du dd ctx q\)"
tui_keys Escape Escape
tui_wait 'NAME +PHASE'

# d: velero describe; y: YAML (as k9s)
tui_keys End d
tui_wait '^Describe backup backup-done +live \([0-9:]{8}\) +[0-9]+ lines as velero describe$'
tui_wait '^Name: +backup-done$'
tui_keys Escape y
tui_wait '^Describe backup backup-done +live \([0-9:]{8}\) +[0-9]+ lines as YAML$'
tui_wait '^kind: Backup$'
# [ keeps the format
tui_keys '['
tui_wait '^Describe restore restore-done +live \([0-9:]{8}\) +[0-9]+ lines as YAML$'
tui_keys Escape
tui_keys ':' q Enter
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_k9s: ok"
