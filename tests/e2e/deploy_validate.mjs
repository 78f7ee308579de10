// deploy_validate.mjs: validates Kubernetes objects (a JSON array on stdin) against the schemas
// of the npm packages kubernetes-models (Kubernetes' OpenAPI) and
// @kubernetes-models/prometheus-operator (the monitoring.coreos.com CRDs), offline. Prints one
// line per object, "ok Kind/name" or "invalid Kind/name: why", and exits 1 when any is invalid
// or has no schema. Run from a folder whose node_modules holds the packages (scripts/deps.sh).
const modules = {
    "v1": "kubernetes-models/v1",
    "apps/v1": "kubernetes-models/apps/v1",
    "rbac.authorization.k8s.io/v1": "kubernetes-models/rbac.authorization.k8s.io/v1",
    "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const objs = JSON.parse(input);
let bad = 0;
for (const o of objs) {
    const what = `${o.kind}/${o.metadata && o.metadata.name}`;
    const path = modules[o.apiVersion];
    const cls = path ? (await import(path))[o.kind] : undefined;
    if (!cls) {
        console.log(`invalid ${what}: no schema for ${o.apiVersion} ${o.kind}`);
        bad++;
        continue;
    }
    try {
        new cls(o).validate();
        console.log(`ok ${what}`);
    } catch (e) {
        console.log(`invalid ${what}: ${e.message}`);
        bad++;
    }
}
process.exit(bad ? 1 : 0);
