/* discovery.c: Kind -> plural from the API server's discovery documents, per group/version. */
#include "kubeclient/discovery.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "kubeclient/util.h"

typedef enum { KD_ASKING, KD_OK, KD_FAILED } kd_state;

typedef struct kd_gv {
    struct kc_discovery *d;
    char *gv;
    kd_state state;
    int64_t asked_ms;
    kc_request *req;
    char **kinds, **plurals;
    long n;
} kd_gv;

struct kc_discovery {
    kc_client *c;
    kd_gv **gvs;
    size_t n, cap;
    void (*cb)(void *);
    void *arg;
};

kc_discovery *kc_discovery_new(kc_client *c)
{
    kc_discovery *d = xcalloc(1, sizeof *d);
    d->c = c;
    return d;
}

static void kd_strings_free(char **v, long n)
{
    for (long i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void kd_gv_clear(kd_gv *g)
{
    kd_strings_free(g->kinds, g->n);
    kd_strings_free(g->plurals, g->n);
    g->kinds = g->plurals = NULL;
    g->n = 0;
}

void kc_discovery_free(kc_discovery *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) {
        kd_gv *g = d->gvs[i];
        if (g->req) kc_request_cancel(g->req);
        kd_gv_clear(g);
        free(g->gv);
        free(g);
    }
    free(d->gvs);
    free(d);
}

int kc_discovery_asking(const kc_discovery *d)
{
    int n = 0;
    for (size_t i = 0; d && i < d->n; i++) n += d->gvs[i]->req != NULL;
    return n;
}

void kc_discovery_on_change(kc_discovery *d, void (*cb)(void *arg), void *arg)
{
    d->cb = cb;
    d->arg = arg;
}

long kc_discovery_parse(const char *json, size_t len, char ***kinds, char ***plurals)
{
    *kinds = *plurals = NULL;
    cJSON *o = cJSON_ParseWithLength(json, len);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "resources");
    if (!cJSON_IsObject(o) || !cJSON_IsArray(res)) {
        cJSON_Delete(o);
        return -1;
    }
    int cap = cJSON_GetArraySize(res);
    char **k = xcalloc((size_t)cap + 1, sizeof *k), **p = xcalloc((size_t)cap + 1, sizeof *p);
    long n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, res)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind"));
        if (!name || !kind || !*name || strchr(name, '/')) continue; /* a subresource */
        k[n] = xstrdup(kind);
        p[n] = xstrdup(name);
        n++;
    }
    cJSON_Delete(o);
    *kinds = k;
    *plurals = p;
    return n;
}

static void kd_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kd_gv *g = arg;
    g->req = NULL;
    char **kinds, **plurals;
    long n = !err->msg[0] && resp->body
                 ? kc_discovery_parse(resp->body, resp->body_len, &kinds, &plurals)
                 : -1;
    if (n >= 0) {
        kd_gv_clear(g);
        g->kinds = kinds;
        g->plurals = plurals;
        g->n = n;
        g->state = KD_OK;
    } else if (g->state != KD_OK) { /* a failed second look keeps the first answer */
        g->state = KD_FAILED;
    }
    kc_discovery *d = g->d;
    if (d->cb) d->cb(d->arg);
}

static void kd_ask(kd_gv *g)
{
    /* the core group lives under /api, the others under /apis */
    char *path = strchr(g->gv, '/') ? xasprintf("/apis/%s", g->gv) : xasprintf("/api/%s", g->gv);
    kc_request_opts o = {.path = path, .timeout_ms = 30000};
    if (g->state != KD_OK) g->state = KD_ASKING;
    g->asked_ms = kc_now_ms();
    g->req = kc_client_request(g->d->c, &o, NULL, kd_done, g);
    free(path);
}

/* A group/version as the API server names them (it goes into a path): DNS characters, one '/'
 * at most, not empty on either side. */
static int kd_valid_gv(const char *gv)
{
    if (!gv || !*gv || strlen(gv) > 300) return 0;
    int slashes = 0;
    for (const char *p = gv; *p; p++) {
        if (*p == '/') {
            if (++slashes > 1 || p == gv || !p[1]) return 0;
        } else if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '-' || *p == '.')) {
            return 0;
        }
    }
    return strstr(gv, "..") == NULL;
}

int kc_discovery_plural(kc_discovery *d, const char *group_version, const char *kind,
                        const char **plural)
{
    *plural = NULL;
    if (!kd_valid_gv(group_version) || !kind) return -1;
    kd_gv *g = NULL;
    for (size_t i = 0; i < d->n && !g; i++)
        if (!strcmp(d->gvs[i]->gv, group_version)) g = d->gvs[i];
    if (!g) {
        if (d->n >= KC_CAP_DISCOVERY_GVS) return -1; /* caps.h: never asked */
        if (d->n == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 16;
            d->gvs = xrealloc(d->gvs, d->cap * sizeof *d->gvs);
        }
        g = xcalloc(1, sizeof *g);
        g->d = d;
        g->gv = xstrdup(group_version);
        d->gvs[d->n++] = g;
        kd_ask(g);
    }
    if (g->state == KD_ASKING) return 0;
    for (long i = 0; i < g->n; i++) {
        if (!strcmp(g->kinds[i], kind)) {
            *plural = g->plurals[i];
            return 1;
        }
    }
    /* not served (yet): a CRD restored later makes it appear */
    if (!g->req && kc_now_ms() - g->asked_ms >= KC_DISCOVERY_RETRY_MS) kd_ask(g);
    return -1;
}
