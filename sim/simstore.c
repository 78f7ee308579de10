/* simstore.c: the sim's object storage: sorted objects per resource, resourceVersions, a bounded
 * event history for watches, selectors, and the Velero server pod's log. One lock for all. */
#include "simstore.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubeclient/util.h"

static const sim_resource resources[] = {
    {"velero.io", "v1", "backups", "backup", "Backup", 1},
    {"velero.io", "v1", "restores", "restore", "Restore", 1},
    {"velero.io", "v1", "podvolumebackups", "podvolumebackup", "PodVolumeBackup", 1},
    {"velero.io", "v1", "podvolumerestores", "podvolumerestore", "PodVolumeRestore", 1},
    {"velero.io", "v1", "downloadrequests", "downloadrequest", "DownloadRequest", 1},
    {"velero.io", "v1", "schedules", "schedule", "Schedule", 1},
    {"velero.io", "v1", "backupstoragelocations", "backupstoragelocation", "BackupStorageLocation",
     1},
    {"velero.io", "v1", "volumesnapshotlocations", "volumesnapshotlocation",
     "VolumeSnapshotLocation", 1},
    {"velero.io", "v1", "deletebackuprequests", "deletebackuprequest", "DeleteBackupRequest", 1},
    {"velero.io", "v1", "backuprepositories", "backuprepository", "BackupRepository", 1},
    {"velero.io", "v1", "serverstatusrequests", "serverstatusrequest", "ServerStatusRequest", 1},
    {"velero.io", "v2alpha1", "datauploads", "dataupload", "DataUpload", 1},
    {"velero.io", "v2alpha1", "datadownloads", "datadownload", "DataDownload", 1},
    {"", "v1", "pods", "pod", "Pod", 1},
    {"apps", "v1", "daemonsets", "daemonset", "DaemonSet", 1},
    {"batch", "v1", "jobs", "job", "Job", 1},
    {"", "v1", "namespaces", "namespace", "Namespace", 0},
};
#define NRES (sizeof resources / sizeof resources[0])

const sim_resource *sim_resources(size_t *n)
{
    *n = NRES;
    return resources;
}

const sim_resource *sim_resource_find(const char *group, const char *version, const char *plural)
{
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(resources[i].group, group ? group : "") &&
            !strcmp(resources[i].version, version) && !strcmp(resources[i].plural, plural))
            return &resources[i];
    return NULL;
}

const sim_resource *sim_resource_by_plural(const char *plural)
{
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(resources[i].plural, plural)) return &resources[i];
    return NULL;
}

const char *sim_velero_pod_name(void)
{
    return "velero-7d8f9c6b54-x2k8p";
}

/* ---- selectors ---- */

enum sel_op { SEL_EQ, SEL_NE, SEL_IN, SEL_NOTIN, SEL_EXISTS, SEL_NOTEXISTS };

typedef struct sel_req {
    char *key;
    enum sel_op op;
    char **vals;
    size_t nvals;
} sel_req;

typedef struct sim_selector {
    sel_req *reqs;
    size_t n;
} sim_selector;

static void sel_free(sim_selector *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->reqs[i].key);
        for (size_t j = 0; j < s->reqs[i].nvals; j++) free(s->reqs[i].vals[j]);
        free(s->reqs[i].vals);
    }
    free(s->reqs);
    free(s);
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '/';
}

static char *take_word(const char **pp)
{
    const char *p = skip_ws(*pp), *st = p;
    while (is_name_char(*p)) p++;
    *pp = p;
    return xstrndup(st, (size_t)(p - st));
}

/* Parses a label selector (the syntax of apimachinery labels.Parse). NULL with *err on errors. */
static sim_selector *sel_parse(const char *text, char **err)
{
    sim_selector *s = xcalloc(1, sizeof *s);
    const char *p = text ? text : "";
    p = skip_ws(p);
    if (!*p) return s;
    for (;;) {
        sel_req r = {0};
        p = skip_ws(p);
        if (*p == '!') {
            p++;
            r.op = SEL_NOTEXISTS;
        } else {
            r.op = SEL_EXISTS;
        }
        r.key = take_word(&p);
        if (!r.key[0]) {
            free(r.key);
            *err = xasprintf("unable to parse requirement: found '%c', expected: identifier",
                             *p ? *p : ' ');
            goto fail;
        }
        p = skip_ws(p);
        if (r.op == SEL_EXISTS) {
            if (p[0] == '=' && p[1] == '=') {
                r.op = SEL_EQ;
                p += 2;
            } else if (p[0] == '=') {
                r.op = SEL_EQ;
                p += 1;
            } else if (p[0] == '!' && p[1] == '=') {
                r.op = SEL_NE;
                p += 2;
            } else if (!strncmp(p, "in", 2) && (p[2] == ' ' || p[2] == '(')) {
                r.op = SEL_IN;
                p += 2;
            } else if (!strncmp(p, "notin", 5) && (p[5] == ' ' || p[5] == '(')) {
                r.op = SEL_NOTIN;
                p += 5;
            }
            if (r.op == SEL_EQ || r.op == SEL_NE) {
                r.vals = xmalloc(sizeof *r.vals);
                r.vals[0] = take_word(&p);
                r.nvals = 1;
            } else if (r.op == SEL_IN || r.op == SEL_NOTIN) {
                p = skip_ws(p);
                if (*p != '(') {
                    *err = xasprintf("unable to parse requirement: found '%c', expected: '('",
                                     *p ? *p : ' ');
                    goto fail_req;
                }
                p++;
                for (;;) {
                    r.vals = xrealloc(r.vals, (r.nvals + 1) * sizeof *r.vals);
                    r.vals[r.nvals++] = take_word(&p);
                    p = skip_ws(p);
                    if (*p == ',') {
                        p++;
                        continue;
                    }
                    if (*p == ')') {
                        p++;
                        break;
                    }
                    *err = xasprintf("unable to parse requirement: found '%c', expected: ',', ')'",
                                     *p ? *p : ' ');
                    goto fail_req;
                }
            }
        }
        s->reqs = xrealloc(s->reqs, (s->n + 1) * sizeof *s->reqs);
        s->reqs[s->n++] = r;
        p = skip_ws(p);
        if (!*p) break;
        if (*p != ',') {
            *err = xasprintf("unable to parse requirement: found '%c', expected: ',' or end", *p);
            goto fail;
        }
        p++;
        continue;
    fail_req:
        free(r.key);
        for (size_t j = 0; j < r.nvals; j++) free(r.vals[j]);
        free(r.vals);
        goto fail;
    }
    return s;
fail:
    sel_free(s);
    return NULL;
}

static const char *label_value(const cJSON *labels, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int sel_matches_labels(const sim_selector *s, const cJSON *labels)
{
    for (size_t i = 0; s && i < s->n; i++) {
        const sel_req *r = &s->reqs[i];
        const char *v = label_value(labels, r->key);
        int in = 0;
        for (size_t j = 0; v && j < r->nvals; j++)
            if (!strcmp(v, r->vals[j])) in = 1;
        switch (r->op) {
        case SEL_EXISTS:
            if (!v) return 0;
            break;
        case SEL_NOTEXISTS:
            if (v) return 0;
            break;
        case SEL_EQ:
        case SEL_IN:
            if (!in) return 0;
            break;
        case SEL_NE:
        case SEL_NOTIN:
            if (in) return 0;
            break;
        }
    }
    return 1;
}

int sim_label_selector_match(const char *selector, const cJSON *labels, char **err)
{
    sim_selector *s = sel_parse(selector, err);
    if (!s) return -1;
    int m = sel_matches_labels(s, labels);
    sel_free(s);
    return m;
}

/* Field selectors: only metadata.name and metadata.namespace, as for custom resources. */
static sim_selector *field_parse(const char *text, char **err)
{
    sim_selector *s = xcalloc(1, sizeof *s);
    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *term = xstrndup(p, len);
        p += len + (end ? 1 : 0);
        if (!term[0]) {
            free(term);
            continue;
        }
        sel_req r = {0};
        char *op = strstr(term, "!=");
        size_t oplen = 2;
        r.op = SEL_NE;
        if (!op) {
            r.op = SEL_EQ;
            op = strstr(term, "==");
            if (!op) {
                op = strchr(term, '=');
                oplen = 1;
            }
        }
        if (!op) {
            *err = xasprintf("invalid selector: '%s'; can't understand '%s'", text, term);
            free(term);
            sel_free(s);
            return NULL;
        }
        r.key = xstrndup(term, (size_t)(op - term));
        if (strcmp(r.key, "metadata.name") && strcmp(r.key, "metadata.namespace")) {
            *err = xasprintf("field label not supported: %s", r.key);
            free(r.key);
            free(term);
            sel_free(s);
            return NULL;
        }
        r.vals = xmalloc(sizeof *r.vals);
        r.vals[0] = xstrdup(op + oplen);
        r.nvals = 1;
        free(term);
        s->reqs = xrealloc(s->reqs, (s->n + 1) * sizeof *s->reqs);
        s->reqs[s->n++] = r;
    }
    return s;
}

static int field_matches(const sim_selector *s, const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    for (size_t i = 0; s && i < s->n; i++) {
        const sel_req *r = &s->reqs[i];
        const char *f = r->key + strlen("metadata.");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, f);
        const char *val = cJSON_IsString(v) ? v->valuestring : "";
        int eq = !strcmp(val, r->vals[0]);
        if ((r->op == SEL_EQ) != eq) return 0;
    }
    return 1;
}

int sim_field_selector_match(const char *selector, const cJSON *obj, char **err)
{
    sim_selector *s = field_parse(selector, err);
    if (!s) return -1;
    int m = field_matches(s, obj);
    sel_free(s);
    return m;
}

/* ---- objects and history ---- */

/* An object's serialization, shared by the entry and the list answers still sending it: a
 * list takes references under the lock and streams the texts after it is released. */
typedef struct sim_text {
    atomic_int refs;
    size_t len;
    char s[];
} sim_text;

static sim_text *text_ref(sim_text *t)
{
    if (t) atomic_fetch_add(&t->refs, 1);
    return t;
}

static void text_unref(sim_text *t)
{
    if (t && atomic_fetch_sub(&t->refs, 1) == 1) free(t);
}

typedef struct sim_entry {
    char *ns, *name;
    cJSON *obj;
    sim_text *json; /* obj serialized (cJSON_PrintUnformatted), NULL until needed after a change */
} sim_entry;

typedef struct sim_objs {
    sim_entry *items;
    size_t n, cap;
} sim_objs;

typedef struct sim_event {
    uint64_t rv;
    const char *type; /* static string */
    const sim_resource *res;
    char *ns;
    cJSON *obj;
} sim_event;

typedef struct sim_log {
    char *pod;
    char **lines;
    double *times;
    size_t n, cap;
} sim_log;

struct simstore {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    uint64_t rv;
    uint64_t floor; /* resume from an RV below this is gone */
    sim_objs objs[NRES];
    sim_event *hist;
    size_t hcap, hstart, hn;
    sim_log *logs;
    size_t nlogs;
    uint64_t rng;
    double clock_skew; /* simstore_set_clock_skew */
};

static uint64_t rng_next(simstore *s)
{
    /* xorshift64*: enough for names and uids, and seeded per store */
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 2685821657736338717ULL;
}

simstore *simstore_new(size_t history_events)
{
    simstore *s = xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    s->rv = 1;
    s->hcap = history_events ? history_events : 1;
    s->hist = xcalloc(s->hcap, sizeof *s->hist);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s->rng = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ (uintptr_t)s;
    if (!s->rng) s->rng = 88172645463325252ULL;
    return s;
}

static void event_clear(sim_event *e)
{
    free(e->ns);
    cJSON_Delete(e->obj);
    memset(e, 0, sizeof *e);
}

void simstore_free(simstore *s)
{
    if (!s) return;
    for (size_t r = 0; r < NRES; r++) {
        for (size_t i = 0; i < s->objs[r].n; i++) {
            free(s->objs[r].items[i].ns);
            free(s->objs[r].items[i].name);
            text_unref(s->objs[r].items[i].json);
            cJSON_Delete(s->objs[r].items[i].obj);
        }
        free(s->objs[r].items);
    }
    for (size_t i = 0; i < s->hn; i++) event_clear(&s->hist[(s->hstart + i) % s->hcap]);
    free(s->hist);
    for (size_t i = 0; i < s->nlogs; i++) {
        for (size_t j = 0; j < s->logs[i].n; j++) free(s->logs[i].lines[j]);
        free(s->logs[i].lines);
        free(s->logs[i].times);
        free(s->logs[i].pod);
    }
    free(s->logs);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

uint64_t simstore_rv(simstore *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t rv = s->rv;
    pthread_mutex_unlock(&s->mu);
    return rv;
}

static size_t res_index(const char *plural)
{
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(resources[i].plural, plural)) return i;
    return NRES;
}

static int key_cmp(const char *ns1, const char *n1, const char *ns2, const char *n2)
{
    int c = strcmp(ns1, ns2);
    return c ? c : strcmp(n1, n2);
}

/* Index of the first entry >= (ns, name); *found when equal. */
static size_t objs_find(const sim_objs *o, const char *ns, const char *name, int *found)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (key_cmp(o->items[mid].ns, o->items[mid].name, ns, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (found) *found = lo < o->n && !key_cmp(o->items[lo].ns, o->items[lo].name, ns, name);
    return lo;
}

static char *qualified(const sim_resource *r)
{
    return r->group[0] ? xasprintf("%s.%s", r->plural, r->group) : xstrdup(r->plural);
}

static void set_err(int *status, char **msg, int code, char *m)
{
    if (status) *status = code;
    if (msg)
        *msg = m;
    else
        free(m);
}

static void set_str(cJSON *o, const char *key, const char *val)
{
    cJSON *n = cJSON_CreateString(val);
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, n);
    else
        cJSON_AddItemToObject(o, key, n);
}

static void set_num(cJSON *o, const char *key, double val)
{
    cJSON *n = cJSON_CreateNumber(val);
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, n);
    else
        cJSON_AddItemToObject(o, key, n);
}

static cJSON *ensure_obj(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!cJSON_IsObject(o)) {
        if (o) cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        o = cJSON_AddObjectToObject(parent, key);
    }
    return o;
}

static const char *md_str(const cJSON *obj, const char *key)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void set_rv(cJSON *obj, uint64_t rv)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
    set_str(ensure_obj(obj, "metadata"), "resourceVersion", buf);
}

/* Serializes an entry's object once per version: lists concatenate these texts instead of
 * copying and printing every object of every page (60 000 objects of ~1 KB). */
static void entry_serialize(sim_entry *e)
{
    text_unref(e->json);
    char *js = cJSON_PrintUnformatted(e->obj);
    size_t len = strlen(js);
    e->json = xmalloc(sizeof *e->json + len + 1);
    atomic_init(&e->json->refs, 1);
    e->json->len = len;
    memcpy(e->json->s, js, len + 1);
    free(js);
}

static sim_text *entry_json(sim_entry *e)
{
    if (!e->json) entry_serialize(e);
    return e->json;
}

/* Records an event (the store keeps its own copy of obj) and wakes waiting watches. */
static void record(simstore *s, size_t ri, const char *type, const char *ns, const cJSON *obj)
{
    if (s->hn == s->hcap) {
        sim_event *old = &s->hist[s->hstart];
        s->floor = old->rv;
        event_clear(old);
        s->hstart = (s->hstart + 1) % s->hcap;
        s->hn--;
    }
    sim_event *e = &s->hist[(s->hstart + s->hn) % s->hcap];
    e->rv = s->rv;
    e->type = type;
    e->res = &resources[ri];
    e->ns = xstrdup(ns);
    e->obj = cJSON_Duplicate(obj, 1);
    s->hn++;
    pthread_cond_broadcast(&s->cond);
}

static void make_uid(simstore *s, char *buf, size_t n)
{
    uint64_t a = rng_next(s), b = rng_next(s);
    snprintf(buf, n, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)(0x8000 | (b >> 48 & 0x3fff)), (unsigned long long)(b & 0xffffffffffffULL));
}

static void now_rfc3339(const simstore *s, char *buf, size_t n)
{
    kc_format_time(kc_wall_now() + s->clock_skew, buf, n);
}

void simstore_set_clock_skew(simstore *s, double skew)
{
    s->clock_skew = skew;
}

cJSON *simstore_create(simstore *s, const char *plural, const char *ns, cJSON *obj, int *status,
                       char **msg)
{
    return simstore_create_as(s, plural, ns, obj, NULL, status, msg);
}

cJSON *simstore_create_as(simstore *s, const char *plural, const char *ns, cJSON *obj,
                          const sim_mf_writer *w, int *status, char **msg)
{
    size_t ri = res_index(plural);
    if (ri == NRES) {
        cJSON_Delete(obj);
        set_err(status, msg, 404, xstrdup("the server could not find the requested resource"));
        return NULL;
    }
    const sim_resource *r = &resources[ri];
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        set_err(status, msg, 400, xstrdup("the body of the request is not a json object"));
        return NULL;
    }
    cJSON *md = ensure_obj(obj, "metadata");
    const char *bns = md_str(obj, "namespace");
    if (!ns) ns = bns ? bns : "";
    if (r->namespaced && bns && bns[0] && strcmp(bns, ns)) {
        cJSON_Delete(obj);
        set_err(status, msg, 400,
                xstrdup("the namespace of the provided object does not match the namespace sent "
                        "on the request"));
        return NULL;
    }
    char *nsc = xstrdup(r->namespaced ? ns : "");
    if (r->namespaced)
        set_str(md, "namespace", nsc);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(md, "namespace");
    char apiv[64];
    snprintf(apiv, sizeof apiv, "%s%s%s", r->group, r->group[0] ? "/" : "", r->version);
    set_str(obj, "apiVersion", apiv);
    set_str(obj, "kind", r->kind);

    pthread_mutex_lock(&s->mu);
    sim_objs *o = &s->objs[ri];
    const char *name = md_str(obj, "name");
    char *gen = NULL;
    if (!name || !name[0]) {
        const char *prefix = md_str(obj, "generateName");
        if (!prefix || !prefix[0]) {
            pthread_mutex_unlock(&s->mu);
            free(nsc);
            cJSON_Delete(obj);
            set_err(status, msg, 422,
                    xasprintf("%s.%s \"\" is invalid: metadata.name: Required value: name or "
                              "generateName is required",
                              r->kind, r->group[0] ? r->group : "core"));
            return NULL;
        }
        static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
        size_t plen = strlen(prefix) > 58 ? 58 : strlen(prefix);
        for (int tries = 0; tries < 16; tries++) {
            free(gen);
            gen = xmalloc(plen + 6);
            memcpy(gen, prefix, plen);
            for (int i = 0; i < 5; i++) gen[plen + i] = alpha[rng_next(s) % (sizeof alpha - 1)];
            gen[plen + 5] = '\0';
            int found;
            objs_find(o, nsc, gen, &found);
            if (!found) break;
        }
        set_str(md, "name", gen);
        name = md_str(obj, "name");
    }
    int found;
    size_t at = objs_find(o, nsc, name, &found);
    if (found) {
        char *q = qualified(r);
        set_err(status, msg, 409, xasprintf("%s \"%s\" already exists", q, name));
        free(q);
        pthread_mutex_unlock(&s->mu);
        free(nsc);
        free(gen);
        cJSON_Delete(obj);
        return NULL;
    }
    s->rv++;
    set_rv(obj, s->rv);
    char uid[48];
    make_uid(s, uid, sizeof uid);
    set_str(md, "uid", uid);
    if (!md_str(obj, "creationTimestamp")) {
        char ts[40];
        now_rfc3339(s, ts, sizeof ts);
        set_str(md, "creationTimestamp", ts);
    }
    set_num(md, "generation", 1);
    if (w) sim_mf_stamp(obj, NULL, w);
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->items = xrealloc(o->items, o->cap * sizeof *o->items);
    }
    memmove(&o->items[at + 1], &o->items[at], (o->n - at) * sizeof *o->items);
    o->items[at].ns = nsc;
    o->items[at].name = xstrdup(name);
    o->items[at].obj = obj;
    o->items[at].json = NULL;
    entry_serialize(&o->items[at]);
    o->n++;
    record(s, ri, "ADDED", nsc, obj);
    cJSON *copy = cJSON_Duplicate(obj, 1);
    pthread_mutex_unlock(&s->mu);
    free(gen);
    if (status) *status = 201;
    return copy;
}

cJSON *simstore_get(simstore *s, const char *plural, const char *ns, const char *name)
{
    size_t ri = res_index(plural);
    if (ri == NRES || !name) return NULL;
    pthread_mutex_lock(&s->mu);
    int found;
    size_t at = objs_find(&s->objs[ri], ns ? ns : "", name, &found);
    cJSON *copy = found ? cJSON_Duplicate(s->objs[ri].items[at].obj, 1) : NULL;
    pthread_mutex_unlock(&s->mu);
    return copy;
}

/* Looks an object up under the lock; fills a NotFound error when absent. */
static sim_entry *lookup(simstore *s, size_t ri, const char *ns, const char *name, int *status,
                         char **msg)
{
    int found = 0;
    size_t at = 0;
    if (ri < NRES && name) at = objs_find(&s->objs[ri], ns ? ns : "", name, &found);
    if (!found) {
        if (ri == NRES) {
            set_err(status, msg, 404, xstrdup("the server could not find the requested resource"));
        } else {
            char *q = qualified(&resources[ri]);
            set_err(status, msg, 404, xasprintf("%s \"%s\" not found", q, name ? name : ""));
            free(q);
        }
        return NULL;
    }
    return &s->objs[ri].items[at];
}

static void conflict(const sim_resource *r, const char *name, int *status, char **msg)
{
    char *q = qualified(r);
    set_err(status, msg, 409,
            xasprintf("Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                      "please apply your changes to the latest version and try again",
                      q, name));
    free(q);
}

/* Whether two objects are equal in every top-level field but metadata. */
static int same_but_metadata(const cJSON *a, const cJSON *b)
{
    int na = 0, nb = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, b) nb += strcmp(x->string, "metadata") != 0;
    cJSON_ArrayForEach(x, a)
    {
        if (!strcmp(x->string, "metadata")) continue;
        na++;
        if (!cJSON_Compare(x, cJSON_GetObjectItemCaseSensitive(b, x->string), 1)) return 0;
    }
    return na == nb;
}

/* Replaces e->obj by next (taken), keeping identity fields; status_only keeps all but .status.
 * Bumps generation on spec changes; records MODIFIED. Returns a copy. */
static cJSON *commit_change(simstore *s, size_t ri, sim_entry *e, cJSON *next, int status_only,
                            const sim_mf_writer *w)
{
    cJSON *cur = e->obj;
    if (status_only) {
        cJSON *st = cJSON_DetachItemFromObjectCaseSensitive(next, "status");
        cJSON_Delete(next);
        next = cJSON_Duplicate(cur, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(next, "status");
        if (st) cJSON_AddItemToObject(next, "status", st);
    }
    cJSON *md = ensure_obj(next, "metadata");
    const char *keep[] = {"name", "namespace", "uid", "creationTimestamp"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const char *v = md_str(cur, keep[i]);
        if (v) set_str(md, keep[i], v);
    }
    const sim_resource *r = &resources[ri];
    char apiv[64];
    snprintf(apiv, sizeof apiv, "%s%s%s", r->group, r->group[0] ? "/" : "", r->version);
    set_str(next, "apiVersion", apiv);
    set_str(next, "kind", r->kind);
    const cJSON *cg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cur, "metadata"), "generation");
    double gen = cJSON_IsNumber(cg) ? cg->valuedouble : 1;
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(cur, "spec");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(next, "spec");
    int same_spec = (!cs && !ns) || (cs && ns && cJSON_Compare(cs, ns, 1));
    if (r->group[0] && same_spec) {
        /* a custom resource without a status subresource (all of Velero's): any change but to
         * metadata bumps generation (apiextensions-apiserver customResourceStrategy) */
        same_spec = same_but_metadata(cur, next);
    }
    set_num(md, "generation", same_spec ? gen : gen + 1);
    /* the live object's field ownership, updated for this write (a request's own managedFields
     * are not honoured: doc/managedfields.md) */
    if (w) {
        sim_mf_stamp(next, cur, w);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
        const cJSON *cmf = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cur, "metadata"), "managedFields");
        if (cmf) cJSON_AddItemToObject(md, "managedFields", cJSON_Duplicate(cmf, 1));
    }
    /* an unchanged object is not a new version (as the apiserver's no-op update) */
    set_str(md, "resourceVersion", md_str(cur, "resourceVersion"));
    if (cJSON_Compare(cur, next, 1)) {
        cJSON_Delete(next);
        return cJSON_Duplicate(cur, 1);
    }
    s->rv++;
    set_rv(next, s->rv);
    cJSON_Delete(cur);
    e->obj = next;
    entry_serialize(e);
    record(s, ri, "MODIFIED", e->ns, next);
    return cJSON_Duplicate(next, 1);
}

cJSON *simstore_update_ex(simstore *s, const char *plural, const char *ns, const char *name,
                          cJSON *obj, int status_only, int *status, char **msg)
{
    return simstore_update_as(s, plural, ns, name, obj, status_only, NULL, status, msg);
}

cJSON *simstore_update_as(simstore *s, const char *plural, const char *ns, const char *name,
                          cJSON *obj, int status_only, const sim_mf_writer *w, int *status,
                          char **msg)
{
    size_t ri = res_index(plural);
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        set_err(status, msg, 400, xstrdup("the body of the request is not a json object"));
        return NULL;
    }
    const char *bname = md_str(obj, "name");
    if (bname && name && strcmp(bname, name)) {
        cJSON_Delete(obj);
        set_err(status, msg, 400,
                xstrdup("the name of the object does not match the name on the URL"));
        return NULL;
    }
    pthread_mutex_lock(&s->mu);
    sim_entry *e = lookup(s, ri, ns, name, status, msg);
    if (!e) {
        pthread_mutex_unlock(&s->mu);
        cJSON_Delete(obj);
        return NULL;
    }
    const char *want = md_str(obj, "resourceVersion");
    if (want && want[0] && strcmp(want, md_str(e->obj, "resourceVersion"))) {
        conflict(&resources[ri], name, status, msg);
        pthread_mutex_unlock(&s->mu);
        cJSON_Delete(obj);
        return NULL;
    }
    cJSON *copy = commit_change(s, ri, e, obj, status_only, w);
    pthread_mutex_unlock(&s->mu);
    if (status) *status = 200;
    return copy;
}

cJSON *simstore_update(simstore *s, const char *plural, const char *ns, const char *name,
                       cJSON *obj, int *status, char **msg)
{
    return simstore_update_ex(s, plural, ns, name, obj, 0, status, msg);
}

/* RFC 7386 JSON merge patch, by hand: cJSON's cJSON_Utils is not among the dependencies. */
static cJSON *merge_patch(cJSON *target, const cJSON *patch)
{
    if (!cJSON_IsObject(patch)) {
        cJSON_Delete(target);
        return cJSON_Duplicate(patch, 1);
    }
    if (!cJSON_IsObject(target)) {
        cJSON_Delete(target);
        target = cJSON_CreateObject();
    }
    for (const cJSON *p = patch->child; p; p = p->next) {
        if (cJSON_IsNull(p)) {
            cJSON_DeleteItemFromObjectCaseSensitive(target, p->string);
            continue;
        }
        cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(target, p->string);
        cJSON_AddItemToObject(target, p->string, merge_patch(t, p));
    }
    return target;
}

cJSON *simstore_merge_patch_ex(simstore *s, const char *plural, const char *ns, const char *name,
                               const cJSON *patch, int status_only, int *status, char **msg)
{
    return simstore_merge_patch_as(s, plural, ns, name, patch, status_only, NULL, status, msg);
}

cJSON *simstore_merge_patch_as(simstore *s, const char *plural, const char *ns, const char *name,
                               const cJSON *patch, int status_only, const sim_mf_writer *w,
                               int *status, char **msg)
{
    size_t ri = res_index(plural);
    if (!cJSON_IsObject(patch)) {
        set_err(status, msg, 400, xstrdup("the body of the request is not a json object"));
        return NULL;
    }
    pthread_mutex_lock(&s->mu);
    sim_entry *e = lookup(s, ri, ns, name, status, msg);
    if (!e) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    const cJSON *pmd = cJSON_GetObjectItemCaseSensitive(patch, "metadata");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(pmd, "resourceVersion");
    if (cJSON_IsString(want) && want->valuestring[0] &&
        strcmp(want->valuestring, md_str(e->obj, "resourceVersion"))) {
        conflict(&resources[ri], name, status, msg);
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    cJSON *next = merge_patch(cJSON_Duplicate(e->obj, 1), patch);
    cJSON *copy = commit_change(s, ri, e, next, status_only, w);
    pthread_mutex_unlock(&s->mu);
    if (status) *status = 200;
    return copy;
}

cJSON *simstore_merge_patch(simstore *s, const char *plural, const char *ns, const char *name,
                            const cJSON *patch, int *status, char **msg)
{
    return simstore_merge_patch_ex(s, plural, ns, name, patch, 0, status, msg);
}

cJSON *simstore_delete(simstore *s, const char *plural, const char *ns, const char *name,
                       int *status, char **msg)
{
    size_t ri = res_index(plural);
    pthread_mutex_lock(&s->mu);
    sim_entry *e = lookup(s, ri, ns, name, status, msg);
    if (!e) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    sim_objs *o = &s->objs[ri];
    size_t at = (size_t)(e - o->items);
    s->rv++;
    set_rv(e->obj, s->rv);
    record(s, ri, "DELETED", e->ns, e->obj);
    cJSON *obj = e->obj;
    free(e->ns);
    free(e->name);
    text_unref(e->json);
    memmove(&o->items[at], &o->items[at + 1], (o->n - at - 1) * sizeof *o->items);
    o->n--;
    pthread_mutex_unlock(&s->mu);
    if (status) *status = 200;
    return obj;
}

int simstore_mutate(simstore *s, const char *plural, const char *ns, const char *name,
                    simstore_mutate_fn fn, void *arg)
{
    return simstore_mutate_as(s, plural, ns, name, NULL, fn, arg);
}

int simstore_mutate_as(simstore *s, const char *plural, const char *ns, const char *name,
                       const sim_mf_writer *w, simstore_mutate_fn fn, void *arg)
{
    size_t ri = res_index(plural);
    pthread_mutex_lock(&s->mu);
    sim_entry *e = lookup(s, ri, ns, name, NULL, NULL);
    if (!e) {
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    cJSON *before = w ? cJSON_Duplicate(e->obj, 1) : NULL;
    int changed = fn(e->obj, arg);
    if (changed && w) sim_mf_stamp(e->obj, before, w);
    cJSON_Delete(before);
    if (changed) {
        s->rv++;
        set_rv(e->obj, s->rv);
        entry_serialize(e);
        record(s, ri, "MODIFIED", e->ns, e->obj);
    } else {
        text_unref(e->json); /* fn may have touched it all the same: serialize again when listed */
        e->json = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    return 1;
}

static int matches(const sim_selector *ls, const sim_selector *fs, const cJSON *obj)
{
    if (ls && ls->n) {
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "labels");
        if (!sel_matches_labels(ls, labels)) return 0;
    }
    return !fs || !fs->n || field_matches(fs, obj);
}

static int parse_selectors(const char *lsel, const char *fsel, sim_selector **ls, sim_selector **fs,
                           int *status, char **msg)
{
    char *err = NULL;
    *ls = sel_parse(lsel, &err);
    if (!*ls) {
        set_err(status, msg, 400, xasprintf("unable to parse labelSelector: %s", err));
        free(err);
        *fs = NULL;
        return -1;
    }
    *fs = field_parse(fsel, &err);
    if (!*fs) {
        set_err(status, msg, 400, err);
        sel_free(*ls);
        *ls = NULL;
        return -1;
    }
    return 0;
}

/* Index of the first entry past namespace ns (every entry when ns is NULL). */
static size_t objs_ns_end(const sim_objs *o, const char *ns)
{
    if (!ns) return o->n;
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(o->items[mid].ns, ns) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct simstore_texts {
    sim_text **t;
    size_t n, cap;
    size_t len;  /* of the array's text: "[" a "," b ... "]" */
    size_t i;    /* the text being read, or n: then the "]" */
    size_t off;  /* bytes of "[" or "," and of t[i] already read; after "]": done */
    int started; /* "[" read */
};

/* One page, as deep copies added to arr, as serialized objects appended to text (comma
 * separated, no brackets) or as references to those serializations in texts: whichever is not
 * NULL. Without selectors the page is a range of the
 * sorted entries and what remains after it is counted by subtraction, not by a scan. */
static int list_page(simstore *s, const char *plural, const char *ns, const char *label_selector,
                     const char *field_selector, size_t limit, const char *after_ns,
                     const char *after_name, uint64_t *rv, char **next_ns, char **next_name,
                     long *remaining, int *status, char **msg, cJSON *arr, kc_buf *text,
                     simstore_texts *texts)
{
    if (next_ns) *next_ns = NULL;
    if (next_name) *next_name = NULL;
    if (remaining) *remaining = -1;
    size_t ri = res_index(plural);
    if (ri == NRES) {
        set_err(status, msg, 404, xstrdup("the server could not find the requested resource"));
        return -1;
    }
    sim_selector *ls, *fs;
    if (parse_selectors(label_selector, field_selector, &ls, &fs, status, msg)) return -1;
    int select = (ls && ls->n) || (fs && fs->n);
    pthread_mutex_lock(&s->mu);
    sim_objs *o = &s->objs[ri];
    size_t i = 0, end = objs_ns_end(o, ns);
    if (after_ns && after_name) {
        int found;
        i = objs_find(o, after_ns, after_name, &found);
        if (found) i++;
    } else if (ns) {
        i = objs_find(o, ns, "", NULL);
    }
    size_t count = 0;
    long rem = 0;
    int more = 0;
    sim_entry *last = NULL;
    for (; i < end; i++) {
        sim_entry *e = &o->items[i];
        if (ns && strcmp(e->ns, ns)) continue; /* before ns (a continue key from elsewhere) */
        if (select && !matches(ls, fs, e->obj)) continue;
        if (limit && count == limit) {
            more = 1;
            if (!select) { /* every entry up to end matches: no need to look at them */
                rem = (long)(end - i);
                break;
            }
            rem++;
            continue;
        }
        if (arr) cJSON_AddItemToArray(arr, cJSON_Duplicate(e->obj, 1));
        if (text) {
            const sim_text *js = entry_json(e);
            if (count) kc_buf_append(text, ",", 1);
            kc_buf_append(text, js->s, js->len);
        }
        if (texts) {
            if (texts->n == texts->cap) {
                texts->cap = texts->cap ? texts->cap * 2 : 64;
                texts->t = xrealloc(texts->t, texts->cap * sizeof *texts->t);
            }
            sim_text *js = text_ref(entry_json(e));
            texts->t[texts->n++] = js;
            texts->len += js->len + (count ? 1 : 0);
        }
        count++;
        last = e;
    }
    if (more && last) {
        if (next_ns) *next_ns = xstrdup(last->ns);
        if (next_name) *next_name = xstrdup(last->name);
    }
    if (remaining) *remaining = more ? rem : 0;
    if (rv) *rv = s->rv;
    pthread_mutex_unlock(&s->mu);
    sel_free(ls);
    sel_free(fs);
    if (status) *status = 200;
    return 0;
}

cJSON *simstore_list_page(simstore *s, const char *plural, const char *ns,
                          const char *label_selector, const char *field_selector, size_t limit,
                          const char *after_ns, const char *after_name, uint64_t *rv,
                          char **next_ns, char **next_name, long *remaining, int *status,
                          char **msg)
{
    cJSON *arr = cJSON_CreateArray();
    if (list_page(s, plural, ns, label_selector, field_selector, limit, after_ns, after_name, rv,
                  next_ns, next_name, remaining, status, msg, arr, NULL, NULL)) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

cJSON *simstore_list_page_raw(simstore *s, const char *plural, const char *ns,
                              const char *label_selector, const char *field_selector, size_t limit,
                              const char *after_ns, const char *after_name, uint64_t *rv,
                              char **next_ns, char **next_name, long *remaining, int *status,
                              char **msg)
{
    kc_buf text = {0};
    kc_buf_append(&text, "[", 1);
    if (list_page(s, plural, ns, label_selector, field_selector, limit, after_ns, after_name, rv,
                  next_ns, next_name, remaining, status, msg, NULL, &text, NULL)) {
        kc_buf_free(&text);
        return NULL;
    }
    kc_buf_append(&text, "]", 1);
    cJSON *raw = cJSON_CreateRaw(kc_buf_cstr(&text));
    kc_buf_free(&text);
    return raw;
}

simstore_texts *simstore_list_page_texts(simstore *s, const char *plural, const char *ns,
                                         const char *label_selector, const char *field_selector,
                                         size_t limit, const char *after_ns, const char *after_name,
                                         uint64_t *rv, char **next_ns, char **next_name,
                                         long *remaining, int *status, char **msg)
{
    simstore_texts *t = xcalloc(1, sizeof *t);
    t->len = 2; /* the brackets */
    if (list_page(s, plural, ns, label_selector, field_selector, limit, after_ns, after_name, rv,
                  next_ns, next_name, remaining, status, msg, NULL, NULL, t)) {
        simstore_texts_free(t);
        return NULL;
    }
    return t;
}

size_t simstore_texts_len(const simstore_texts *t)
{
    return t->len;
}

size_t simstore_texts_read(simstore_texts *t, char *buf, size_t max)
{
    size_t n = 0;
    while (n < max) {
        if (!t->started) {
            buf[n++] = '[';
            t->started = 1;
            continue;
        }
        if (t->i == t->n) { /* the closing bracket, once */
            if (t->off) break;
            buf[n++] = ']';
            t->off = 1;
            break;
        }
        sim_text *js = t->t[t->i];
        size_t sep = t->i ? 1 : 0; /* the comma before every item but the first */
        if (t->off < sep) {
            buf[n++] = ',';
            t->off++;
            continue;
        }
        size_t done = t->off - sep, k = js->len - done;
        if (k > max - n) k = max - n;
        memcpy(buf + n, js->s + done, k);
        n += k;
        t->off += k;
        if (t->off == sep + js->len) { /* sent: this answer no longer holds it */
            text_unref(js);
            t->t[t->i++] = NULL;
            t->off = 0;
        }
    }
    return n;
}

void simstore_texts_free(simstore_texts *t)
{
    if (!t) return;
    for (size_t i = t->i; i < t->n; i++) text_unref(t->t[i]);
    free(t->t);
    free(t);
}

cJSON *simstore_list(simstore *s, const char *plural, const char *ns, const char *label_selector,
                     const char *field_selector, uint64_t *rv, int *status, char **msg)
{
    return simstore_list_page(s, plural, ns, label_selector, field_selector, 0, NULL, NULL, rv,
                              NULL, NULL, NULL, status, msg);
}

uint64_t simstore_floor(simstore *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t f = s->floor;
    pthread_mutex_unlock(&s->mu);
    return f;
}

void simstore_expire_history(simstore *s)
{
    pthread_mutex_lock(&s->mu);
    s->floor = s->rv;
    pthread_mutex_unlock(&s->mu);
}

/* ---- watches ---- */

struct simstore_watch {
    simstore *s;
    size_t ri;
    char *ns;
    sim_selector *ls, *fs;
    cJSON *initial; /* array of synthetic ADDED objects still to deliver */
    uint64_t pos;   /* RV of the last event delivered (or the starting RV) */
};

simstore_watch *simstore_watch_open(simstore *s, const char *plural, const char *ns,
                                    const char *label_selector, const char *field_selector,
                                    uint64_t since_rv, int *gone)
{
    if (gone) *gone = 0;
    size_t ri = res_index(plural);
    if (ri == NRES) return NULL;
    sim_selector *ls, *fs;
    if (parse_selectors(label_selector, field_selector, &ls, &fs, NULL, NULL)) return NULL;
    simstore_watch *w = xcalloc(1, sizeof *w);
    w->s = s;
    w->ri = ri;
    w->ns = xstrdup(ns);
    w->ls = ls;
    w->fs = fs;
    pthread_mutex_lock(&s->mu);
    if (since_rv == 0) {
        w->initial = cJSON_CreateArray();
        sim_objs *o = &s->objs[ri];
        for (size_t i = 0; i < o->n; i++) {
            if (ns && strcmp(o->items[i].ns, ns)) continue;
            if (!matches(ls, fs, o->items[i].obj)) continue;
            cJSON_AddItemToArray(w->initial, cJSON_Duplicate(o->items[i].obj, 1));
        }
        w->pos = s->rv;
    } else {
        if (since_rv < s->floor && gone) *gone = 1;
        w->pos = since_rv;
    }
    pthread_mutex_unlock(&s->mu);
    return w;
}

/* The too-old Status a watch reports when it fell behind the history kept. */
static cJSON *expired_status(uint64_t have, uint64_t floor)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "kind", "Status");
    cJSON_AddStringToObject(st, "apiVersion", "v1");
    cJSON_AddObjectToObject(st, "metadata");
    cJSON_AddStringToObject(st, "status", "Failure");
    char *m = xasprintf("too old resource version: %llu (%llu)", (unsigned long long)have,
                        (unsigned long long)floor);
    cJSON_AddStringToObject(st, "message", m);
    free(m);
    cJSON_AddStringToObject(st, "reason", "Expired");
    cJSON_AddNumberToObject(st, "code", 410);
    return st;
}

cJSON *simstore_watch_next(simstore_watch *w, int timeout_ms, const char **type, uint64_t *rv)
{
    simstore *s = w->s;
    if (w->initial) {
        cJSON *first = cJSON_DetachItemFromArray(w->initial, 0);
        if (first) {
            *type = "ADDED";
            if (rv) *rv = w->pos;
            return first;
        }
        cJSON_Delete(w->initial);
        w->initial = NULL;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->hn && s->hist[s->hstart].rv > w->pos + 1) {
            /* events this watch has not seen were dropped from the history */
            cJSON *st = expired_status(w->pos, s->floor);
            pthread_mutex_unlock(&s->mu);
            *type = "ERROR";
            if (rv) *rv = 0;
            return st;
        }
        /* first event after pos: binary search over the ring (sorted by rv) */
        size_t lo = 0, hi = s->hn;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s->hist[(s->hstart + mid) % s->hcap].rv <= w->pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i < s->hn; i++) {
            sim_event *e = &s->hist[(s->hstart + i) % s->hcap];
            w->pos = e->rv;
            if (e->res != &resources[w->ri]) continue;
            if (w->ns && strcmp(e->ns, w->ns)) continue;
            if (!matches(w->ls, w->fs, e->obj)) continue;
            cJSON *copy = cJSON_Duplicate(e->obj, 1);
            *type = e->type;
            if (rv) *rv = e->rv;
            pthread_mutex_unlock(&s->mu);
            return copy;
        }
        if (timeout_ms <= 0) break;
        if (pthread_cond_timedwait(&s->cond, &s->mu, &deadline) == ETIMEDOUT) {
            timeout_ms = 0; /* one last look, then give up */
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

uint64_t simstore_watch_pos(simstore_watch *w)
{
    pthread_mutex_lock(&w->s->mu);
    uint64_t p = w->pos;
    pthread_mutex_unlock(&w->s->mu);
    return p;
}

void simstore_wake(simstore *s)
{
    pthread_mutex_lock(&s->mu);
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

void simstore_watch_close(simstore_watch *w)
{
    if (!w) return;
    free(w->ns);
    sel_free(w->ls);
    sel_free(w->fs);
    cJSON_Delete(w->initial);
    free(w);
}

/* ---- the pod log ---- */

static sim_log *log_find(simstore *s, const char *pod, int create)
{
    for (size_t i = 0; i < s->nlogs; i++)
        if (!strcmp(s->logs[i].pod, pod)) return &s->logs[i];
    if (!create) return NULL;
    s->logs = xrealloc(s->logs, (s->nlogs + 1) * sizeof *s->logs);
    sim_log *l = &s->logs[s->nlogs++];
    memset(l, 0, sizeof *l);
    l->pod = xstrdup(pod);
    return l;
}

void simstore_log_append(simstore *s, const char *pod, double when, const char *line)
{
    pthread_mutex_lock(&s->mu);
    sim_log *l = log_find(s, pod, 1);
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->lines = xrealloc(l->lines, l->cap * sizeof *l->lines);
        l->times = xrealloc(l->times, l->cap * sizeof *l->times);
    }
    l->lines[l->n] = xstrdup(line);
    l->times[l->n] = when;
    l->n++;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

size_t simstore_log_count(simstore *s, const char *pod)
{
    pthread_mutex_lock(&s->mu);
    sim_log *l = log_find(s, pod, 0);
    size_t n = l ? l->n : 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}

char **simstore_log_read(simstore *s, const char *pod, size_t *pos, int timeout_ms, size_t *n,
                         double **times)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    *n = 0;
    if (times) *times = NULL;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        sim_log *l = log_find(s, pod, 0);
        if (l && l->n > *pos) {
            size_t k = l->n - *pos;
            char **out = xmalloc(k * sizeof *out);
            double *t = times ? xmalloc(k * sizeof *t) : NULL;
            for (size_t i = 0; i < k; i++) {
                out[i] = xstrdup(l->lines[*pos + i]);
                if (t) t[i] = l->times[*pos + i];
            }
            *pos = l->n;
            *n = k;
            if (times) *times = t;
            pthread_mutex_unlock(&s->mu);
            return out;
        }
        if (timeout_ms <= 0) break;
        if (pthread_cond_timedwait(&s->cond, &s->mu, &deadline) == ETIMEDOUT) timeout_ms = 0;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
