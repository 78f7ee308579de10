/* pod.c: decodes core/v1 Pods of the Velero namespace into kc_pod (readiness, restarts and their
 * reason, image version) and tells the Velero server and node-agent pods apart by their labels
 * (velero install: deploy=velero / component=velero; Helm: name=velero,
 * app.kubernetes.io/name=velero; node-agents: name=node-agent, role=node-agent). */
#include "kubeclient/pod.h"

#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static const cJSON *pod_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *pod_str(const cJSON *o, const char *key)
{
    const cJSON *v = pod_get(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static const cJSON *pod_array(const cJSON *a)
{
    return cJSON_IsArray(a) ? a : NULL;
}

static double pod_time(const cJSON *o, const char *key)
{
    double t;
    const char *s = pod_str(o, key);
    return s && kc_parse_time(s, &t) == 0 ? t : 0;
}

const char *kc_pod_label(const kc_pod *p, const char *key)
{
    for (size_t i = 0; p && i < p->nlabels; i++)
        if (!strcmp(p->label_keys[i], key)) return p->label_values[i];
    return NULL;
}

static int pod_label_is(const kc_pod *p, const char *key, const char *value)
{
    const char *v = kc_pod_label(p, key);
    return v && !strcmp(v, value);
}

static kc_pod_role pod_role(const kc_pod *p)
{
    if (pod_label_is(p, "name", "node-agent") || pod_label_is(p, "role", "node-agent"))
        return KC_POD_NODE_AGENT;
    /* data-mover and pod-volume hosting pods carry velero.io/data-upload=... and the like */
    static const char *const movers[] = {"velero.io/data-upload", "velero.io/data-download",
                                         "velero.io/pod-volume-backup",
                                         "velero.io/pod-volume-restore"};
    for (size_t i = 0; i < sizeof movers / sizeof movers[0]; i++)
        if (kc_pod_label(p, movers[i])) return KC_POD_OTHER;
    if (pod_label_is(p, "deploy", "velero") || pod_label_is(p, "name", "velero") ||
        pod_label_is(p, "app.kubernetes.io/name", "velero"))
        return KC_POD_SERVER;
    return KC_POD_OTHER;
}

/* "velero/velero:v1.18.1" -> "v1.18.1"; a digest-only or untagged image has none. */
static char *pod_version(const char *image)
{
    if (!image) return NULL;
    const char *at = strchr(image, '@');
    size_t len = at ? (size_t)(at - image) : strlen(image);
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (image[i] == '/') slash = image + i;
    const char *from = slash ? slash + 1 : image;
    const char *colon = memchr(from, ':', len - (size_t)(from - image));
    if (!colon || colon + 1 >= image + len) return NULL;
    return xstrndup(colon + 1, (size_t)(image + len - colon - 1));
}

/* The value of --concurrent-backups in a container's command and args, 0 when absent (pflag
 * takes "--flag=N" and "--flag N"; the last one given wins). */
static int pod_concurrent_backups(const cJSON *ctr)
{
    static const char flag[] = "--concurrent-backups";
    int v = 0;
    const char *lists[] = {"command", "args"};
    for (int l = 0; l < 2; l++) {
        const cJSON *a = pod_array(pod_get(ctr, lists[l])), *e;
        const char *prev = NULL;
        cJSON_ArrayForEach(e, a)
        {
            const char *s = cJSON_IsString(e) ? e->valuestring : NULL;
            const char *val = NULL;
            if (s && !strncmp(s, flag, sizeof flag - 1) && s[sizeof flag - 1] == '=')
                val = s + sizeof flag;
            else if (s && prev && !strcmp(prev, flag))
                val = s;
            prev = s;
            if (!val) continue;
            char *end;
            long n = strtol(val, &end, 10);
            if (end != val && !*end && n > 0 && n < 1000000) v = (int)n;
        }
    }
    return v;
}

kc_pod *kc_pod_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    kc_pod *p = xcalloc(1, sizeof *p);
    const cJSON *md = pod_get(obj, "metadata"), *spec = pod_get(obj, "spec"),
                *st = pod_get(obj, "status");
    p->name = xstrdup(pod_str(md, "name"));
    p->ns = xstrdup(pod_str(md, "namespace"));
    p->created = pod_time(md, "creationTimestamp");
    p->deleted = pod_time(md, "deletionTimestamp");
    const cJSON *labels = pod_get(md, "labels");
    int nl = cJSON_IsObject(labels) ? cJSON_GetArraySize(labels) : 0;
    if (nl > 0) {
        p->label_keys = xcalloc((size_t)nl, sizeof(char *));
        p->label_values = xcalloc((size_t)nl, sizeof(char *));
        const cJSON *l;
        cJSON_ArrayForEach(l, labels)
        {
            if (!cJSON_IsString(l) || !l->string) continue;
            p->label_keys[p->nlabels] = xstrdup(l->string);
            p->label_values[p->nlabels++] = xstrdup(l->valuestring);
        }
    }
    p->node = xstrdup(pod_str(spec, "nodeName"));
    const cJSON *ctrs = pod_get(spec, "containers"), *c;
    const char *image = NULL;
    const cJSON *main_ctr = NULL;
    cJSON_ArrayForEach(c, pod_array(ctrs))
    {
        const char *img = pod_str(c, "image"), *name = pod_str(c, "name");
        if (!image || (name && !strcmp(name, "velero") && img)) image = img;
        if (!main_ctr || (name && !strcmp(name, "velero"))) main_ctr = c;
    }
    p->concurrent_backups = main_ctr ? pod_concurrent_backups(main_ctr) : 0;
    p->image = xstrdup(image);
    p->version = pod_version(image);
    p->phase = xstrdup(pod_str(st, "phase"));
    p->started = pod_time(st, "startTime");
    const cJSON *conds = pod_get(st, "conditions");
    cJSON_ArrayForEach(c, pod_array(conds))
    {
        const char *type = pod_str(c, "type"), *status = pod_str(c, "status");
        if (type && status && !strcmp(type, "Ready")) p->ready = !strcmp(status, "True");
    }
    const cJSON *css = pod_get(st, "containerStatuses");
    cJSON_ArrayForEach(c, pod_array(css))
    {
        const cJSON *rc = pod_get(c, "restartCount");
        if (cJSON_IsNumber(rc) && rc->valuedouble > 0 && rc->valuedouble < 1e9)
            p->restarts += (int)rc->valuedouble;
        const cJSON *term = pod_get(pod_get(c, "lastState"), "terminated");
        double fin = pod_time(term, "finishedAt");
        if (term && fin >= p->last_restart) {
            p->last_restart = fin;
            free(p->last_reason);
            p->last_reason = xstrdup(pod_str(term, "reason"));
            const cJSON *ec = pod_get(term, "exitCode");
            p->last_exit_code = cJSON_IsNumber(ec) ? (int)ec->valuedouble : 0;
        }
        const char *wr = pod_str(pod_get(pod_get(c, "state"), "waiting"), "reason");
        if (wr && !p->waiting_reason) p->waiting_reason = xstrdup(wr);
    }
    p->role = pod_role(p);
    return p;
}

void kc_pod_free(kc_pod *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nlabels; i++) {
        free(p->label_keys[i]);
        free(p->label_values[i]);
    }
    free(p->label_keys);
    free(p->label_values);
    free(p->name);
    free(p->ns);
    free(p->node);
    free(p->phase);
    free(p->image);
    free(p->version);
    free(p->last_reason);
    free(p->waiting_reason);
    free(p);
}

void *kc_pod_decode_any(const cJSON *obj)
{
    return kc_pod_decode(obj);
}

void kc_pod_release(void *p)
{
    kc_pod_free(p);
}

/* Which of the labels that find the server a pod carries, best first (podlog.c asks the API
 * server in the same order): `velero install`'s deploy=velero 3, the Helm chart's name=velero 2,
 * app.kubernetes.io/name=velero 1. A pod of the first kind present wins over the others. */
static int pod_server_tier(const kc_pod *p)
{
    if (pod_label_is(p, "deploy", "velero")) return 3;
    if (pod_label_is(p, "name", "velero")) return 2;
    if (pod_label_is(p, "app.kubernetes.io/name", "velero")) return 1;
    return 0;
}

/* 2: Running and Ready (condition Ready True, not being deleted), 1: Running, 0: otherwise. */
static int pod_rank(const kc_pod *p)
{
    if (!p->phase || strcmp(p->phase, "Running")) return 0;
    return p->ready && !p->deleted ? 2 : 1;
}

const kc_pod *kc_pod_pick_server(const kc_pod *const *pods, size_t n)
{
    const kc_pod *best = NULL;
    int best_tier = 0, best_rank = -1;
    for (size_t i = 0; i < n; i++) {
        const kc_pod *p = pods[i];
        if (!p || !p->name || p->role != KC_POD_SERVER) continue;
        int tier = pod_server_tier(p), rank = pod_rank(p);
        if (!best || tier > best_tier || (tier == best_tier && rank > best_rank) ||
            (tier == best_tier && rank == best_rank && p->created > best->created)) {
            best = p;
            best_tier = tier;
            best_rank = rank;
        }
    }
    return best;
}

int kc_pod_pick_server_json(const cJSON *items)
{
    int n = cJSON_IsArray(items) ? cJSON_GetArraySize(items) : 0;
    if (n <= 0) return -1;
    kc_pod **v = xcalloc((size_t)n, sizeof *v);
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, items) v[k++] = kc_pod_decode(it);
    const kc_pod *best = kc_pod_pick_server((const kc_pod *const *)v, (size_t)n);
    int at = -1;
    for (int i = 0; i < n; i++) {
        if (v[i] == best) at = i;
        kc_pod_free(v[i]);
    }
    free(v);
    return at;
}
