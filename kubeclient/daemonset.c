/* daemonset.c: decodes apps/v1 DaemonSets (daemonset.h): the node-agent's desired, current and
 * ready counts as the DaemonSet controller reports them. Missing fields are 0 (Kubernetes omits
 * zero counts). */
#include "kubeclient/daemonset.h"

#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static const cJSON *ds_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *ds_str(const cJSON *o, const char *key)
{
    const cJSON *v = ds_get(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static int ds_int(const cJSON *o, const char *key)
{
    const cJSON *v = ds_get(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e9 ? (int)v->valuedouble
                                                                           : 0;
}

kc_daemonset *kc_daemonset_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    kc_daemonset *d = xcalloc(1, sizeof *d);
    const cJSON *md = ds_get(obj, "metadata"), *st = ds_get(obj, "status");
    d->name = xstrdup(ds_str(md, "name"));
    d->ns = xstrdup(ds_str(md, "namespace"));
    const char *c = ds_str(md, "creationTimestamp");
    if (c && kc_parse_time(c, &d->created)) d->created = 0;
    d->has_status = cJSON_IsObject(st);
    d->desired = ds_int(st, "desiredNumberScheduled");
    d->current = ds_int(st, "currentNumberScheduled");
    d->ready = ds_int(st, "numberReady");
    d->available = ds_int(st, "numberAvailable");
    d->misscheduled = ds_int(st, "numberMisscheduled");
    return d;
}

void kc_daemonset_free(kc_daemonset *d)
{
    if (!d) return;
    free(d->name);
    free(d->ns);
    free(d);
}

void *kc_daemonset_decode_any(const cJSON *obj)
{
    return kc_daemonset_decode(obj);
}

void kc_daemonset_release(void *d)
{
    kc_daemonset_free(d);
}

const kc_daemonset *kc_daemonset_pick_node_agent(const kc_daemonset *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] && v[i]->name && !strcmp(v[i]->name, "node-agent")) return v[i];
    return NULL;
}
