#!/usr/bin/env bash
# tui_read_cut.sh: on the detail screen every line a narrow terminal cuts can be read in full
# there: the Rate line's last progress, the parts' rates and ETAs, the resources' title (which
# the rows' range must not hide) and the namespaces; cut lines end in an ellipsis, Right says
# that W shows them (never "nothing is cut"), and W puts each in full on lines of its own.
# veltop --demo, full-cluster-migration (8 volumes in flight, six namespaces), at 80x24, 60x16
# and 60x30 (room for the resources' title on two lines).
. "$(dirname "$0")/tui_lib.bash" || exit 1

open_migration() {
    tui_wait '● live'
    tui_keys / ; tui_keys full-cluster Enter
    tui_wait '^B full-.*migration +InProgress'
    tui_keys Enter
    tui_wait '^Backup full-cluster-migration +InProgress'
}

# 80x24: the namespaces are cut beside the location; W gives them a line, whole
tui_start 80 24 --demo
open_migration
tui_wait '^Location default .*Namespaces shop,paym.*…$'
tui_keys Right
tui_wait 'W: the cut lines in full'
tui_keys W
tui_wait '^Namespaces shop,payments,inventory,auth,monitoring,search *$'
tui_wait '^Resources +[0-9]+ of [0-9]+ types done +\(derived from the Velero server log\) *$'
tui_keys W
tui_wait '^Location default .*Namespaces shop,paym.*…$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q at 80x24"
tui_server_stop
echo "80x24: ok"

# 60x16: the last progress and the parts' rates are cut with an ellipsis; W puts them under
tui_start 60 16 --demo
open_migration
tui_wait '^Rate +[0-9.]+/s +ETA done in ~?[0-9m]+[0-9]+s \(at [0-9:]+\)(,| +last).*…$'
tui_wait '^  pod volumes +[0-9]+ of 6 done +[0-9.]+ GiB of 59\.0 GiB +[0-9.]+ MiB.*…$'
# the rows' range leaves the title an ellipsis, not a cut word
tui_wait '^Resources +[0-9]+ of 36 types done +\(.*…  rows 1-[0-9]+ of 36 \(j/k\)$'
tui_keys Right
tui_wait 'W: the cut lines in full'
tui_keys W
tui_wait '^Rate +[0-9.]+/s +ETA done in ~?[0-9m]+[0-9]+s \(at [0-9:]+\)(, [a-z ]+)? *$'
tui_wait '^     last progress [0-9]+s ago *$'
tui_wait '^  pod volumes +[0-9]+ of 6 done +[0-9.]+ GiB of 59\.0 GiB *$'
tui_wait '^ {16}[0-9.]+ MiB/s  ETA [0-9m]+[0-9]+s\+? *$'
tui_wait '^  data mover +[0-9]+ of 2 done +[0-9.]+ GiB of 65\.0 GiB *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q at 60x16"
tui_server_stop
echo "60x16: ok"

# 60x30: room for the resources' title on two lines under W
tui_start 60 30 --demo
open_migration
tui_wait '^Resources +[0-9]+ of 36 types done +\(.*…  rows 1-[0-9]+ of 36 \(j/k\)$'
tui_keys W
tui_wait '^Resources +[0-9]+ of 36 types done +\(derived from the( Velero)? *$'
tui_wait '^ +(Velero )?server log\) *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "q at 60x30"
echo "60x30: ok"
echo "PASS tui_read_cut"
