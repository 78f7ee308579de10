#!/usr/bin/env bash
# tui_actions.sh: veltop changes nothing unless asked twice. Read-only by default (the header
# says so, an action key says how to turn actions on and sends nothing); turned on for a context
# by the config file, every action opens a dialog naming the context, namespace, object and
# request, which only `y` confirms -- Enter says no, and a `y` typed before the dialog was drawn
# is not an answer. Each action's object is checked on the wire (veltop-sim --record) and its
# effect on screen: backup now (a Backup from the schedule's template, labelled, named
# <schedule>-<timestamp>), pause and unpause (a merge patch of spec.paused), cancel a
# DataUpload (spec.cancel: Canceling, then Canceled), delete a backup (a DeleteBackupRequest
# with the CLI's labels, never a DELETE: Deleting, then gone). c puts the command on tmux's
# clipboard by OSC 52. With --allow-actions and a user RBAC forbids to patch, the 403 names the
# user. On Velero 1.16 a PodVolumeBackup's cancel is refused before anything is sent.
. "$(dirname "$0")/tui_lib.bash" || exit 1

REC="$TUI_DIR/rec.jsonl"
CFG="$TUI_DIR/cfg"
mkdir -p "$CFG/veltop"
export XDG_CONFIG_HOME="$CFG"
# the writes veltop sent that are not its own DownloadRequests (stored logs, resource lists)
writes() {
    [ -f "$REC" ] || return 0
    jq -c 'select(.path | test("/downloadrequests") | not)' "$REC"
}
nwrites() {
    writes | wc -l
}
dialog_is() { # title, object, request
    tui_wait "^  Confirm: $1 *\$"
    tui_wait '^  context +veltop-sim *$'
    tui_wait '^  namespace +velero *$'
    tui_wait "^  object +$2 *\$"
    tui_wait "^  request +$3"
    tui_wait '^  y: yes, do it +any other key \(Enter, Esc, n\): no *$'
}

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/actions.yaml" --record "$REC" --quiet

# ---- read-only: the default ------------------------------------------------------------------
tui_start 180 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^ veltop +ctx veltop-sim +ns velero +read-only '
tui_wait '^B old +Completed'
tui_keys H
tui_wait '^> daily +0 1 \* \* \* +no '
# refused(KEY): KEY says read-only (after Y's "copied" message, so each refusal is its own)
refused() {
    tui_keys c
    tui_wait '^ copied: '
    tui_keys "$1"
    tui_wait "^ read-only: --allow-actions, or contexts\.veltop-sim\.actions: true in $CFG/veltop/config\.yaml, turns"
    tui_screen | grep -q 'Confirm' && tui_fail "$1 opened a dialog in read-only mode"
}
refused t
refused p
tui_keys Escape
tui_wait 'Backups & Restores *$'
refused C-d
tui_keys v
tui_wait 'shop/invoices \(PVC\) +data mover +InProgress'
refused C-k
tui_keys Escape
[ "$(nwrites)" = 0 ] || tui_fail "read-only veltop wrote: $(writes)"
tui_server_stop

# ---- a bad config file: a clear message, no screen -------------------------------------------
printf 'contexts:\n  veltop-sim:\n    actions: sure\n' >"$CFG/veltop/config.yaml"
out=$("$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" 2>&1 </dev/null)
rc=$?
[ "$rc" = 2 ] || tui_fail "a bad config file: exit $rc, want 2"
[ "$out" = "veltop: $CFG/veltop/config.yaml: line 3: contexts.veltop-sim.actions: expected true or false" ] ||
    tui_fail "a bad config file said: $out"
# --once never acts: --allow-actions with it is refused
out=$("$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --allow-actions 2>&1)
[ "$out" = "veltop: --allow-actions only goes with the full screen (--once, --wait and --serve never act)" ] ||
    tui_fail "--once --allow-actions said: $out"

# ---- actions on for this context by the config file -----------------------------------------
printf 'contexts:\n  veltop-sim:\n    actions: true\n  prod:\n    actions: false\n' >"$CFG/veltop/config.yaml"
tui_start 100 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait '^ veltop +ctx veltop-sim +ns velero +actions on '

# copy the command: OSC 52 into tmux's buffer (set-clipboard on), and on the status line
tmux -L "$TUI_SOCK" set -g set-clipboard on
tui_wait '^B moving +InProgress'
tui_keys c
tui_wait '^ copied: velero backup describe moving --details -n velero --kubecontext veltop-sim'
[ "$(tmux -L "$TUI_SOCK" show-buffer)" = "velero backup describe moving --details -n velero --kubecontext veltop-sim" ] ||
    tui_fail "the clipboard holds: $(tmux -L "$TUI_SOCK" show-buffer 2>&1)"

# cancel the DataUpload of "moving"
tui_keys v
tui_wait '^shop/invoices \(PVC\) +InProgress'
DU=$(curl -s "$TUI_SIM_URL/apis/velero.io/v2alpha1/namespaces/velero/datauploads" | jq -r '.items[0].metadata.name')
tui_keys C-k
dialog_is "cancel DataUpload $DU" "DataUpload $DU" \
    "PATCH /apis/velero.io/v2alpha1/namespaces/velero/datauploads/$DU *\$"
tui_wait '^  body +merge patch \{"spec":\{"cancel":true\}\} *$'
tui_keys Enter # not y: no
tui_wait '^ not done \(only y confirms\): cancel DataUpload'
[ "$(nwrites)" = 0 ] || tui_fail "Enter confirmed: $(writes)"
tui_keys C-k
tui_wait "^  Confirm: cancel DataUpload $DU"
tui_keys y
tui_wait "^ DataUpload $DU: cancel requested \(spec.cancel: true\)"
tui_wait '^shop/invoices \(PVC\) +Canceling'
tui_wait '^shop/invoices \(PVC\) +Canceled'
[ "$(writes)" = "{\"method\":\"PATCH\",\"path\":\"/apis/velero.io/v2alpha1/namespaces/velero/datauploads/$DU\",\"query\":{},\"contentType\":\"application/merge-patch+json\",\"user\":\"system:serviceaccount:velero:veltop\",\"body\":{\"spec\":{\"cancel\":true}}}" ] ||
    tui_fail "the cancel on the wire: $(writes)"
tui_keys Escape
tui_wait 'Backups & Restores *$'

# delete backup "old": a DeleteBackupRequest with the CLI's labels, never a DELETE
UID_OLD=$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backups/old" | jq -r .metadata.uid)
tui_keys j
tui_keys C-d
dialog_is 'delete backup old \(its data in the storage location too\)' 'Backup old' \
    'POST /apis/velero.io/v1/namespaces/velero/deletebackuprequests *$'
tui_wait '^  body +DeleteBackupRequest old-\*: spec.backupName=old, labels'
tui_keys y
tui_wait '^ deletion of backup old requested \(DeleteBackupRequest old-[a-z0-9]{5}\)'
tui_wait '^B old +Deleting'
tui_wait_gone '^B old '
writes | tail -n 1 | jq -e --arg uid "$UID_OLD" '.method == "POST" and
    .path == "/apis/velero.io/v1/namespaces/velero/deletebackuprequests" and
    .body == {"apiVersion": "velero.io/v1", "kind": "DeleteBackupRequest",
              "metadata": {"generateName": "old-", "namespace": "velero",
                           "labels": {"velero.io/backup-name": "old", "velero.io/backup-uid": $uid}},
              "spec": {"backupName": "old"}, "status": {}}' >/dev/null ||
    tui_fail "the delete on the wire: $(writes | tail -n 1)"
writes | jq -e 'select(.method == "DELETE")' >/dev/null && tui_fail "a DELETE was sent: $(writes)"
[ "$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/deletebackuprequests" | jq -r '.items[0].status.phase')" = Processed ] ||
    tui_fail "the DeleteBackupRequest is not Processed"

# backup now from schedule daily; a y typed with the key (before the dialog is drawn) is no answer
tui_keys H
tui_wait '^> daily +0 1 \* \* \* +no '
n=$(nwrites)
tui_keys t y
dialog_is 'back up now from schedule daily' 'Schedule daily' \
    'POST /apis/velero.io/v1/namespaces/velero/backups *$'
tui_wait '^  body +Backup daily-[0-9]{14}: spec from schedule daily.s spec.template, label'
[ "$(nwrites)" = "$n" ] || tui_fail "a y typed ahead confirmed: $(writes | tail -n 1)"
tui_keys y
tui_wait '^ backup daily-[0-9]{14} created from schedule daily'
NAME=$(tui_screen | sed -n 's/^ backup \(daily-[0-9]\{14\}\) created.*/\1/p')
SCHED=$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/schedules/daily")
writes | tail -n 1 | jq -e --arg name "$NAME" --argjson s "$SCHED" '.method == "POST" and
    .path == "/apis/velero.io/v1/namespaces/velero/backups" and
    .body.metadata.name == $name and .body.metadata.namespace == "velero" and
    .body.metadata.labels == {"velero.io/schedule-name": "daily"} and
    .body.spec == $s.spec.template' >/dev/null ||
    tui_fail "the backup on the wire: $(writes | tail -n 1) (schedule: $SCHED)"
tui_keys Escape
tui_wait "^B $NAME +(New|InProgress|Completed)"
tui_wait "^B $NAME +Completed" 60

# pause, then unpause
tui_keys H
tui_wait '^> daily +0 1 \* \* \* +no '
tui_keys p
dialog_is 'pause schedule daily' 'Schedule daily' \
    'PATCH /apis/velero.io/v1/namespaces/velero/schedules/daily *$'
tui_wait '^  body +merge patch \{"spec":\{"paused":true\}\} *$'
tui_keys y
tui_wait '^ schedule daily paused'
tui_wait '^> daily +0 1 \* \* \* +yes '
tui_keys p
tui_wait '^  Confirm: unpause schedule daily *$'
tui_keys y
tui_wait '^ schedule daily unpaused'
tui_wait '^> daily +0 1 \* \* \* +no '
writes | tail -n 2 | jq -s -e 'map({method, path, contentType, body}) == [
    {"method": "PATCH", "path": "/apis/velero.io/v1/namespaces/velero/schedules/daily",
     "contentType": "application/merge-patch+json", "body": {"spec": {"paused": true}}},
    {"method": "PATCH", "path": "/apis/velero.io/v1/namespaces/velero/schedules/daily",
     "contentType": "application/merge-patch+json", "body": {"spec": {"paused": false}}}]' >/dev/null ||
    tui_fail "pause/unpause on the wire: $(writes | tail -n 2)"

# the dialog at 60x16 still names everything and the answer keys
tui_keys t
tui_resize 60 16
tui_wait '^  Confirm: back up now from schedule daily *$'
tui_wait '^  y: yes, do it +any other key \(Enter, Esc, n\): no *$'
tui_keys Escape
tui_wait '^ not done \(only y confirms\)'
tui_resize 100 30
tui_server_stop
tui_sim_kill

# ---- --allow-actions, and a user RBAC forbids to change anything: 403 names the user ---------
rm -f "$CFG/veltop/config.yaml" "$REC"
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/actions.yaml" --rbac "$FIXTURES_DIR/rbac-readonly.yaml" --quiet
tui_start 180 30 --kubeconfig "$TUI_DIR/kubeconfig" --allow-actions
tui_wait '● live'
tui_wait '^ veltop +ctx veltop-sim +ns velero +actions on '
tui_keys H
tui_wait '^> daily +0 1 \* \* \* +no '
tui_keys p
tui_wait '^  Confirm: pause schedule daily *$'
tui_keys y
tui_wait '^ not allowed for user system:serviceaccount:velero:veltop: schedules.velero.io "daily" is forbidden'
tui_wait '^> daily +0 1 \* \* \* +no '
tui_keys t
tui_wait '^  Confirm: back up now from schedule daily *$'
tui_keys y
tui_wait '^ not allowed for user system:serviceaccount:velero:veltop: backups.velero.io is forbidden'
tui_keys Escape
tui_wait 'Backups & Restores *$'
tui_keys j C-d
tui_wait '^  Confirm: delete backup old '
tui_keys y
tui_wait '^ not allowed for user system:serviceaccount:velero:veltop: deletebackuprequests.velero.io is forbidden'
tui_wait '^B old +Completed'
tui_keys k v
tui_wait 'shop/invoices \(PVC\) +data mover +InProgress'
tui_keys C-k
tui_wait '^  Confirm: cancel DataUpload '
tui_keys y
tui_wait '^ not allowed for user system:serviceaccount:velero:veltop: datauploads.velero.io "moving-[a-z0-9]+" is forbidden'
tui_server_stop
tui_sim_kill

# ---- Velero 1.16: a PodVolumeBackup's cancel is not sent (the server would ignore it) --------
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/actions_v116.yaml" --record "$REC" --quiet
tui_start 140 30 --kubeconfig "$TUI_DIR/kubeconfig" --allow-actions
tui_wait '● live'
tui_keys H
tui_wait '^  velero-[a-z0-9-]+ +Ready +0 restarts +v1\.16\.2 '
tui_keys Escape
tui_wait '^B podvol +InProgress'
tui_keys v
tui_wait 'shop/db-0:data +kopia +InProgress'
tui_keys C-k
tui_wait '^ not sent: Velero v1\.16\.2 cannot cancel a PodVolumeBackup \(spec\.cancel is honoured from 1\.17 on\)'
tui_screen | grep -q 'Confirm' && tui_fail "a dialog for a cancel this server ignores"
[ "$(nwrites)" = 0 ] || tui_fail "sent to Velero 1.16: $(writes)"
echo ok
