# layout_lib.bash: checks shared by the e2e scripts that run once per install layout
# (`veltop-sim --layout install|helm`). Sourced after tui_lib.bash.

# The sim's Velero server pod, whatever the layout (sim/simstore.c).
LAYOUT_SERVER_POD="velero-7d8f9c6b54-x2k8p"

# Asserts the pods the sim serves for a layout: the server pod with that layout's labels, node-agent
# pods that also carry them under helm (app.kubernetes.io/name=velero), and a Running data-mover pod
# newer than the server, so that a pick by labels or by "newest Running" would fall on a wrong one.
layout_check_pods() { # layout
    python3 - "$TUI_SIM_URL" "$1" "$LAYOUT_SERVER_POD" <<'PY' || tui_fail "the sim's pods for layout $1"
import json, sys, urllib.request
url, layout, server = sys.argv[1:4]
pods = json.load(urllib.request.urlopen(url + "/api/v1/namespaces/velero/pods"))["items"]
by = {p["metadata"]["name"]: p for p in pods}
want = {"install": {"deploy": "velero", "component": "velero"},
        "helm": {"name": "velero", "app.kubernetes.io/name": "velero"}}[layout]
labels = by[server]["metadata"]["labels"]
assert all(labels.get(k) == v for k, v in want.items()), labels
assert {"install": "app.kubernetes.io/name", "helm": "deploy"}[layout] not in labels, labels
agents = [p for p in pods if p["metadata"]["labels"].get("name") == "node-agent"]
assert agents and all(a["metadata"]["labels"].get("role") == "node-agent" for a in agents), agents
if layout == "helm":
    assert all(a["metadata"]["labels"].get("app.kubernetes.io/name") == "velero" for a in agents)
movers = [p for p in pods if {"velero.io/data-upload", "velero.io/data-download"} & set(p["metadata"]["labels"])]
assert any(m["status"]["phase"] == "Running" and
           m["metadata"]["creationTimestamp"] > by[server]["metadata"]["creationTimestamp"]
           for m in movers), movers
PY
}

# From a run's detail or list row: `l` opens its live log, which names the server pod it reads
# exactly (so never a node-agent or data-mover pod); Escape goes back.
layout_check_log_pod() { # backup|restore name
    tui_keys l
    tui_wait "^LIVE log of $1 $2 +[0-9]+ lines, following +\(in progress, no stored log yet; streaming from pod $LAYOUT_SERVER_POD\)" 20
    tui_keys Escape
    tui_wait_gone '^LIVE log of ' 5
}

# Runs the calling script once per layout, LAYOUT=install then LAYOUT=helm, each in a fresh bash
# (its own sim, tmux server and temporary directory), and exits with the first failure; returns at
# once inside such a run, or when the caller set LAYOUT itself.
layout_each() {
    [ -n "${LAYOUT:-}" ] && return 0
    local l
    for l in install helm; do
        echo "== layout $l"
        LAYOUT=$l bash "$0" || exit
    done
    exit 0
}
