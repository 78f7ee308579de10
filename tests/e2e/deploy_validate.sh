#!/usr/bin/env bash
# deploy_validate.sh: deploy/ builds offline with `kubectl kustomize` into exactly the exporter's
# objects (ServiceAccount, Role, RoleBinding, Deployment, Service, ServiceMonitor,
# PrometheusRule), all in Velero's namespace and tied together (the binding's Role and
# ServiceAccount, the Deployment's ServiceAccount, the Service's and the ServiceMonitor's
# selectors and port); every object is valid against Kubernetes' and the Prometheus Operator's
# schemas (npm kubernetes-models, @kubernetes-models/prometheus-operator, offline), and a broken
# one is not; the Role has no `*`; the PrometheusRule is doc/prometheus/veltop-rules.yml word for
# word, promtool checks it and its tests pass on it; an overlay's `namespace:` and `images:` move
# and retag all of it. The Containerfile (which nothing here can build: no registry) installs a
# Debian package for every library the veltop binary links against directly.
. "$(dirname "$0")/tui_lib.bash" || exit 1
command -v npm >/dev/null || {
    echo "SKIP: npm not installed (sh scripts/deps.sh): no offline schema validation"
    exit 0
}
command -v kubectl >/dev/null || {
    echo "SKIP: kubectl not installed: it builds deploy/ (kubectl kustomize)"
    exit 0
}
for t in node python3 promtool; do
    command -v "$t" >/dev/null || tui_fail "$t not installed (sh scripts/deps.sh)"
done
: "${SRC_DIR:?set SRC_DIR}"
D=$TUI_DIR
NODE_DIR="${VELTOP_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/veltop/node}"
[ -d "$NODE_DIR/node_modules/kubernetes-models" ] &&
    [ -d "$NODE_DIR/node_modules/@kubernetes-models/prometheus-operator" ] ||
    tui_fail "the schema packages are not in $NODE_DIR: sh scripts/deps.sh installs them"

kubectl kustomize "$SRC_DIR/deploy" >"$D/all.yaml" 2>"$D/kustomize.err" ||
    { cat "$D/kustomize.err" >&2; tui_fail "kubectl kustomize deploy/ failed"; }
python3 - "$D/all.yaml" "$D/all.json" <<'PY' || tui_fail "deploy/ builds the wrong objects"
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
json.dump(docs, open(sys.argv[2], "w"))
fail = []
def check(ok, what):
    if not ok:
        fail.append(what)
kinds = sorted(d["kind"] for d in docs)
check(kinds == ["Deployment", "PrometheusRule", "Role", "RoleBinding", "Service",
                "ServiceAccount", "ServiceMonitor"], f"kinds {kinds}")
k = {d["kind"]: d for d in docs}
for d in docs:
    check(d["metadata"]["name"] == "veltop", f'{d["kind"]} named {d["metadata"]["name"]}')
    check(d["metadata"].get("namespace") == "velero", f'{d["kind"]} not in velero')
role = k["Role"]
for r in role["rules"]:
    for f in ("apiGroups", "resources", "verbs", "resourceNames"):
        check(not any("*" in v for v in r.get(f, [])), f"a * in the Role: {r}")
rb = k["RoleBinding"]
check(rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "veltop"},
      f'roleRef {rb["roleRef"]}')
check(rb["subjects"] == [{"kind": "ServiceAccount", "name": "veltop", "namespace": "velero"}],
      f'subjects {rb["subjects"]}')
pod = k["Deployment"]["spec"]["template"]
spec = pod["spec"]
check(spec["serviceAccountName"] == "veltop", "the Deployment's ServiceAccount")
c = spec["containers"][0]
check(c["image"] == "veltop:0.1.0", f'image {c["image"]}')
check(c["args"] == ["--serve", ":9368"], f'args {c["args"]}')
check(c["ports"] == [{"name": "metrics", "containerPort": 9368, "protocol": "TCP"}],
      f'ports {c["ports"]}')
env = {e["name"]: e for e in c.get("env", [])}
check(env.get("VELERO_NAMESPACE", {}).get("valueFrom") ==
      {"fieldRef": {"fieldPath": "metadata.namespace"}}, "VELERO_NAMESPACE is not the pod's")
labels = pod["metadata"]["labels"]
svc = k["Service"]["spec"]
check(svc["selector"] == labels, "the Service does not select the pods")
check(svc["ports"][0]["targetPort"] == "metrics" and svc["ports"][0]["name"] == "metrics",
      f'Service ports {svc["ports"]}')
sm = k["ServiceMonitor"]["spec"]
check(sm["selector"]["matchLabels"].items() <= k["Service"]["metadata"]["labels"].items(),
      "the ServiceMonitor does not select the Service")
check(sm["endpoints"][0]["port"] == "metrics", "the ServiceMonitor's port")
for f in fail:
    print(f, file=sys.stderr)
sys.exit(1 if fail else 0)
PY
echo "objects: ok"

# schemas, offline: every object valid, and the validator is awake (a Service port that is not
# a number, a ServiceMonitor interval that is not a duration: both invalid)
mkdir -p "$D/v"
ln -s "$NODE_DIR/node_modules" "$D/v/node_modules"
cp "$SRC_DIR/tests/e2e/deploy_validate.mjs" "$D/v/"
node "$D/v/deploy_validate.mjs" <"$D/all.json" >"$D/valid.out" 2>&1 ||
    { cat "$D/valid.out" >&2; tui_fail "deploy/ has objects the schemas refuse"; }
[ "$(grep -c '^ok ' "$D/valid.out")" = 7 ] || { cat "$D/valid.out" >&2; tui_fail "not 7 objects valid"; }
python3 - "$D/all.json" "$D/broken.json" <<'PY'
import json, sys
docs = json.load(open(sys.argv[1]))
for d in docs:
    if d["kind"] == "Service":
        d["spec"]["ports"][0]["port"] = "metrics"
    if d["kind"] == "ServiceMonitor":
        d["spec"]["endpoints"][0]["interval"] = "15 seconds"
json.dump(docs, open(sys.argv[2], "w"))
PY
node "$D/v/deploy_validate.mjs" <"$D/broken.json" >"$D/broken.out" 2>&1 &&
    { cat "$D/broken.out" >&2; tui_fail "the validator took broken objects"; }
grep -q '^invalid Service/veltop: data/spec/ports/0/port must be integer$' "$D/broken.out" &&
    grep -q '^invalid ServiceMonitor/veltop: data/spec/endpoints/0/interval must match' "$D/broken.out" ||
    { cat "$D/broken.out" >&2; tui_fail "the validator did not name the broken fields"; }
echo "schemas: ok"

# the PrometheusRule is the documented rule file, checked and tested by promtool
python3 - "$D/all.json" "$SRC_DIR/doc/prometheus/veltop-rules.yml" "$D/rules/veltop-rules.yml" <<'PY' ||
import json, os, sys, yaml
docs = json.load(open(sys.argv[1]))
rule = [d for d in docs if d["kind"] == "PrometheusRule"][0]
doc = yaml.safe_load(open(sys.argv[2]))
os.makedirs(os.path.dirname(sys.argv[3]), exist_ok=True)
yaml.safe_dump(rule["spec"], open(sys.argv[3], "w"))
if rule["spec"] != doc:
    print("deploy/prometheusrule.yaml differs from doc/prometheus/veltop-rules.yml", file=sys.stderr)
    sys.exit(1)
PY
    tui_fail "the PrometheusRule is not the documented rules"
promtool check rules "$D/rules/veltop-rules.yml" >"$D/rules.out" 2>&1 ||
    { cat "$D/rules.out" >&2; tui_fail "promtool check rules"; }
grep -q 'SUCCESS: 8 rules found' "$D/rules.out" || { cat "$D/rules.out" >&2; tui_fail "not 8 rules"; }
cp "$SRC_DIR/doc/prometheus/veltop-rules.test.yml" "$D/rules/"
(cd "$D/rules" && promtool test rules veltop-rules.test.yml) >"$D/rtest.out" 2>&1 ||
    { cat "$D/rtest.out" >&2; tui_fail "promtool test rules on the PrometheusRule's groups"; }
echo "rules: ok"

# an overlay moves everything to another namespace (the binding's subject, the Role) and sets
# the image, as an operator does
mkdir -p "$D/overlay"
cp -r "$SRC_DIR/deploy" "$D/overlay/base"
cat >"$D/overlay/kustomization.yaml" <<'EOF'
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: openshift-adp
resources: [base]
images:
  - name: veltop
    newName: registry.example.com/tools/veltop
    newTag: "1.2.3"
EOF
kubectl kustomize "$D/overlay" >"$D/overlay.yaml" || tui_fail "kubectl kustomize of an overlay"
python3 - "$D/overlay.yaml" <<'PY' || tui_fail "the overlay did not move or retag everything"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
k = {d["kind"]: d for d in docs}
bad = [d["kind"] for d in docs if d["metadata"].get("namespace") != "openshift-adp"]
bad += ["subject"] if k["RoleBinding"]["subjects"][0]["namespace"] != "openshift-adp" else []
img = k["Deployment"]["spec"]["template"]["spec"]["containers"][0]["image"]
bad += [img] if img != "registry.example.com/tools/veltop:1.2.3" else []
if bad:
    print(bad, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "overlay: ok"

# the Containerfile's runtime stage: Debian packages (installed here, as the build's runtime
# libraries are) that hold every library veltop needs but libc, which debian:12-slim has
RUNTIME=$(sed -n '/^FROM debian:12-slim$/,$p' "$SRC_DIR/Containerfile" |
    sed -n '/apt-get install/,/rm -rf/p' | tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' |
    grep -vxE 'apt-get|install|update|rm|rf|-y|-qq|--no-install-recommends' | sort -u)
[ -n "$RUNTIME" ] || tui_fail "no runtime packages found in the Containerfile"
for p in $RUNTIME; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        tui_fail "the Containerfile installs $p, which is not an installed Debian package here"
done
for lib in $(ldd "$VELTOP" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
    [ -n "$(objdump -p "$VELTOP" | awk -v n="$(basename "$lib")" '$1 == "NEEDED" && $2 == n')" ] || continue
    pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || tui_fail "no Debian package holds $lib"
    # libc is in the base image; the sanitizers' runtimes are in sanitizer builds only (the
    # image is built by make install: RelWithDebInfo)
    case "$pkg" in libc6 | libasan[0-9]* | libubsan[0-9]*) continue ;; esac
    echo "$RUNTIME" | grep -qx "$pkg" || tui_fail "the Containerfile's runtime stage lacks $pkg ($lib)"
done
echo "Containerfile runtime packages: ok"
