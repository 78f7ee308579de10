#!/usr/bin/env bash
# tui_read_full.sh: every message that is cut is readable on the screen where it shows. The
# detail's "Stuck?" line and the health screen's storage-location message (a 403 at the end of a
# long rpc error) are read in full by W (wrap) and by Right (scroll sideways); on the health
# screen j/k select an object and y / Enter describe it in the pager: a storage location, a
# schedule, the server pod and a node agent.
. "$(dirname "$0")/tui_lib.bash" || exit 1

# tui_wait_joined TEXT: waits until the screen, its lines joined (wrapped text read as one),
# contains TEXT
tui_wait_joined() {
    local end=$((SECONDS + 20))
    while [ "$SECONDS" -le "$end" ]; do
        tui_screen | tr -s ' \n' '  ' | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    tui_fail "timed out waiting for the joined screen to contain '$1'"
}

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --quiet
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^B'
tui_keys Enter
tui_wait '^Backup orphaned '
# cut: the 403 is past the edge
tui_wait '^Stuck\? since [0-9:]{8}  storage location default is Unavailable \(last validated [0-9:]{8}\): BackupStorageLocation "defaul.*…'
tui_screen | grep -q 'StatusCode: 403' && tui_fail "the Stuck? line is not cut at 120 columns (the test needs it cut)"
# W: in full, wrapped onto the next line
tui_keys W
tui_wait_joined 'Stuck? since'
tui_wait_joined 'BackupStorageLocation "default" is unavailable: rpc error: code = Unknown desc = operation error S3: ListObjectsV2, https response error StatusCode: 403 Items'
tui_keys W
tui_wait '^Stuck\? since [0-9:]{8}  storage location default is Unavailable \(last validated [0-9:]{8}\): .*…$'
# Right: sideways, as far as the end
tui_keys Right Right Right Right Right Right Right Right Right Right
tui_wait '^Stuck\? since [0-9:]{8}  .*StatusCode: 403 *$'
tui_keys Left Left Left Left Left Left Left Left Left Left
tui_wait '^Stuck\? since [0-9:]{8}  storage location default is Unavailable'

# the health screen: the BSL message likewise
tui_keys H
tui_wait 'Health *$'
tui_wait '^[ >] default +BSL +Unavailable .*since [0-9:]{8}: BackupStorageLocation "default" is'
tui_screen | grep -q 'StatusCode: 403' && tui_fail "the BSL message is not cut (the test needs it cut)"
tui_keys W
tui_wait '^[ >] default +BSL +Unavailable .*\(below\)'
tui_wait '^    since [0-9:]{8}: BackupStorageLocation "default" is unavailable: rpc error: code = Unknown desc ='
tui_wait_joined ': BackupStorageLocation "default" is unavailable: rpc error: code = Unknown desc = operation error S3: ListObjectsV2, https response error StatusCode: 403 Velero server'
tui_keys W
tui_wait '^[ >] default +BSL +Unavailable .*since [0-9:]{8}: BackupStorageLocation .*…$'
tui_keys Right Right Right Right Right Right Right Right Right Right
tui_wait '^[ >] default +BSL +Unavailable .*StatusCode: 403 *$'
tui_keys Left Left Left Left Left Left Left Left Left Left
tui_wait '^[ >] default +BSL .*since [0-9:]{8}: BackupStorageLocation'

# select and describe: the first object is the first schedule (hourly, by name)
tui_wait '^> hourly +@every 1h'
tui_keys y
tui_wait 'Describe *$'
tui_wait '^Describe schedule hourly +live \([0-9:]{8}\) +[0-9]+ lines as YAML'
tui_wait '^kind: Schedule$'
tui_keys o o
tui_wait '^Describe schedule hourly +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '"kind": "Schedule"'
tui_wait '"schedule": "@every 1h"'
tui_keys Escape
tui_wait 'Health *$'
# j: nightly, j: the storage location; Enter describes it too
tui_keys j j
tui_wait '^> default +BSL'
tui_keys Enter
tui_wait '^Describe storage location default +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '"kind": "BackupStorageLocation"'
tui_wait '"phase": "Unavailable"'
tui_keys Escape
tui_wait 'Health *$'
# the server pod, the node-agent DaemonSet, then the first node agent
tui_keys j
tui_wait '^> velero-7d8f9c6b54-x2k8p'
tui_keys d
tui_wait '^Describe pod velero-7d8f9c6b54-x2k8p +live \([0-9:]{8}\) +[0-9]+ lines as velero describe'
tui_keys o
tui_wait '^Describe pod velero-7d8f9c6b54-x2k8p +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '"kind": "Pod"'
tui_keys Escape
tui_keys j y o o
tui_wait '^Describe daemonset node-agent +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_keys G
tui_wait '"desiredNumberScheduled": 3'
tui_keys Escape
tui_keys j
tui_wait '^> worker-1 +node-agent-[a-z0-9]{5}'
tui_keys Enter
tui_wait '^Describe pod node-agent-[a-z0-9]{5} +live \([0-9:]{8}\) +[0-9]+ lines as JSON'
tui_wait '"nodeName": "worker-1"'
tui_keys Escape
tui_wait 'Health *$'
# H opens health from every screen: the describe pager and the detail
tui_keys y
tui_wait 'Describe *$'
tui_keys H
tui_wait 'Health *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_read_full"
