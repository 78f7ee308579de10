/* server_discovery.c: how veltop-sim's API server describes itself (server_int.h): the
 * APIResourceLists of /api/v1 and /apis/velero.io/<version> with verbs, short names, categories
 * and subresources, the velero.io APIGroup, the other groups simkinds.h names, and the empty list a
 * cluster answers for a kind it has none of. */
#include "server_int.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simkinds.h"

/* ---- discovery ---- */

static const char *verbs_main[] = {"create", "delete", "deletecollection", "get",
                                   "list",   "patch",  "update",           "watch"};

cJSON *srv_str_array(const char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static const char *short_name(const sim_resource *r)
{
    if (!strcmp(r->plural, "backupstoragelocations")) return "bsl";
    if (!strcmp(r->plural, "volumesnapshotlocations")) return "vsl";
    if (!strcmp(r->plural, "pods")) return "po";
    if (!strcmp(r->plural, "daemonsets")) return "ds";
    if (!strcmp(r->plural, "namespaces")) return "ns";
    return NULL;
}

cJSON *srv_resource_list(const char *group, const char *version)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "kind", "APIResourceList");
    cJSON_AddStringToObject(l, "apiVersion", "v1");
    char gv[64];
    snprintf(gv, sizeof gv, "%s%s%s", group, *group ? "/" : "", version);
    cJSON_AddStringToObject(l, "groupVersion", gv);
    cJSON *arr = cJSON_AddArrayToObject(l, "resources");
    size_t n;
    const sim_resource *rs = sim_resources(&n);
    for (size_t i = 0; i < n; i++) {
        const sim_resource *r = &rs[i];
        if (strcmp(r->group, group) || strcmp(r->version, version)) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", r->plural);
        cJSON_AddStringToObject(e, "singularName", r->singular);
        cJSON_AddBoolToObject(e, "namespaced", r->namespaced);
        cJSON_AddStringToObject(e, "kind", r->kind);
        cJSON_AddItemToObject(e, "verbs", srv_str_array(verbs_main, 8));
        const char *sn = short_name(r);
        cJSON_AddItemToObject(e, "shortNames", srv_str_array(&sn, sn ? 1 : 0));
        int velero = !strcmp(group, "velero.io");
        if (velero) {
            const char *cat = "velero";
            cJSON_AddItemToObject(e, "categories", srv_str_array(&cat, 1));
        } else {
            const char *cat = "all"; /* kubectl get all: pods and daemonsets, not namespaces */
            cJSON_AddItemToObject(e, "categories",
                                  srv_str_array(&cat, strcmp(r->plural, "namespaces") ? 1 : 0));
        }
        cJSON_AddItemToArray(arr, e);
        /* Velero's CRDs declare no status subresource (velero-api.md section 0): only the
         * built-in resources have /status, and pods /log */
        const char *subs[] = {"status", "log"};
        int nsub = velero ? 0 : strcmp(r->plural, "pods") ? 1 : 2;
        for (int k = 0; k < nsub; k++) {
            cJSON *s = cJSON_CreateObject();
            char *nm = xasprintf("%s/%s", r->plural, subs[k]);
            cJSON_AddStringToObject(s, "name", nm);
            free(nm);
            cJSON_AddStringToObject(s, "singularName", "");
            cJSON_AddBoolToObject(s, "namespaced", r->namespaced);
            cJSON_AddStringToObject(s, "kind", k ? "Pod" : r->kind);
            const char *sv[] = {"get", "patch", "update"};
            cJSON_AddItemToObject(s, "verbs", srv_str_array(sv, k ? 1 : 3));
            cJSON_AddItemToArray(arr, s);
        }
    }
    if (!*group) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", "events");
        cJSON_AddStringToObject(e, "singularName", "event");
        cJSON_AddBoolToObject(e, "namespaced", 1);
        cJSON_AddStringToObject(e, "kind", "Event");
        const char *ev[] = {"get", "list", "watch"};
        cJSON_AddItemToObject(e, "verbs", srv_str_array(ev, 3));
        const char *sn = "ev";
        cJSON_AddItemToObject(e, "shortNames", srv_str_array(&sn, 1));
        cJSON_AddItemToArray(arr, e);
    }
    sim_kinds_add_resources(arr, group, version); /* what the sim's cluster has besides */
    return l;
}

static cJSON *gv_entry(const char *v)
{
    cJSON *e = cJSON_CreateObject();
    char gv[64];
    snprintf(gv, sizeof gv, "velero.io/%s", v);
    cJSON_AddStringToObject(e, "groupVersion", gv);
    cJSON_AddStringToObject(e, "version", v);
    return e;
}

cJSON *srv_velero_group(void)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "name", "velero.io");
    cJSON *vs = cJSON_AddArrayToObject(g, "versions");
    cJSON_AddItemToArray(vs, gv_entry("v1"));
    cJSON_AddItemToArray(vs, gv_entry("v2alpha1"));
    cJSON_AddItemToObject(g, "preferredVersion", gv_entry("v1"));
    return g;
}

/* Discovery of the groups simkinds.h names (apps, rbac.authorization.k8s.io, ...): /apis/<group>
 * and /apis/<group>/<version>. Returns 1 with *r set when url is one of them. */
int srv_discovery_other(struct MHD_Connection *c, const char *url, enum MHD_Result *r)
{
    if (strncmp(url, "/apis/", 6) || !strncmp(url, "/apis/velero.io", 15)) return 0;
    char group[128], version[32] = "";
    size_t gl = strcspn(url + 6, "/");
    if (gl == 0 || gl >= sizeof group) return 0;
    memcpy(group, url + 6, gl);
    group[gl] = '\0';
    const char *rest = url + 6 + gl;
    if (*rest == '/') rest++;
    size_t vl = strcspn(rest, "/");
    if (vl >= sizeof version || (vl && rest[vl] && rest[vl + 1])) return 0; /* deeper: a resource */
    memcpy(version, rest, vl);
    version[vl] = '\0';
    if (!*version) {
        cJSON *g = sim_kinds_group(group);
        if (!g) return 0;
        *r = srv_send_json(c, 200, g);
        return 1;
    }
    cJSON *l = srv_resource_list(group, version);
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "resources"))) {
        cJSON_Delete(l);
        return 0;
    }
    *r = srv_send_json(c, 200, l);
    return 1;
}

/* GET of a list of a resource discovery names (simkinds.h) but the sim holds no objects of:
 * /api/v1/[namespaces/NS/]PLURAL or /apis/G/V/[namespaces/NS/]PLURAL answer an empty list, as a
 * cluster with none would (a watch or a named object: not here, 404). */
int srv_empty_list(simserver *s, struct MHD_Connection *c, const char *url, enum MHD_Result *r)
{
    char gv[160], plural[96];
    const char *p;
    if (!strncmp(url, "/api/v1/", 8)) {
        snprintf(gv, sizeof gv, "v1");
        p = url + 8;
    } else if (!strncmp(url, "/apis/", 6)) {
        const char *v = strchr(url + 6, '/'), *e = v ? strchr(v + 1, '/') : NULL;
        if (!e || (size_t)(e - url - 6) >= sizeof gv) return 0;
        snprintf(gv, sizeof gv, "%.*s", (int)(e - url - 6), url + 6);
        p = e + 1;
    } else {
        return 0;
    }
    if (!strncmp(p, "namespaces/", 11)) {
        const char *e = strchr(p + 11, '/');
        if (!e) return 0;
        p = e + 1;
    }
    size_t n = strlen(p);
    if (!n || strchr(p, '/') || n >= sizeof plural) return 0;
    memcpy(plural, p, n + 1);
    const char *slash = strchr(gv, '/');
    char group[128];
    snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - gv) : 0, gv);
    const char *version = slash ? slash + 1 : gv;
    if (sim_resource_find(group, version, plural) || srv_arg_true(c, "watch")) return 0;
    size_t nk;
    const sim_kind *k = sim_kinds(&nk), *hit = NULL;
    for (size_t i = 0; i < nk && !hit; i++)
        if (!strcmp(k[i].group, group) && !strcmp(k[i].version, version) &&
            !strcmp(k[i].plural, plural))
            hit = &k[i];
    if (!hit) return 0;
    cJSON *j = cJSON_CreateObject();
    char *kind = xasprintf("%sList", hit->kind);
    cJSON_AddStringToObject(j, "kind", kind);
    free(kind);
    cJSON_AddStringToObject(j, "apiVersion", gv);
    char rv[32];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)simstore_rv(s->o.store));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "metadata"), "resourceVersion", rv);
    cJSON_AddArrayToObject(j, "items");
    *r = srv_send_json(c, 200, j);
    return 1;
}
