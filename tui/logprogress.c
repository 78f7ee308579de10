/* logprogress.c: per-resource progress derived from Velero's log lines and resource lists. */
#include "logprogress.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"

typedef struct lprog_ent {
    char *bare;      /* "deployments" */
    char *qualified; /* "deployments.apps", NULL until known */
    char *guess;     /* display name from the table of well-known groups while unqualified */
    int64_t total, processed;
} lprog_ent;

struct lprog {
    int is_restore;
    char *run_ref;
    lprog_ent *ents;
    size_t n, cap;
    vl_res_progress *view;
    size_t view_cap;
    unsigned long lines;
    lp_line scratch;
};

lprog *lprog_new(int is_restore, const char *run_ref)
{
    lprog *p = xcalloc(1, sizeof *p);
    p->is_restore = is_restore;
    p->run_ref = xstrdup(run_ref ? run_ref : "");
    return p;
}

void lprog_reset(lprog *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->ents[i].bare);
        free(p->ents[i].qualified);
        free(p->ents[i].guess);
    }
    p->n = 0;
    p->lines = 0;
}

void lprog_free(lprog *p)
{
    if (!p) return;
    lprog_reset(p);
    free(p->ents);
    free(p->view);
    free(p->run_ref);
    lp_line_free(&p->scratch);
    free(p);
}

static char *lprog_bare_of(const char *q)
{
    const char *dot = strchr(q, '.');
    return dot ? xstrndup(q, (size_t)(dot - q)) : xstrdup(q);
}

static lprog_ent *lprog_add(lprog *p, const char *bare, const char *qualified)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->ents = xrealloc(p->ents, p->cap * sizeof *p->ents);
    }
    lprog_ent *e = &p->ents[p->n++];
    e->bare = xstrdup(bare);
    e->qualified = xstrdup(qualified);
    e->guess = NULL;
    e->total = e->processed = 0;
    return e;
}

/* The entry for a group-qualified resource: exact match, else an unqualified entry with the same
 * bare name (which it then qualifies), else a new one. */
static lprog_ent *lprog_qualified(lprog *p, const char *q)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->ents[i].qualified && !strcmp(p->ents[i].qualified, q)) return &p->ents[i];
    char *bare = lprog_bare_of(q);
    lprog_ent *e = NULL;
    for (size_t i = 0; i < p->n && !e; i++)
        if (!p->ents[i].qualified && !strcmp(p->ents[i].bare, bare)) e = &p->ents[i];
    if (e)
        e->qualified = xstrdup(q);
    else
        e = lprog_add(p, bare, q);
    free(bare);
    return e;
}

/* The entry for a bare resource name: any entry with that bare name, else a new one. */
static lprog_ent *lprog_bare(lprog *p, const char *bare)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->ents[i].bare, bare)) return &p->ents[i];
    return lprog_add(p, bare, NULL);
}

/* Parses the leading integer of "Retrieved 12 items" after prefix; -1 if it does not match. */
static int64_t lprog_count_after(const char *msg, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(msg, prefix, n)) return -1;
    const char *s = msg + n;
    if (!isdigit((unsigned char)*s)) return -1;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (strncmp(end, " item", 5)) return -1;
    return v;
}

int lprog_feed(lprog *p, const lp_line *l)
{
    const char *ref = lp_get(l, p->is_restore ? "restore" : "backup");
    if (!ref || strcmp(ref, p->run_ref)) return 0;
    p->lines++;
    const char *msg = l->msg, *res = lp_get(l, "resource");
    if (!res || !*res) return 0;
    if (p->is_restore) {
        if (lprog_count_after(msg, "Restored ") < 0) return 0;
        lprog_qualified(p, res)->processed++;
        return 1;
    }
    if (!strcmp(msg, "Processing item")) {
        lprog_qualified(p, res)->processed++;
        return 1;
    }
    int64_t n = lprog_count_after(msg, "Retrieved ");
    if (n < 0) return 0;
    const char *group = lp_get(l, "group");
    lprog_ent *e;
    if (group && *group && !strchr(res, '.')) {
        /* group=apps/v1 or group=v1: the API group is what precedes the version */
        const char *slash = strchr(group, '/');
        char *q = slash ? xasprintf("%s.%.*s", res, (int)(slash - group), group) : xstrdup(res);
        e = lprog_qualified(p, q);
        free(q);
    } else {
        e = strchr(res, '.') ? lprog_qualified(p, res) : lprog_bare(p, res);
    }
    e->total = kc_sat_add(e->total, n);
    return 1;
}

int lprog_feed_raw(lprog *p, const char *line, size_t len)
{
    if (lp_parse(&p->scratch, line, len)) return 0;
    return lprog_feed(p, &p->scratch);
}

void lprog_set_totals(lprog *p, const vl_res_progress *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lprog_ent *e = strchr(r[i].resource, '.') ? lprog_qualified(p, r[i].resource)
                                                  : lprog_bare(p, r[i].resource);
        if (!e->qualified) e->qualified = xstrdup(r[i].resource);
        e->total = r[i].total;
    }
}

/* The API group of well-known resources, for showing a bare collector name ("deployments") by its
 * group-qualified name before its first "Processing item" line names it. Core resources map to
 * "" (no suffix). Unknown names stay bare. */
static const char *const lprog_groups[][2] = {
    {"pods", ""},
    {"services", ""},
    {"configmaps", ""},
    {"secrets", ""},
    {"persistentvolumeclaims", ""},
    {"persistentvolumes", ""},
    {"namespaces", ""},
    {"serviceaccounts", ""},
    {"endpoints", ""},
    {"events", ""},
    {"limitranges", ""},
    {"resourcequotas", ""},
    {"replicationcontrollers", ""},
    {"podtemplates", ""},
    {"nodes", ""},
    {"deployments", "apps"},
    {"replicasets", "apps"},
    {"statefulsets", "apps"},
    {"daemonsets", "apps"},
    {"controllerrevisions", "apps"},
    {"jobs", "batch"},
    {"cronjobs", "batch"},
    {"ingresses", "networking.k8s.io"},
    {"networkpolicies", "networking.k8s.io"},
    {"ingressclasses", "networking.k8s.io"},
    {"storageclasses", "storage.k8s.io"},
    {"csidrivers", "storage.k8s.io"},
    {"volumeattachments", "storage.k8s.io"},
    {"roles", "rbac.authorization.k8s.io"},
    {"rolebindings", "rbac.authorization.k8s.io"},
    {"clusterroles", "rbac.authorization.k8s.io"},
    {"clusterrolebindings", "rbac.authorization.k8s.io"},
    {"horizontalpodautoscalers", "autoscaling"},
    {"poddisruptionbudgets", "policy"},
    {"leases", "coordination.k8s.io"},
    {"endpointslices", "discovery.k8s.io"},
    {"customresourcedefinitions", "apiextensions.k8s.io"},
    {"priorityclasses", "scheduling.k8s.io"},
    {"volumesnapshots", "snapshot.storage.k8s.io"},
    {"volumesnapshotcontents", "snapshot.storage.k8s.io"},
    {"volumesnapshotclasses", "snapshot.storage.k8s.io"},
};

/* The display name of an entry not yet qualified by a log line (malloc'd into the entry). */
static const char *lprog_display(lprog_ent *e)
{
    if (e->qualified) return e->qualified;
    if (!e->guess) {
        const char *g = NULL;
        for (size_t i = 0; i < sizeof lprog_groups / sizeof lprog_groups[0] && !g; i++)
            if (!strcmp(lprog_groups[i][0], e->bare)) g = lprog_groups[i][1];
        e->guess = g && *g ? xasprintf("%s.%s", e->bare, g) : xstrdup(e->bare);
    }
    return e->guess;
}

size_t lprog_resources(lprog *p, const vl_res_progress **out)
{
    if (p->view_cap < p->n) {
        p->view_cap = p->n;
        p->view = xrealloc(p->view, p->view_cap * sizeof *p->view);
    }
    for (size_t i = 0; i < p->n; i++) {
        lprog_ent *e = &p->ents[i];
        p->view[i].resource = (char *)lprog_display(e);
        p->view[i].processed = e->processed;
        p->view[i].total = e->total > e->processed ? e->total : e->processed;
    }
    *out = p->view;
    return p->n;
}

unsigned long lprog_lines(const lprog *p)
{
    return p->lines;
}

char *lprog_key_to_resource(const char *key)
{
    const char *kind = strrchr(key, '/');
    kind = kind ? kind + 1 : key;
    /* the group is everything before "/<version>/<Kind>"; core keys are "v1/Kind" */
    size_t glen = 0;
    const char *first = strchr(key, '/');
    if (first && first != kind - 1) glen = (size_t)(first - key);
    size_t kl = strlen(kind);
    char *lower = xmalloc(kl + 4);
    for (size_t i = 0; i < kl; i++) lower[i] = (char)tolower((unsigned char)kind[i]);
    lower[kl] = '\0';
    if (!strcmp(lower, "endpoints")) {
        /* irregular: already plural */
    } else if (kl && lower[kl - 1] == 's') {
        strcpy(lower + kl, "es");
    } else if (kl && lower[kl - 1] == 'y') {
        strcpy(lower + kl - 1, "ies");
    } else {
        strcpy(lower + kl, "s");
    }
    char *r = glen ? xasprintf("%s.%.*s", lower, (int)glen, key) : xstrdup(lower);
    free(lower);
    return r;
}

static int lprog_res_cmp(const void *a, const void *b)
{
    return strcmp(((const vl_res_progress *)a)->resource, ((const vl_res_progress *)b)->resource);
}

int lprog_from_resource_list(const char *json, size_t len, vl_res_progress **out, size_t *n,
                             kc_err *err)
{
    *out = NULL;
    *n = 0;
    cJSON *o = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        kc_err_set(err, "resource list is not a JSON object");
        return -1;
    }
    size_t cap = (size_t)cJSON_GetArraySize(o), cnt = 0;
    vl_res_progress *r = xcalloc(cap ? cap : 1, sizeof *r);
    for (cJSON *c = o->child; c; c = c->next) {
        if (!c->string) continue;
        int64_t items = cJSON_IsArray(c) ? cJSON_GetArraySize(c) : 0;
        char *res = lprog_key_to_resource(c->string);
        size_t i;
        for (i = 0; i < cnt && strcmp(r[i].resource, res); i++) {
        }
        if (i < cnt) {
            free(res);
        } else {
            r[cnt].resource = res;
            cnt++;
        }
        r[i].total += items;
        r[i].processed += items;
    }
    cJSON_Delete(o);
    qsort(r, cnt, sizeof *r, lprog_res_cmp);
    *out = r;
    *n = cnt;
    return 0;
}

void lprog_res_free(vl_res_progress *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) free(r[i].resource);
    free(r);
}
