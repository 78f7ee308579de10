/* itemops.c: a run's asynchronous plugin operations: the artifact parsed, kept across refreshes,
 * joined to their data movers, judged stalled. */
#include "itemops.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"
#include "kubeclient/caps.h"
#include "runeta.h"

itemops *itemops_new(void)
{
    return xcalloc(1, sizeof(itemops));
}

void itemop_clear(itemop *o)
{
    if (!o) return;
    free(o->id);
    free(o->plugin);
    free(o->group);
    free(o->resource);
    free(o->ns);
    free(o->name);
    free(o->phase);
    free(o->error);
    free(o->units);
    free(o->description);
    est_free(o->est);
    memset(o, 0, sizeof *o);
}

static void io_clear_ops(itemops *io)
{
    for (size_t i = 0; i < io->n; i++) itemop_clear(&io->ops[i]);
    free(io->ops);
    io->ops = NULL;
    io->n = 0;
}

void itemops_free(itemops *io)
{
    if (!io) return;
    io_clear_ops(io);
    free(io);
}

/* A string member (any case: Go's decoder matches keys so), copied; NULL when absent or empty
 * where empty means nothing (omitempty). */
static char *io_str(const cJSON *o, const char *key, int keep_empty)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    if (!s || (!*s && !keep_empty)) return NULL;
    return xstrdup(s);
}

static int64_t io_int(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9.2e18) return 0;
    return (int64_t)v->valuedouble;
}

static double io_time(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    double t;
    if (!s || kc_parse_time(s, &t)) return 0;
    return t;
}

int itemops_parse(const char *json, size_t len, int restore, itemop **ops, size_t *n, size_t *cut,
                  kc_err *err)
{
    *ops = NULL;
    *n = *cut = 0;
    if (len > ITEMOPS_MAX_BYTES) {
        kc_err_set(err, "the item operations are %zu bytes, over the cap of %zu", len,
                   ITEMOPS_MAX_BYTES);
        err->code = KC_ERR_CAPPED;
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsArray(root) && !cJSON_IsNull(root)) {
        kc_err_set(err, "the item operations are not a JSON array");
        cJSON_Delete(root);
        return -1;
    }
    size_t total = (size_t)cJSON_GetArraySize(root), keep = total;
    if (keep > ITEMOPS_MAX_OPS) keep = ITEMOPS_MAX_OPS;
    itemop *v = keep ? xcalloc(keep, sizeof *v) : NULL;
    size_t k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, root)
    {
        if (!cJSON_IsObject(e)) continue;
        if (k == keep) {
            (*cut)++;
            continue;
        }
        const cJSON *spec = cJSON_GetObjectItem(e, "spec"), *st = cJSON_GetObjectItem(e, "status");
        const cJSON *ri = cJSON_GetObjectItem(spec, "resourceIdentifier");
        itemop *o = &v[k++];
        o->id = io_str(spec, "operationID", 1);
        o->plugin = io_str(spec, restore ? "restoreItemAction" : "backupItemAction", 1);
        o->group = io_str(ri, "Group", 1);
        o->resource = io_str(ri, "Resource", 1);
        o->ns = io_str(ri, "Namespace", 0);
        o->name = io_str(ri, "Name", 1);
        if (!o->id) o->id = xstrdup("");
        if (!o->plugin) o->plugin = xstrdup("");
        if (!o->group) o->group = xstrdup("");
        if (!o->resource) o->resource = xstrdup("");
        if (!o->name) o->name = xstrdup("");
        o->phase = io_str(st, "phase", 1);
        if (!o->phase) o->phase = xstrdup("");
        o->error = io_str(st, "error", 0);
        o->units = io_str(st, "operationUnits", 0);
        o->description = io_str(st, "description", 0);
        o->done = io_int(st, "nCompleted");
        o->total = io_int(st, "nTotal");
        o->has_total = o->total > 0;
        o->created = io_time(st, "created");
        o->started = io_time(st, "started");
        o->updated = io_time(st, "updated");
    }
    cJSON_Delete(root);
    *ops = v;
    *n = k;
    return 0;
}

static const itemop *io_find(const itemops *io, const char *id)
{
    for (size_t i = 0; i < io->n; i++)
        if (!strcmp(io->ops[i].id, id)) return &io->ops[i];
    return NULL;
}

static double io_max(double a, double b)
{
    return a > b ? a : b;
}

void itemops_update(itemops *io, itemop *fresh, size_t n, size_t cut, double mono,
                    double cluster_now)
{
    static const est_opts opts = {.window_s = 6 * ITEMOPS_REFRESH_S,
                                  .expected_interval_s = ITEMOPS_REFRESH_S};
    for (size_t i = 0; i < n; i++) {
        itemop *o = &fresh[i];
        itemop *old = (itemop *)(*o->id ? io_find(io, o->id) : NULL);
        double moved = io_max(io_max(o->created, o->started), o->updated);
        if (old && old->est) {
            o->est = old->est;
            old->est = NULL;
            moved = io_max(moved, old->moved_at);
            if (o->done != old->done) moved = io_max(moved, cluster_now);
        } else {
            o->est = est_new(&opts);
            /* seen first in flight: its average since it started, so a rate shows at once */
            if (o->started > 0 && o->done > 0 && cluster_now > o->started && !itemop_finished(o))
                est_seed(o->est, mono, o->done, cluster_now - o->started);
        }
        est_sample(o->est, mono, o->done, o->total);
        o->moved_at = moved;
    }
    io_clear_ops(io);
    io->ops = fresh;
    io->n = n;
    io->cut = cut;
    io->known = 1;
    io->reason[0] = 0;
    io->fetched_at = cluster_now;
    io->fetched_mono = mono;
}

void itemops_set_unknown(itemops *io, const char *why)
{
    io->known = 0;
    snprintf(io->reason, sizeof io->reason, "%s", why && *why ? why : "not read");
}

int itemop_finished(const itemop *o)
{
    return !strcmp(o->phase, "Completed") || !strcmp(o->phase, "Failed");
}

size_t itemops_join(const itemops *io, const model *m, const model_run *r, const model_volume **out)
{
    if (!io || !io->n) return 0;
    for (size_t i = 0; i < io->n; i++) out[i] = NULL;
    size_t nv = r ? model_run_volumes(m, r, NULL, 0) : 0, joined = 0;
    if (!nv) return 0;
    model_volume **vv = xcalloc(nv, sizeof *vv);
    nv = model_run_volumes(m, r, vv, nv);
    for (size_t i = 0; i < io->n; i++) {
        const itemop *o = &io->ops[i];
        if (!*o->id || strcmp(o->resource, "persistentvolumeclaims") || *o->group) continue;
        unsigned h = vl_op_hash(o->id);
        for (size_t k = 0; k < nv; k++) {
            const vl_volume *v = vv[k]->vol;
            if (!v || (v->kind != VL_DU && v->kind != VL_DD)) continue;
            /* the label's hash and the PVC: a DataDownload's target PVC keeps its name when
             * the restore maps its namespace */
            if (v->op_hash == h && v->volume && !strcmp(v->volume, o->name)) {
                out[i] = vv[k];
                joined++;
                break;
            }
        }
    }
    free(vv);
    return joined;
}

void itemop_rate_eta(const model *m, const itemop *o, const model_volume *vol, double now,
                     double wall, double *rate, double *eta)
{
    *rate = *eta = -1;
    if (itemop_finished(o)) {
        *eta = 0;
        return;
    }
    if (vol) {
        runeta_volume(m, vol, now, wall, rate, eta);
        return;
    }
    if (!o->est || !est_confident(o->est)) return;
    *rate = est_rate(o->est, now);
    if (o->has_total && *rate > 0) *eta = est_eta(o->est, now);
}

double itemops_timeout(const vl_run *r, int *is_default)
{
    double t;
    int def = !r || !r->item_op_timeout || cron_parse_duration(r->item_op_timeout, &t) || t <= 0;
    if (is_default) *is_default = def;
    return def ? ITEMOPS_DEFAULT_TIMEOUT_S : t;
}

int itemop_stalled(const itemop *o, double timeout, double cluster_now, double *for_s)
{
    if (for_s) *for_s = 0;
    if (itemop_finished(o) || o->moved_at <= 0) return 0;
    double quiet = cluster_now - o->moved_at;
    if (!(quiet > timeout)) return 0;
    if (for_s) *for_s = quiet;
    return 1;
}

char *itemop_target(const itemop *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s %s%s%s", o->resource, *o->group ? "." : "", o->group,
             o->ns ? o->ns : "", o->ns ? "/" : "", o->name);
    return buf;
}

int itemops_eta(const model *m, const model_run *r, double now, double wall, double *eta,
                int *n_unknown)
{
    int left = 0;
    *eta = -1;
    *n_unknown = 0;
    const itemops *io = r ? r->item_ops : NULL;
    if (!io || !io->known || !io->n) return 0;
    const model_volume **vol = xcalloc(io->n, sizeof *vol);
    itemops_join(io, m, r, vol);
    for (size_t i = 0; i < io->n; i++) {
        const itemop *o = &io->ops[i];
        if (vol[i] || itemop_finished(o)) continue;
        left++;
        double rt, e;
        itemop_rate_eta(m, o, NULL, now, wall, &rt, &e);
        if (e < 0)
            (*n_unknown)++;
        else if (e > *eta)
            *eta = e;
    }
    free(vol);
    return left;
}

int itemops_moving(const model *m, const model_run *r, double now, double wall, double *last_move)
{
    double cnow = model_cluster_now(m, wall);
    int moving = 0;
    if (last_move) *last_move = -1;
    const itemops *io = r ? r->item_ops : NULL;
    if (!io || !io->known || !io->n) return 0;
    const model_volume **vol = xcalloc(io->n, sizeof *vol);
    itemops_join(io, m, r, vol);
    for (size_t i = 0; i < io->n; i++) {
        const itemop *o = &io->ops[i];
        if (vol[i] || itemop_finished(o) || !o->est) continue;
        double lm = est_last_move(o->est), since;
        int mv = lm >= 0 && !est_stalled(o->est, now, &since);
        if (lm < 0 && o->moved_at > 0 && cnow >= o->moved_at) { /* first sight */
            double ago = model_wall_span(m, cnow - o->moved_at);
            lm = now - ago;
            mv = ago < 3 * ITEMOPS_REFRESH_S;
        }
        if (last_move && lm > *last_move) *last_move = lm;
        moving += mv;
    }
    free(vol);
    return moving;
}

int itemops_waiting(const vl_run *r)
{
    return r && (r->phase_id == VL_PH_WAITING_PLUGIN_OPS ||
                 r->phase_id == VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED);
}
