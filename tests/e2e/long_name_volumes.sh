#!/usr/bin/env bash
# long_name_volumes.sh: a backup named with 70 characters and a restore with 78 keep their volumes
# (veltop-sim, stock by default, labels them as Velero does: GetValidName(name), 57 characters + 6
# hex digits of the sha256, and the run's uid): the list, the detail screens and --once --json
# show their bytes, exactly. Once per install layout (velero install's labels, the Helm chart's).
source "$(dirname "$0")/tui_lib.bash"
source "$(dirname "$0")/layout_lib.bash"
layout_each

B=nightly-cluster-wide-backup-of-the-production-namespaces-2026120102000
R=$B-restore
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/long-name.yaml" --quiet --layout "$LAYOUT"
KC="$TUI_DIR/kubeconfig"

# the sim's stock default (no option): the runs carry no status.resourceProgress, as no Velero
# release writes it
curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/backups/$B" |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; assert "resourceProgress" not in s and s["phase"] == "Completed", s' ||
    tui_fail "the sim is not stock by default"

# what the sim labelled them with: the label value, not the name (sha256sum, independently)
want_b="${B:0:57}$(printf %s "$B" | sha256sum | cut -c1-6)"
got_b=$(curl -s "$TUI_SIM_URL/apis/velero.io/v1/namespaces/velero/podvolumebackups" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["metadata"]["labels"]["velero.io/backup-name"])')
[ "$got_b" = "$want_b" ] || tui_fail "PVB label '$got_b', want '$want_b'"

"$VELTOP" --kubeconfig "$KC" --once --json >"$TUI_DIR/once.json" || tui_fail "--once failed"
python3 - "$TUI_DIR/once.json" "$B" "$R" <<'PY' || tui_fail "--once --json lost the volumes"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
b, r = runs[sys.argv[2]], runs[sys.argv[3]]
assert [(v["kind"], v["bytesDone"], v["bytesTotal"], v["phase"]) for v in b["volumes"]] == \
    [("PodVolumeBackup", 67108864, 67108864, "Completed")], b["volumes"]
assert [(v["kind"], v["bytesDone"], v["bytesTotal"], v["phase"]) for v in r["volumes"]] == \
    [("PodVolumeRestore", 33554432, 33554432, "Completed")], r["volumes"]
PY

tui_start 200 40 --kubeconfig "$KC"
tui_wait "^B $B .* 64\.0 MiB/64\.0 MiB *\$" 15
tui_wait "^R $R .* 32\.0 MiB/32\.0 MiB *\$" 5
tui_keys / ; tui_keys "$R" Enter
tui_wait "^R $R" 5
tui_keys Enter
tui_wait '^Volumes 1 of 1 done.* 32\.0 MiB of 32\.0 MiB' 10
# the backup (its name is the restore's prefix: the filter keeps both; the restore is newer)
tui_keys Escape Escape ; tui_keys / ; tui_keys C-u ; tui_keys "$B" Enter
tui_wait "^B $B " 5
tui_keys G Enter
tui_wait "^Backup $B  Completed" 5
tui_wait '^Volumes 1 of 1 done.* 64\.0 MiB of 64\.0 MiB' 10
tui_wait '^  PVB shop/db-0:data +kopia +Completed .* 64\.0 MiB / 64\.0 MiB' 5
tui_keys q
tui_wait_exit >/dev/null
echo "ok"
