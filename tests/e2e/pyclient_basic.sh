#!/usr/bin/env bash
# pyclient_basic.sh: python3-kubernetes (the official Python client, Debian's python3-kubernetes)
# as a second real client against veltop-sim: /version/, list, get, merge-patch, a watch with
# watch=True and bookmarks that sees a backup move, the Velero pod (its ContainerStatus) and its
# log followed with timestamps (new lines arrive on the open stream), and a DownloadRequest created
# and polled until processed, its log downloaded and gunzipped. Runs /usr/bin/python3 (the Debian
# module), not the python3 first on PATH. SKIP without the module.
. "$(dirname "$0")/tui_lib.bash" || exit 1

PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import kubernetes' 2>/dev/null; then
    echo "SKIP: python3-kubernetes is not installed (sh scripts/deps.sh installs it)"
    exit 0
fi

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --speed 4 --bookmark-interval 300 --quiet
"$PY" - "$TUI_DIR/kubeconfig" <<'PY' || tui_fail "python3-kubernetes against veltop-sim"
import gzip, re, sys, time, urllib.request
from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
co = client.CustomObjectsApi(api)
core = client.CoreV1Api(api)
G, V, NS = "velero.io", "v1", "velero"

# /version/ (the client asks with a trailing slash)
v = client.VersionApi(api).get_code()
assert (v.major, v.minor, v.git_version) == ("1", "30", "v1.30.0"), v
print("ok: /version/")

# list and get
names = {b["metadata"]["name"] for b in co.list_namespaced_custom_object(G, V, NS, "backups")["items"]}
assert {"backup-done", "backup-inprogress", "backup-failed", "backup-partial"} <= names, names
b = co.get_namespaced_custom_object(G, V, NS, "backups", "backup-done")
assert b["status"]["phase"] == "Completed", b["status"]
assert (b["status"]["progress"]["totalItems"], b["status"]["progress"]["itemsBackedUp"]) == (55, 55)
assert "resourceProgress" not in b["status"], "stock Velero writes no resourceProgress"
print("ok: list, get")

# merge-patch (the client sends application/merge-patch+json for custom objects)
p = co.patch_namespaced_custom_object(G, V, NS, "backups", "backup-done",
                                      {"metadata": {"labels": {"checked-by": "pyclient"}}})
assert p["metadata"]["labels"]["checked-by"] == "pyclient", p["metadata"]["labels"]
b = co.get_namespaced_custom_object(G, V, NS, "backups", "backup-done")
assert b["metadata"]["labels"]["checked-by"] == "pyclient"
assert b["metadata"]["labels"]["velero.io/storage-location"] == "default"
print("ok: merge-patch")

# a watch (watch=True, allowWatchBookmarks=true): every backup ADDED first, then the running one
# MODIFIED with more items backed up, and a BOOKMARK
w = watch.Watch()
seen_added, first, moved, bookmark = set(), None, False, False
deadline = time.time() + 60
for ev in w.stream(co.list_namespaced_custom_object, G, V, NS, "backups",
                   allow_watch_bookmarks=True, timeout_seconds=60):
    o = ev["object"]
    if ev["type"] == "BOOKMARK":
        bookmark = True
    elif ev["type"] == "ADDED":
        seen_added.add(o["metadata"]["name"])
    elif ev["type"] == "MODIFIED" and o["metadata"]["name"] == "backup-inprogress":
        done = o.get("status", {}).get("progress", {}).get("itemsBackedUp", 0)
        if first is None:
            first = done
        elif done > first:
            moved = True
    if (moved and bookmark) or time.time() > deadline:
        w.stop()
assert names <= seen_added | {n for n in names if n.startswith("every5-")}, (names, seen_added)
assert moved, "backup-inprogress never moved on the watch"
assert bookmark, "no BOOKMARK on a watch that allows them"
print("ok: watch with watch=True and bookmarks")

# the Velero server pod deserialises (ContainerStatus.imageID is required by the client)
pods = core.list_namespaced_pod(NS, label_selector="deploy=velero").items
assert len(pods) == 1, pods
cs = pods[0].status.container_statuses[0]
assert cs.image_id.startswith("docker.io/velero/velero@sha256:"), cs.image_id
assert cs.ready and cs.restart_count == 0 and cs.state.running is not None, cs
pod = pods[0].metadata.name
print("ok: list_namespaced_pod")

# its log followed (follow=True, timestamps=True): the stream stays open and new lines arrive
before = core.read_namespaced_pod_log(pod, NS, timestamps=True).splitlines()
assert before, "an empty pod log"
ts = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z time=")
assert all(ts.match(l) for l in before), before[:3]
lw = watch.Watch()
got, started = 0, time.time()
for line in lw.stream(core.read_namespaced_pod_log, pod, NS, timestamps=True):
    assert ts.match(line), line
    got += 1
    if got > len(before) + 3 or time.time() - started > 60:
        lw.stop()
assert got > len(before) + 3, "follow: %d lines, %d before" % (got, len(before))
print("ok: pod log follow with timestamps (%d lines, %d new)" % (got, got - len(before)))

# a DownloadRequest, created and polled until processed; its URL serves the gzipped log
dr = {"apiVersion": "velero.io/v1", "kind": "DownloadRequest",
      "metadata": {"name": "pyclient-log"},
      "spec": {"target": {"kind": "BackupLog", "name": "backup-done"}}}
co.create_namespaced_custom_object(G, V, NS, "downloadrequests", dr)
deadline = time.time() + 30
while True:
    d = co.get_namespaced_custom_object(G, V, NS, "downloadrequests", "pyclient-log")
    if d.get("status", {}).get("phase") == "Processed" or time.time() > deadline:
        break
    time.sleep(0.1)
assert d["status"]["phase"] == "Processed", d
text = gzip.decompress(urllib.request.urlopen(d["status"]["downloadURL"]).read()).decode()
assert 'msg="Backed up a total of 55 items" backup=velero/backup-done' in text, text[-300:]
print("ok: DownloadRequest processed, log downloaded")
PY
echo "pyclient_basic: ok"
