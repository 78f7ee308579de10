/* simkinds.c: the Kubernetes resources the simulated cluster's discovery names (simkinds.h). */
#include "simkinds.h"

#include <stdio.h>
#include <string.h>

/* As a Kubernetes 1.30 API server (and the CRDs' own definitions) name them. */
static const sim_kind kinds[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", 0, "ns"},
    {"", "v1", "pods", "pod", "Pod", 1, "po"},
    {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", 1,
     "pvc"},
    {"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", 0, "pv"},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", 1, "sa"},
    {"", "v1", "secrets", "secret", "Secret", 1, NULL},
    {"", "v1", "configmaps", "configmap", "ConfigMap", 1, "cm"},
    {"", "v1", "services", "service", "Service", 1, "svc"},
    {"", "v1", "endpoints", "endpoints", "Endpoints", 1, "ep"},
    {"", "v1", "events", "event", "Event", 1, "ev"},
    {"", "v1", "limitranges", "limitrange", "LimitRange", 1, "limits"},
    {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", 1, "quota"},
    {"", "v1", "nodes", "node", "Node", 0, "no"},
    {"", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", 1, "rc"},
    {"", "v1", "podtemplates", "podtemplate", "PodTemplate", 1, NULL},
    {"discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", 1, NULL},
    {"apps", "v1", "deployments", "deployment", "Deployment", 1, "deploy"},
    {"apps", "v1", "replicasets", "replicaset", "ReplicaSet", 1, "rs"},
    {"apps", "v1", "statefulsets", "statefulset", "StatefulSet", 1, "sts"},
    {"apps", "v1", "daemonsets", "daemonset", "DaemonSet", 1, "ds"},
    {"apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", 1, NULL},
    {"batch", "v1", "jobs", "job", "Job", 1, NULL},
    {"batch", "v1", "cronjobs", "cronjob", "CronJob", 1, "cj"},
    {"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler",
     "HorizontalPodAutoscaler", 1, "hpa"},
    {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", 1,
     "pdb"},
    {"networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", 1, "ing"},
    {"networking.k8s.io", "v1", "networkpolicies", "networkpolicy", "NetworkPolicy", 1, "netpol"},
    {"networking.k8s.io", "v1", "ingressclasses", "ingressclass", "IngressClass", 0, NULL},
    {"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", 1, NULL},
    {"rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", 1, NULL},
    {"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", 0, NULL},
    {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding",
     "ClusterRoleBinding", 0, NULL},
    {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", 0, "sc"},
    {"storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", 0, NULL},
    {"storage.k8s.io", "v1", "volumeattachments", "volumeattachment", "VolumeAttachment", 0, NULL},
    {"snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "volumesnapshotclass",
     "VolumeSnapshotClass", 0, "vsclass"},
    {"snapshot.storage.k8s.io", "v1", "volumesnapshots", "volumesnapshot", "VolumeSnapshot", 1,
     "vs"},
    {"snapshot.storage.k8s.io", "v1", "volumesnapshotcontents", "volumesnapshotcontent",
     "VolumeSnapshotContent", 0, "vsc"},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
     "CustomResourceDefinition", 0, "crd"},
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", 1, NULL},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", 0, "pc"},
    {"cert-manager.io", "v1", "certificates", "certificate", "Certificate", 1, "cert"},
    {"cert-manager.io", "v1", "issuers", "issuer", "Issuer", 1, NULL},
    {"monitoring.coreos.com", "v1", "servicemonitors", "servicemonitor", "ServiceMonitor", 1,
     "smon"},
    {"monitoring.coreos.com", "v1", "prometheusrules", "prometheusrule", "PrometheusRule", 1,
     "promrule"},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

const sim_kind *sim_kinds(size_t *n)
{
    *n = N_KINDS;
    return kinds;
}

const sim_kind *sim_kind_by_gr(const char *gr)
{
    const char *dot = strchr(gr, '.');
    size_t pl = dot ? (size_t)(dot - gr) : strlen(gr);
    const char *group = dot ? dot + 1 : "";
    for (size_t i = 0; i < N_KINDS; i++)
        if (strlen(kinds[i].plural) == pl && !strncmp(kinds[i].plural, gr, pl) &&
            !strcmp(kinds[i].group, group))
            return &kinds[i];
    return NULL;
}

static cJSON *gv_entry(const sim_kind *k)
{
    cJSON *e = cJSON_CreateObject();
    char gv[128];
    snprintf(gv, sizeof gv, "%s/%s", k->group, k->version);
    cJSON_AddStringToObject(e, "groupVersion", gv);
    cJSON_AddStringToObject(e, "version", k->version);
    return e;
}

/* One version per group in the table: its first entry's. */
static cJSON *group_doc(const sim_kind *k)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "name", k->group);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(g, "versions"), gv_entry(k));
    cJSON_AddItemToObject(g, "preferredVersion", gv_entry(k));
    return g;
}

static const sim_kind *first_of_group(const char *group)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (!strcmp(kinds[i].group, group)) return &kinds[i];
    return NULL;
}

void sim_kinds_add_groups(cJSON *groups)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (*kinds[i].group && first_of_group(kinds[i].group) == &kinds[i])
            cJSON_AddItemToArray(groups, group_doc(&kinds[i]));
}

cJSON *sim_kinds_group(const char *group)
{
    const sim_kind *k = *group ? first_of_group(group) : NULL;
    if (!k) return NULL;
    cJSON *g = group_doc(k);
    cJSON_AddStringToObject(g, "kind", "APIGroup");
    cJSON_AddStringToObject(g, "apiVersion", "v1");
    return g;
}

static int listed(const cJSON *arr, const char *plural)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        if (nm && !strcmp(nm, plural)) return 1;
    }
    return 0;
}

size_t sim_kinds_add_resources(cJSON *arr, const char *group, const char *version)
{
    static const char *verbs[] = {"create", "delete", "deletecollection", "get",
                                  "list",   "patch",  "update",           "watch"};
    size_t n = 0;
    for (size_t i = 0; i < N_KINDS; i++) {
        const sim_kind *k = &kinds[i];
        if (strcmp(k->group, group) || strcmp(k->version, version)) continue;
        n++;
        if (listed(arr, k->plural)) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", k->plural);
        cJSON_AddStringToObject(e, "singularName", k->singular);
        cJSON_AddBoolToObject(e, "namespaced", k->namespaced);
        cJSON_AddStringToObject(e, "kind", k->kind);
        cJSON *v = cJSON_AddArrayToObject(e, "verbs");
        for (size_t j = 0; j < sizeof verbs / sizeof verbs[0]; j++)
            cJSON_AddItemToArray(v, cJSON_CreateString(verbs[j]));
        cJSON *sn = cJSON_AddArrayToObject(e, "shortNames");
        if (k->short_name) cJSON_AddItemToArray(sn, cJSON_CreateString(k->short_name));
        cJSON_AddItemToArray(arr, e);
    }
    return n;
}
