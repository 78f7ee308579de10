/* scenario.c: loads scenarios from YAML (libyaml's document API, for line numbers in errors),
 * builds the built-in demo and empty scenarios, and evaluates the schedules' cron expressions. */
#include "scenario.h"
#include "simworlds.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "kubeclient/util.h"

/* ---- small helpers ---- */

static char **strv_dup(char *const *v, size_t n)
{
    if (!n) return NULL;
    char **out = xcalloc(n, sizeof *out);
    for (size_t i = 0; i < n; i++) out[i] = xstrdup(v[i]);
    return out;
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void scn_run_defaults(scn_run *r)
{
    memset(r, 0, sizeof *r);
    r->rate = 10;
    r->fail_at = 0.5;
    r->ttl = 720 * 3600;
    r->storage_location = xstrdup("default");
}

static void volume_defaults(scn_volume *v)
{
    memset(v, 0, sizeof *v);
    v->uploader = SCN_KOPIA;
    v->size = 64 << 20;
    v->rate = 4 << 20;
    v->stall_after = -1;
    v->fail_after = -1;
}

static void volume_copy(scn_volume *d, const scn_volume *s)
{
    *d = *s;
    d->pod = xstrdup(s->pod);
    d->ns = xstrdup(s->ns);
    d->volume = xstrdup(s->volume);
    d->pvc = xstrdup(s->pvc);
    d->node = xstrdup(s->node);
    d->fail_message = xstrdup(s->fail_message);
}

static int strv_has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(v[i], s)) return 1;
    return 0;
}

int scn_agent_ready(const scn_cluster *c, const char *node)
{
    return !strv_has(c->agents_missing, c->n_agents_missing, node) &&
           !strv_has(c->agents_not_ready, c->n_agents_not_ready, node);
}

static void volume_clear(scn_volume *v)
{
    free(v->pod);
    free(v->ns);
    free(v->volume);
    free(v->pvc);
    free(v->node);
    free(v->fail_message);
}

static void op_clear(scn_op *o)
{
    free(o->plugin);
    free(o->resource);
    free(o->ns);
    free(o->name);
    free(o->id);
    free(o->units);
    free(o->description);
}

static double *dup_doubles(const double *v, size_t n)
{
    if (!n) return NULL;
    double *d = xmalloc(n * sizeof *d);
    memcpy(d, v, n * sizeof *d);
    return d;
}

void scn_run_copy(scn_run *d, const scn_run *s)
{
    *d = *s;
    d->name = xstrdup(s->name);
    d->outcome = xstrdup(s->outcome);
    d->failure_reason = xstrdup(s->failure_reason);
    d->list_text = s->list_text ? xstrdup(s->list_text) : NULL;
    d->storage_location = xstrdup(s->storage_location);
    d->backup = xstrdup(s->backup);
    d->schedule = xstrdup(s->schedule);
    d->namespaces = strv_dup(s->namespaces, s->n_namespaces);
    d->label_keys = strv_dup(s->label_keys, s->n_labels);
    d->label_values = strv_dup(s->label_values, s->n_labels);
    d->resources = s->n_resources ? xcalloc(s->n_resources, sizeof *d->resources) : NULL;
    for (size_t i = 0; i < s->n_resources; i++) {
        d->resources[i] = s->resources[i];
        d->resources[i].name = xstrdup(s->resources[i].name);
    }
    d->volumes = s->n_volumes ? xcalloc(s->n_volumes, sizeof *d->volumes) : NULL;
    for (size_t i = 0; i < s->n_volumes; i++) volume_copy(&d->volumes[i], &s->volumes[i]);
    d->ops = s->n_ops ? xcalloc(s->n_ops, sizeof *d->ops) : NULL;
    for (size_t i = 0; i < s->n_ops; i++) {
        scn_op *o = &d->ops[i];
        *o = s->ops[i];
        o->plugin = xstrdup(o->plugin);
        o->resource = xstrdup(o->resource);
        o->ns = xstrdup(o->ns);
        o->name = xstrdup(o->name);
        o->id = xstrdup(o->id);
        o->units = xstrdup(o->units);
        o->description = xstrdup(o->description);
    }
    d->pace_at = dup_doubles(s->pace_at, s->n_pace);
    d->pace_factor = dup_doubles(s->pace_factor, s->n_pace);
}

void scn_run_clear(scn_run *r)
{
    free(r->name);
    free(r->outcome);
    free(r->failure_reason);
    free(r->list_text);
    free(r->storage_location);
    free(r->backup);
    free(r->schedule);
    strv_free(r->namespaces, r->n_namespaces);
    strv_free(r->label_keys, r->n_labels);
    strv_free(r->label_values, r->n_labels);
    for (size_t i = 0; i < r->n_resources; i++) free(r->resources[i].name);
    free(r->resources);
    for (size_t i = 0; i < r->n_volumes; i++) volume_clear(&r->volumes[i]);
    free(r->volumes);
    for (size_t i = 0; i < r->n_ops; i++) op_clear(&r->ops[i]);
    free(r->ops);
    free(r->pace_at);
    free(r->pace_factor);
    memset(r, 0, sizeof *r);
}

void scenario_free(scenario *s)
{
    if (!s) return;
    strv_free(s->namespaces, s->n_namespaces);
    for (size_t i = 0; i < s->n_runs; i++) scn_run_clear(&s->runs[i]);
    free(s->runs);
    for (size_t i = 0; i < s->n_schedules; i++) {
        free(s->schedules[i].name);
        free(s->schedules[i].cron);
        scn_run_clear(&s->schedules[i].tmpl);
    }
    free(s->schedules);
    for (size_t i = 0; i < s->n_repos; i++) {
        scn_repo *r = &s->repos[i];
        free(r->name);
        free(r->volume_ns);
        free(r->bsl);
        free(r->type);
        free(r->phase);
        free(r->message);
        for (size_t k = 0; k < r->n_recent; k++) {
            free(r->recent[k].result);
            free(r->recent[k].message);
        }
        free(r->recent);
        for (size_t k = 0; k < r->n_jobs; k++) {
            free(r->jobs[k].name);
            free(r->jobs[k].result);
            free(r->jobs[k].ends);
            free(r->jobs[k].message);
            strv_free(r->jobs[k].log, r->jobs[k].n_log);
        }
        free(r->jobs);
    }
    free(s->repos);
    strv_free(s->cluster.nodes, s->cluster.n_nodes);
    strv_free(s->cluster.agents_missing, s->cluster.n_agents_missing);
    strv_free(s->cluster.agents_not_ready, s->cluster.n_agents_not_ready);
    free(s->cluster.restart_reason);
    free(s->cluster.version);
    free(s->cluster.bsl_phase);
    free(s->cluster.bsl_message);
    free(s->cluster.bsl_name);
    free(s);
}

static scn_run *add_run(scenario *s)
{
    s->runs = xrealloc(s->runs, (s->n_runs + 1) * sizeof *s->runs);
    scn_run *r = &s->runs[s->n_runs++];
    scn_run_defaults(r);
    return r;
}

static scn_resource *add_resource(scn_run *r, const char *name, int items, int added)
{
    r->resources = xrealloc(r->resources, (r->n_resources + 1) * sizeof *r->resources);
    scn_resource *res = &r->resources[r->n_resources++];
    res->name = xstrdup(name);
    res->items = items;
    res->added = added;
    return res;
}

static scn_volume *add_volume(scn_run *r)
{
    r->volumes = xrealloc(r->volumes, (r->n_volumes + 1) * sizeof *r->volumes);
    scn_volume *v = &r->volumes[r->n_volumes++];
    volume_defaults(v);
    return v;
}

/* ---- number parsing ---- */

int scn_parse_bytes(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0)) return -1; /* NaN too */
    static const struct {
        const char *suf;
        double mul;
    } units[] = {{"", 1},
                 {"Ki", 1024.0},
                 {"Mi", 1048576.0},
                 {"Gi", 1073741824.0},
                 {"Ti", 1099511627776.0},
                 {"K", 1e3},
                 {"M", 1e6},
                 {"G", 1e9},
                 {"T", 1e12},
                 {"B", 1}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].suf)) {
            /* at most 8 EiB: it is stored as an int64 byte count (inf and 1e120 are no size) */
            if (!(v * units[i].mul < 9223372036854775807.0)) return -1;
            *out = v * units[i].mul;
            return 0;
        }
    return -1;
}

int scn_parse_duration(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v)) return -1;
    double mul;
    if (!*end || !strcmp(end, "s"))
        mul = 1;
    else if (!strcmp(end, "m"))
        mul = 60;
    else if (!strcmp(end, "h"))
        mul = 3600;
    else if (!strcmp(end, "d"))
        mul = 86400;
    else
        return -1;
    if (!(fabs(v * mul) <= 1e10)) return -1; /* ~317 years either way: stored as ints later */
    *out = v * mul;
    return 0;
}

/* ---- YAML walking ---- */

typedef struct parse_ctx {
    yaml_document_t *doc;
    const char *file;
    char *err;
    size_t errlen;
    int failed;
} parse_ctx;

__attribute__((format(printf, 3, 4))) static int perr(parse_ctx *p, const yaml_node_t *n,
                                                      const char *fmt, ...)
{
    if (p->failed) return -1;
    p->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%lu: %s", p->file,
             n ? (unsigned long)n->start_mark.line + 1 : 1UL, msg);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int get_str(parse_ctx *p, yaml_node_t *n, const char *key, char **out)
{
    const char *s = scalar(n);
    if (!s) return perr(p, n, "%s: expected a string", key);
    free(*out);
    *out = xstrdup(s);
    return 0;
}

static int get_num(parse_ctx *p, yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(n);
    char *end;
    if (!s) return perr(p, n, "%s: expected a number", key);
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return perr(p, n, "%s: '%s' is not a number", key, s);
    *out = v;
    return 0;
}

static int get_int(parse_ctx *p, yaml_node_t *n, const char *key, int *out)
{
    double v;
    if (get_num(p, n, key, &v)) return -1;
    if (v < 0 || v > 10000000 || v != floor(v))
        return perr(p, n, "%s: expected a non-negative integer", key);
    *out = (int)v;
    return 0;
}

static int get_frac(parse_ctx *p, yaml_node_t *n, const char *key, double *out)
{
    if (get_num(p, n, key, out)) return -1;
    if (*out < 0 || *out > 1) return perr(p, n, "%s: expected a fraction between 0 and 1", key);
    return 0;
}

static int get_dur(parse_ctx *p, yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(n);
    if (!s || scn_parse_duration(s, out))
        return perr(p, n, "%s: expected a duration like 90, 30s, -2h", key);
    return 0;
}

static int get_bytes(parse_ctx *p, yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(n);
    if (!s || scn_parse_bytes(s, out))
        return perr(p, n, "%s: expected a size like 200Mi or 1G", key);
    return 0;
}

static int get_bool(parse_ctx *p, yaml_node_t *n, const char *key, int *out)
{
    const char *s = scalar(n);
    if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
        *out = 1;
    else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
        *out = 0;
    else
        return perr(p, n, "%s: expected true or false", key);
    return 0;
}

static int get_strv(parse_ctx *p, yaml_node_t *n, const char *key, char ***out, size_t *nout)
{
    if (n->type != YAML_SEQUENCE_NODE) return perr(p, n, "%s: expected a list", key);
    strv_free(*out, *nout);
    *out = NULL;
    *nout = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *e = yaml_document_get_node(p->doc, *it);
        if (!scalar(e)) return perr(p, e, "%s: expected a list of strings", key);
        *out = xrealloc(*out, (*nout + 1) * sizeof **out);
        (*out)[(*nout)++] = xstrdup(scalar(e));
    }
    return 0;
}

#define FOR_PAIRS(p, n, k, v)                                                                      \
    for (yaml_node_pair_t *pair_ = (n)->data.mapping.pairs.start;                                  \
         pair_ < (n)->data.mapping.pairs.top &&                                                    \
         ((k) = scalar(yaml_document_get_node((p)->doc, pair_->key)),                              \
         (v) = yaml_document_get_node((p)->doc, pair_->value), 1);                                 \
         pair_++)

static int expect_map(parse_ctx *p, yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_MAPPING_NODE) return perr(p, n, "%s: expected a mapping", what);
    return 0;
}

static int parse_resource(parse_ctx *p, yaml_node_t *n, scn_run *r)
{
    if (expect_map(p, n, "resources entry")) return -1;
    scn_resource *res = add_resource(r, "", 0, 0);
    const char *k;
    yaml_node_t *v;
    int have_name = 0;
    FOR_PAIRS(p, n, k, v)
    {
        if (!k) return perr(p, v, "resources entry: keys must be strings");
        if (!strcmp(k, "name")) {
            if (get_str(p, v, k, &res->name)) return -1;
            have_name = 1;
        } else if (!strcmp(k, "items")) {
            if (get_int(p, v, k, &res->items)) return -1;
        } else if (!strcmp(k, "added")) {
            if (get_int(p, v, k, &res->added)) return -1;
        } else
            return perr(p, v, "resources entry: unknown key '%s'", k);
    }
    if (!have_name || !*res->name) return perr(p, n, "resources entry: name is required");
    if (res->added > res->items) return perr(p, n, "resources entry: added exceeds items");
    return 0;
}

static int parse_volume(parse_ctx *p, yaml_node_t *n, scn_run *r)
{
    if (expect_map(p, n, "volumes entry")) return -1;
    scn_volume *vol = add_volume(r);
    const char *k;
    yaml_node_t *v;
    double d;
    FOR_PAIRS(p, n, k, v)
    {
        if (!k) return perr(p, v, "volumes entry: keys must be strings");
        if (!strcmp(k, "pod")) {
            if (get_str(p, v, k, &vol->pod)) return -1;
        } else if (!strcmp(k, "namespace")) {
            if (get_str(p, v, k, &vol->ns)) return -1;
        } else if (!strcmp(k, "volume")) {
            if (get_str(p, v, k, &vol->volume)) return -1;
        } else if (!strcmp(k, "pvc")) {
            if (get_str(p, v, k, &vol->pvc)) return -1;
        } else if (!strcmp(k, "node")) {
            if (get_str(p, v, k, &vol->node)) return -1;
        } else if (!strcmp(k, "fail_message")) {
            if (get_str(p, v, k, &vol->fail_message)) return -1;
        } else if (!strcmp(k, "uploader")) {
            const char *s = scalar(v);
            if (s && !strcmp(s, "kopia"))
                vol->uploader = SCN_KOPIA;
            else if (s && !strcmp(s, "restic"))
                vol->uploader = SCN_RESTIC;
            else if (s && !strcmp(s, "restic-real"))
                vol->uploader = SCN_RESTIC_REAL;
            else if (s && !strcmp(s, "datamover"))
                vol->uploader = SCN_DATAMOVER;
            else
                return perr(p, v, "uploader: expected kopia, restic, restic-real or datamover");
        } else if (!strcmp(k, "size")) {
            if (get_bytes(p, v, k, &d)) return -1;
            vol->size = (int64_t)d;
        } else if (!strcmp(k, "rate")) {
            if (get_bytes(p, v, k, &d)) return -1;
            if (d <= 0) return perr(p, v, "rate: must be positive");
            vol->rate = d;
        } else if (!strcmp(k, "stall_after")) {
            if (get_frac(p, v, k, &vol->stall_after)) return -1;
        } else if (!strcmp(k, "stall_for")) {
            if (get_dur(p, v, k, &vol->stall_for)) return -1;
        } else if (!strcmp(k, "fail_after")) {
            if (get_frac(p, v, k, &vol->fail_after)) return -1;
        } else if (!strcmp(k, "unsized")) {
            if (get_bool(p, v, k, &vol->unsized)) return -1;
        } else if (!strcmp(k, "stuck_in")) {
            const char *st = scalar(v);
            if (st && !strcmp(st, "New"))
                vol->stuck_in = SCN_STUCK_NEW;
            else if (st && !strcmp(st, "Accepted"))
                vol->stuck_in = SCN_STUCK_ACCEPTED;
            else if (st && !strcmp(st, "Prepared"))
                vol->stuck_in = SCN_STUCK_PREPARED;
            else
                return perr(p, v, "stuck_in: expected New, Accepted or Prepared");
        } else
            return perr(p, v, "volumes entry: unknown key '%s'", k);
    }
    if (vol->uploader == SCN_DATAMOVER) {
        if (!vol->pvc) return perr(p, n, "volumes entry: a datamover volume needs pvc");
    } else if (!vol->pod || !vol->volume) {
        return perr(p, n, "volumes entry: a pod volume needs pod and volume");
    }
    if (!vol->ns) return perr(p, n, "volumes entry: namespace is required");
    return 0;
}

/* operations entry: a plugin operation (scn_op). */
static int parse_op(parse_ctx *p, yaml_node_t *n, scn_run *r)
{
    if (expect_map(p, n, "operations entry")) return -1;
    r->ops = xrealloc(r->ops, (r->n_ops + 1) * sizeof *r->ops);
    scn_op *o = &r->ops[r->n_ops++];
    memset(o, 0, sizeof *o);
    o->total = 100;
    o->rate = 1;
    o->stall_after = -1;
    const char *k;
    yaml_node_t *v;
    double d;
    FOR_PAIRS(p, n, k, v)
    {
        if (!k) return perr(p, v, "operations entry: keys must be strings");
        if (!strcmp(k, "plugin")) {
            if (get_str(p, v, k, &o->plugin)) return -1;
        } else if (!strcmp(k, "resource")) {
            if (get_str(p, v, k, &o->resource)) return -1;
        } else if (!strcmp(k, "namespace")) {
            if (get_str(p, v, k, &o->ns)) return -1;
        } else if (!strcmp(k, "name")) {
            if (get_str(p, v, k, &o->name)) return -1;
        } else if (!strcmp(k, "id")) {
            if (get_str(p, v, k, &o->id)) return -1;
        } else if (!strcmp(k, "units")) {
            if (get_str(p, v, k, &o->units)) return -1;
        } else if (!strcmp(k, "description")) {
            if (get_str(p, v, k, &o->description)) return -1;
        } else if (!strcmp(k, "total")) {
            if (get_bytes(p, v, k, &d)) return -1;
            if (d < 1) return perr(p, v, "total: must be at least 1");
            o->total = (int64_t)d;
        } else if (!strcmp(k, "rate")) {
            if (get_bytes(p, v, k, &d)) return -1;
            if (d <= 0) return perr(p, v, "rate: must be positive");
            o->rate = d;
        } else if (!strcmp(k, "stall_after")) {
            if (get_frac(p, v, k, &o->stall_after)) return -1;
        } else
            return perr(p, v, "operations entry: unknown key '%s'", k);
    }
    if (!o->plugin || !o->resource || !o->name)
        return perr(p, n, "operations entry: plugin, resource and name are required");
    return 0;
}

/* pace: [{at: 2m, factor: 0.3}, {at: 5m, factor: 3}]: the run's speed over its life. */
static int parse_pace(parse_ctx *p, yaml_node_t *n, scn_run *r)
{
    if (n->type != YAML_SEQUENCE_NODE) return perr(p, n, "pace: expected a list");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *e = yaml_document_get_node(p->doc, *it);
        if (expect_map(p, e, "pace entry")) return -1;
        double at = -1, f = -1;
        const char *k;
        yaml_node_t *v;
        FOR_PAIRS(p, e, k, v)
        {
            if (k && !strcmp(k, "at")) {
                if (get_dur(p, v, k, &at)) return -1;
            } else if (k && !strcmp(k, "factor")) {
                if (get_num(p, v, k, &f)) return -1;
            } else
                return perr(p, v, "pace entry: unknown key '%s'", k ? k : "?");
        }
        if (at < 0 || !(f > 0)) return perr(p, e, "pace entry: needs at >= 0 and factor > 0");
        if (r->n_pace && at <= r->pace_at[r->n_pace - 1])
            return perr(p, e, "pace entry: at must grow");
        r->pace_at = xrealloc(r->pace_at, (r->n_pace + 1) * sizeof *r->pace_at);
        r->pace_factor = xrealloc(r->pace_factor, (r->n_pace + 1) * sizeof *r->pace_factor);
        r->pace_at[r->n_pace] = at;
        r->pace_factor[r->n_pace++] = f;
    }
    return 0;
}

/* Parses the fields of a run (or a schedule template when tmpl). */
static int parse_run_fields(parse_ctx *p, yaml_node_t *n, scn_run *r, int tmpl)
{
    if (expect_map(p, n, tmpl ? "template" : "runs entry")) return -1;
    const char *k;
    yaml_node_t *v;
    int have_kind = tmpl;
    FOR_PAIRS(p, n, k, v)
    {
        if (!k) return perr(p, v, "keys must be strings");
        if (!tmpl && !strcmp(k, "kind")) {
            const char *s = scalar(v);
            if (s && !strcmp(s, "backup"))
                r->kind = SCN_BACKUP;
            else if (s && !strcmp(s, "restore"))
                r->kind = SCN_RESTORE;
            else
                return perr(p, v, "kind: expected backup or restore");
            have_kind = 1;
        } else if (!tmpl && !strcmp(k, "name")) {
            if (get_str(p, v, k, &r->name)) return -1;
        } else if (!tmpl && !strcmp(k, "start")) {
            if (get_dur(p, v, k, &r->start)) return -1;
        } else if (!strcmp(k, "outcome")) {
            const char *s = scalar(v);
            if (!s ||
                (strcmp(s, "Completed") && strcmp(s, "PartiallyFailed") && strcmp(s, "Failed")))
                return perr(p, v, "outcome: expected Completed, PartiallyFailed or Failed");
            free(r->outcome);
            r->outcome = xstrdup(s);
        } else if (!strcmp(k, "rate")) {
            if (get_num(p, v, k, &r->rate)) return -1;
            if (r->rate <= 0) return perr(p, v, "rate: must be positive");
        } else if (!strcmp(k, "errors")) {
            if (get_int(p, v, k, &r->errors)) return -1;
        } else if (!strcmp(k, "warnings")) {
            if (get_int(p, v, k, &r->warnings)) return -1;
        } else if (!strcmp(k, "failure_reason")) {
            if (get_str(p, v, k, &r->failure_reason)) return -1;
        } else if (!strcmp(k, "fail_at")) {
            if (get_frac(p, v, k, &r->fail_at)) return -1;
        } else if (!strcmp(k, "ttl")) {
            if (get_dur(p, v, k, &r->ttl)) return -1;
        } else if (!strcmp(k, "storage_location")) {
            if (get_str(p, v, k, &r->storage_location)) return -1;
        } else if (!strcmp(k, "backup")) {
            if (get_str(p, v, k, &r->backup)) return -1;
        } else if (!tmpl && !strcmp(k, "schedule")) {
            if (get_str(p, v, k, &r->schedule)) return -1;
        } else if (!strcmp(k, "jitter")) {
            if (get_frac(p, v, k, &r->jitter)) return -1;
        } else if (!strcmp(k, "pace")) {
            if (parse_pace(p, v, r)) return -1;
        } else if (!strcmp(k, "namespaces")) {
            if (get_strv(p, v, k, &r->namespaces, &r->n_namespaces)) return -1;
        } else if (!strcmp(k, "labels")) {
            if (expect_map(p, v, "labels")) return -1;
            const char *lk;
            yaml_node_t *lvn;
            FOR_PAIRS(p, v, lk, lvn)
            {
                if (!lk || !scalar(lvn)) return perr(p, lvn, "labels: expected key: value");
                r->label_keys = xrealloc(r->label_keys, (r->n_labels + 1) * sizeof(char *));
                r->label_values = xrealloc(r->label_values, (r->n_labels + 1) * sizeof(char *));
                r->label_keys[r->n_labels] = xstrdup(lk);
                r->label_values[r->n_labels++] = xstrdup(scalar(lvn));
            }
        } else if (!strcmp(k, "queued")) {
            if (get_bool(p, v, k, &r->queued)) return -1;
        } else if (!strcmp(k, "hang")) {
            if (get_bool(p, v, k, &r->hang)) return -1;
        } else if (!tmpl && !strcmp(k, "idle_for")) {
            if (get_dur(p, v, k, &r->idle_for)) return -1;
            if (!(r->idle_for > 0)) return perr(p, v, "idle_for: expected a duration above 0");
            r->hang = 1;
        } else if (!strcmp(k, "list_text")) {
            if (get_str(p, v, k, &r->list_text)) return -1;
        } else if (!strcmp(k, "extra_list_keys")) {
            if (get_int(p, v, k, &r->extra_list_keys)) return -1;
            if (r->extra_list_keys < 0 || r->extra_list_keys > 10000000)
                return perr(p, v, "extra_list_keys: 0 to 10000000");
        } else if (!strcmp(k, "hooks")) {
            if (expect_map(p, v, "hooks")) return -1;
            const char *hk;
            yaml_node_t *hv;
            FOR_PAIRS(p, v, hk, hv)
            {
                if (hk && !strcmp(hk, "attempted")) {
                    if (get_int(p, hv, hk, &r->hooks_attempted)) return -1;
                } else if (hk && !strcmp(hk, "failed")) {
                    if (get_int(p, hv, hk, &r->hooks_failed)) return -1;
                } else
                    return perr(p, hv, "hooks: unknown key '%s'", hk ? hk : "?");
            }
        } else if (!strcmp(k, "resources")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "resources: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_resource(p, yaml_document_get_node(p->doc, *it), r)) return -1;
        } else if (!strcmp(k, "volumes")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "volumes: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_volume(p, yaml_document_get_node(p->doc, *it), r)) return -1;
        } else if (!strcmp(k, "operations")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "operations: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_op(p, yaml_document_get_node(p->doc, *it), r)) return -1;
        } else
            return perr(p, v, "%s: unknown key '%s'", tmpl ? "template" : "runs entry", k);
    }
    if (!have_kind) return perr(p, n, "runs entry: kind is required");
    if (!tmpl && (!r->name || !*r->name)) return perr(p, n, "runs entry: name is required");
    if (r->kind == SCN_RESTORE && !r->backup && !tmpl)
        return perr(p, n, "runs entry: a restore needs backup");
    if (r->outcome && !strcmp(r->outcome, "Failed") && !r->failure_reason)
        r->failure_reason = xstrdup("backup failed");
    return 0;
}

static int parse_schedule(parse_ctx *p, yaml_node_t *n, scenario *s)
{
    if (expect_map(p, n, "schedules entry")) return -1;
    s->schedules = xrealloc(s->schedules, (s->n_schedules + 1) * sizeof *s->schedules);
    scn_schedule *sc = &s->schedules[s->n_schedules++];
    memset(sc, 0, sizeof *sc);
    scn_run_defaults(&sc->tmpl);
    const char *k;
    yaml_node_t *v, *cron_node = n;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "name")) {
            if (get_str(p, v, k, &sc->name)) return -1;
        } else if (k && !strcmp(k, "schedule")) {
            if (get_str(p, v, k, &sc->cron)) return -1;
            cron_node = v;
        } else if (k && !strcmp(k, "paused")) {
            if (get_bool(p, v, k, &sc->paused)) return -1;
        } else if (k && !strcmp(k, "created")) {
            if (get_dur(p, v, k, &sc->created)) return -1;
        } else if (k && !strcmp(k, "template")) {
            if (parse_run_fields(p, v, &sc->tmpl, 1)) return -1;
        } else
            return perr(p, v, "schedules entry: unknown key '%s'", k ? k : "?");
    }
    if (!sc->name) return perr(p, n, "schedules entry: name is required");
    if (!sc->cron) return perr(p, n, "schedules entry: schedule is required");
    scn_cron c;
    char cerr[200];
    if (scn_cron_parse(sc->cron, &c, cerr, sizeof cerr)) return perr(p, cron_node, "%s", cerr);
    sc->tmpl.schedule = xstrdup(sc->name);
    return 0;
}

/* velero: {layout, restart_at, restart_reason, exit_code, down_for, concurrent_backups,
 * version} */
static int parse_velero(parse_ctx *p, yaml_node_t *n, scn_cluster *c)
{
    if (expect_map(p, n, "velero")) return -1;
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "layout")) {
            const char *l = scalar(v);
            if (!l || (strcmp(l, "install") && strcmp(l, "helm")))
                return perr(p, v, "layout: expected install or helm");
            c->helm = !strcmp(l, "helm");
        } else if (k && !strcmp(k, "restart_at")) {
            if (get_dur(p, v, k, &c->restart_at)) return -1;
            c->has_restart = 1;
        } else if (k && !strcmp(k, "restart_reason")) {
            if (get_str(p, v, k, &c->restart_reason)) return -1;
        } else if (k && !strcmp(k, "exit_code")) {
            if (get_int(p, v, k, &c->restart_exit_code)) return -1;
        } else if (k && !strcmp(k, "down_for")) {
            if (get_dur(p, v, k, &c->down_for)) return -1;
        } else if (k && !strcmp(k, "version")) {
            if (get_str(p, v, k, &c->version)) return -1;
        } else if (k && !strcmp(k, "concurrent_backups")) {
            if (get_int(p, v, k, &c->concurrent_backups)) return -1;
            if (c->concurrent_backups < 1) return perr(p, v, "concurrent_backups: expected >= 1");
        } else
            return perr(p, v, "velero: unknown key '%s'", k ? k : "?");
    }
    return 0;
}

/* node_agents: {missing: [...], not_ready: [...]} */
static int parse_agents(parse_ctx *p, yaml_node_t *n, scn_cluster *c)
{
    if (expect_map(p, n, "node_agents")) return -1;
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "missing")) {
            if (get_strv(p, v, k, &c->agents_missing, &c->n_agents_missing)) return -1;
        } else if (k && !strcmp(k, "not_ready")) {
            if (get_strv(p, v, k, &c->agents_not_ready, &c->n_agents_not_ready)) return -1;
        } else
            return perr(p, v, "node_agents: unknown key '%s'", k ? k : "?");
    }
    return 0;
}

/* storage_location: {phase, message, at} for the default BSL */
static int parse_bsl(parse_ctx *p, yaml_node_t *n, scn_cluster *c)
{
    if (expect_map(p, n, "storage_location")) return -1;
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "phase")) {
            const char *ph = scalar(v);
            if (!ph || (strcmp(ph, "Available") && strcmp(ph, "Unavailable")))
                return perr(p, v, "phase: expected Available or Unavailable");
            if (get_str(p, v, k, &c->bsl_phase)) return -1;
        } else if (k && !strcmp(k, "message")) {
            if (get_str(p, v, k, &c->bsl_message)) return -1;
        } else if (k && !strcmp(k, "at")) {
            if (get_dur(p, v, k, &c->bsl_at)) return -1;
        } else if (k && !strcmp(k, "name")) {
            if (get_str(p, v, k, &c->bsl_name)) return -1;
        } else
            return perr(p, v, "storage_location: unknown key '%s'", k ? k : "?");
    }
    return 0;
}

static int parse_repo_maint(parse_ctx *p, yaml_node_t *n, scn_repo *r)
{
    if (expect_map(p, n, "recent entry")) return -1;
    r->recent = xrealloc(r->recent, (r->n_recent + 1) * sizeof *r->recent);
    scn_repo_maint *m = &r->recent[r->n_recent++];
    memset(m, 0, sizeof *m);
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "result")) {
            if (get_str(p, v, k, &m->result)) return -1;
            if (strcmp(m->result, "Succeeded") && strcmp(m->result, "Failed"))
                return perr(p, v, "result: expected Succeeded or Failed");
        } else if (k && !strcmp(k, "message")) {
            if (get_str(p, v, k, &m->message)) return -1;
        } else if (k && !strcmp(k, "at")) {
            if (get_dur(p, v, k, &m->at)) return -1;
        } else
            return perr(p, v, "recent entry: unknown key '%s'", k ? k : "?");
    }
    if (!m->result) return perr(p, n, "recent entry: result is required");
    return 0;
}

static int parse_repo_job(parse_ctx *p, yaml_node_t *n, scn_repo *r)
{
    if (expect_map(p, n, "jobs entry")) return -1;
    r->jobs = xrealloc(r->jobs, (r->n_jobs + 1) * sizeof *r->jobs);
    scn_repo_job *j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof *j);
    j->duration = 30;
    int has_start = 0;
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "name")) {
            if (get_str(p, v, k, &j->name)) return -1;
        } else if (k && !strcmp(k, "start")) {
            if (get_dur(p, v, k, &j->start)) return -1;
            has_start = 1;
        } else if (k && !strcmp(k, "duration")) {
            if (get_dur(p, v, k, &j->duration)) return -1;
        } else if (k && !strcmp(k, "result")) {
            if (get_str(p, v, k, &j->result)) return -1;
            if (strcmp(j->result, "Succeeded") && strcmp(j->result, "Failed") &&
                strcmp(j->result, "Running"))
                return perr(p, v, "result: expected Succeeded, Failed or Running");
        } else if (k && !strcmp(k, "message")) {
            if (get_str(p, v, k, &j->message)) return -1;
        } else if (k && !strcmp(k, "ends")) {
            if (get_str(p, v, k, &j->ends)) return -1;
            if (strcmp(j->ends, "Succeeded") && strcmp(j->ends, "Failed"))
                return perr(p, v, "ends: expected Succeeded or Failed");
        } else if (k && !strcmp(k, "log")) {
            if (get_strv(p, v, k, &j->log, &j->n_log)) return -1;
        } else
            return perr(p, v, "jobs entry: unknown key '%s'", k ? k : "?");
    }
    if (!has_start) return perr(p, n, "jobs entry: start is required");
    if (!j->result) return perr(p, n, "jobs entry: result is required");
    if (j->ends && strcmp(j->result, "Running"))
        return perr(p, n, "jobs entry: ends is for a Running job");
    return 0;
}

/* `repositories:` entry: a BackupRepository as Velero's repository controller leaves it. */
static int parse_repo(parse_ctx *p, yaml_node_t *n, scenario *s)
{
    if (expect_map(p, n, "repositories entry")) return -1;
    s->repos = xrealloc(s->repos, (s->n_repos + 1) * sizeof *s->repos);
    scn_repo *r = &s->repos[s->n_repos++];
    memset(r, 0, sizeof *r);
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, n, k, v)
    {
        if (k && !strcmp(k, "name")) {
            if (get_str(p, v, k, &r->name)) return -1;
        } else if (k && !strcmp(k, "volume_namespace")) {
            if (get_str(p, v, k, &r->volume_ns)) return -1;
        } else if (k && !strcmp(k, "bsl")) {
            if (get_str(p, v, k, &r->bsl)) return -1;
        } else if (k && !strcmp(k, "type")) {
            if (get_str(p, v, k, &r->type)) return -1;
        } else if (k && !strcmp(k, "phase")) {
            if (get_str(p, v, k, &r->phase)) return -1;
        } else if (k && !strcmp(k, "message")) {
            if (get_str(p, v, k, &r->message)) return -1;
        } else if (k && !strcmp(k, "maintenance_frequency")) {
            if (get_dur(p, v, k, &r->frequency)) return -1;
        } else if (k && !strcmp(k, "last_maintenance")) {
            if (get_dur(p, v, k, &r->last)) return -1;
            r->has_last = 1;
        } else if (k && !strcmp(k, "recent")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "recent: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_repo_maint(p, yaml_document_get_node(p->doc, *it), r)) return -1;
        } else if (k && !strcmp(k, "jobs")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "jobs: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_repo_job(p, yaml_document_get_node(p->doc, *it), r)) return -1;
        } else
            return perr(p, v, "repositories entry: unknown key '%s'", k ? k : "?");
    }
    if (!r->name) return perr(p, n, "repositories entry: name is required");
    if (!r->volume_ns) return perr(p, n, "repositories entry: volume_namespace is required");
    return 0;
}

static int parse_root(parse_ctx *p, yaml_node_t *root, scenario *s)
{
    if (!root) return 0; /* an empty file is an empty scenario */
    if (expect_map(p, root, "scenario")) return -1;
    const char *k;
    yaml_node_t *v;
    FOR_PAIRS(p, root, k, v)
    {
        if (!k) return perr(p, v, "keys must be strings");
        if (!strcmp(k, "epoch")) {
            const char *t = scalar(v);
            if (!t || kc_parse_time(t, &s->epoch))
                return perr(p, v, "epoch: expected an RFC 3339 time");
            s->has_epoch = 1;
        } else if (!strcmp(k, "namespaces")) {
            if (get_strv(p, v, k, &s->namespaces, &s->n_namespaces)) return -1;
        } else if (!strcmp(k, "velero")) {
            if (parse_velero(p, v, &s->cluster)) return -1;
        } else if (!strcmp(k, "nodes")) {
            if (get_strv(p, v, k, &s->cluster.nodes, &s->cluster.n_nodes)) return -1;
        } else if (!strcmp(k, "node_agents")) {
            if (parse_agents(p, v, &s->cluster)) return -1;
        } else if (!strcmp(k, "storage_location")) {
            if (parse_bsl(p, v, &s->cluster)) return -1;
        } else if (!strcmp(k, "resource_progress")) {
            if (get_bool(p, v, k, &s->resource_progress)) return -1;
        } else if (!strcmp(k, "runs")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "runs: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                yaml_node_t *e = yaml_document_get_node(p->doc, *it);
                scn_run *r = add_run(s);
                if (parse_run_fields(p, e, r, 0)) return -1;
                for (size_t i = 0; i + 1 < s->n_runs; i++)
                    if (s->runs[i].kind == r->kind && !strcmp(s->runs[i].name, r->name))
                        return perr(p, e, "runs entry: duplicate name '%s'", r->name);
            }
        } else if (!strcmp(k, "schedules")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "schedules: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_schedule(p, yaml_document_get_node(p->doc, *it), s)) return -1;
        } else if (!strcmp(k, "repositories")) {
            if (v->type != YAML_SEQUENCE_NODE) return perr(p, v, "repositories: expected a list");
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++)
                if (parse_repo(p, yaml_document_get_node(p->doc, *it), s)) return -1;
        } else
            return perr(p, v, "unknown key '%s'", k);
    }
    return 0;
}

scenario *scenario_parse(const char *text, size_t len, const char *file, char *err, size_t errlen)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "%s:%lu: %s", file, (unsigned long)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "invalid yaml");
        yaml_parser_delete(&parser);
        return NULL;
    }
    scenario *s = xcalloc(1, sizeof *s);
    parse_ctx p = {&doc, file, err, errlen, 0};
    int rc = parse_root(&p, yaml_document_get_root_node(&doc), s);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) {
        scenario_free(s);
        return NULL;
    }
    return s;
}

/* ---- built-in scenarios ---- */

/* splitmix64: a tiny seeded generator so the demo is the same for the same --seed. */
static uint64_t rng_next(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *st)
{
    return (double)(rng_next(st) >> 11) / 9007199254740992.0;
}

static int rng_range(uint64_t *st, int lo, int hi)
{
    return lo + (int)(rng_unit(st) * (hi - lo + 1));
}

static const char *demo_ns[] = {"shop", "payments", "inventory", "auth", "monitoring", "search"};

/* The resource types of a full-cluster backup, in Velero's processing order. */
static const struct {
    const char *name;
    int lo, hi;
} demo_resources[] = {
    {"namespaces", 6, 6},
    {"pods", 60, 140},
    {"persistentvolumeclaims", 8, 16},
    {"persistentvolumes", 8, 16},
    {"serviceaccounts", 10, 30},
    {"secrets", 40, 90},
    {"configmaps", 30, 70},
    {"services", 15, 40},
    {"endpoints", 15, 40},
    {"endpointslices.discovery.k8s.io", 15, 45},
    {"events", 50, 200},
    {"limitranges", 1, 6},
    {"resourcequotas", 1, 6},
    {"deployments.apps", 12, 30},
    {"replicasets.apps", 30, 90},
    {"statefulsets.apps", 3, 8},
    {"daemonsets.apps", 2, 5},
    {"controllerrevisions.apps", 5, 20},
    {"jobs.batch", 5, 25},
    {"cronjobs.batch", 2, 8},
    {"horizontalpodautoscalers.autoscaling", 2, 10},
    {"poddisruptionbudgets.policy", 3, 10},
    {"ingresses.networking.k8s.io", 3, 10},
    {"networkpolicies.networking.k8s.io", 4, 14},
    {"roles.rbac.authorization.k8s.io", 6, 20},
    {"rolebindings.rbac.authorization.k8s.io", 6, 24},
    {"clusterroles.rbac.authorization.k8s.io", 40, 80},
    {"clusterrolebindings.rbac.authorization.k8s.io", 30, 60},
    {"storageclasses.storage.k8s.io", 2, 4},
    {"volumesnapshotclasses.snapshot.storage.k8s.io", 1, 2},
    {"customresourcedefinitions.apiextensions.k8s.io", 15, 40},
    {"leases.coordination.k8s.io", 3, 12},
    {"certificates.cert-manager.io", 4, 12},
    {"issuers.cert-manager.io", 1, 4},
    {"servicemonitors.monitoring.coreos.com", 4, 12},
    {"prometheusrules.monitoring.coreos.com", 2, 8},
};
#define N_DEMO_RES (sizeof demo_resources / sizeof demo_resources[0])

static void demo_fill_resources(scn_run *r, uint64_t *st, size_t nres, double scale)
{
    for (size_t i = 0; i < nres && i < N_DEMO_RES; i++) {
        int n = (int)(rng_range(st, demo_resources[i].lo, demo_resources[i].hi) * scale);
        if (n < 1) n = 1;
        if (!strcmp(demo_resources[i].name, "namespaces")) n = 6;
        int added = !strcmp(demo_resources[i].name, "pods") ? n / 10 : 0;
        add_resource(r, demo_resources[i].name, n, added);
    }
    r->namespaces = strv_dup((char **)demo_ns, 6);
    r->n_namespaces = 6;
}

static scn_volume *demo_pod_volume(scn_run *r, const char *pod, const char *ns, const char *vol,
                                   scn_uploader up, double size, double rate)
{
    scn_volume *v = add_volume(r);
    v->uploader = up;
    v->pod = xstrdup(pod);
    v->ns = xstrdup(ns);
    v->volume = xstrdup(vol);
    v->size = (int64_t)size;
    v->rate = rate;
    return v;
}

static scn_volume *demo_du(scn_run *r, const char *pvc, const char *ns, double size, double rate)
{
    scn_volume *v = add_volume(r);
    v->uploader = SCN_DATAMOVER;
    v->pvc = xstrdup(pvc);
    v->ns = xstrdup(ns);
    v->size = (int64_t)size;
    v->rate = rate;
    return v;
}

static const char *demo_errors[] = {
    ("rpc error: code = Unknown desc = error getting backup storage location: "
     "BackupStorageLocation.velero.io \"default\" not found"),
    "backup failed: error running hook: command terminated with exit code 1",
    "pod volume backup failed: error to initialize data path: timeout on preparing PVB",
};

/* Velero's restore order (config.go defaultRestorePriorities, restore.go getOrderedResources,
 * short names as its discovery resolves them): these first, then the backup's other resources by
 * name; never the ones it does not restore (restore_controller.go nonRestorableResources). */
static const char *restore_first[] = {"customresourcedefinitions.apiextensions.k8s.io",
                                      "namespaces",
                                      "storageclasses.storage.k8s.io",
                                      "volumesnapshotclasses.snapshot.storage.k8s.io",
                                      "volumesnapshotcontents.snapshot.storage.k8s.io",
                                      "volumesnapshots.snapshot.storage.k8s.io",
                                      "datauploads.velero.io",
                                      "persistentvolumes",
                                      "persistentvolumeclaims",
                                      "clusterroles.rbac.authorization.k8s.io",
                                      "roles.rbac.authorization.k8s.io",
                                      "serviceaccounts",
                                      "clusterrolebindings.rbac.authorization.k8s.io",
                                      "rolebindings.rbac.authorization.k8s.io",
                                      "secrets",
                                      "configmaps",
                                      "limitranges",
                                      "priorityclasses.scheduling.k8s.io",
                                      "pods",
                                      "replicasets.apps",
                                      "clusterclasses.cluster.x-k8s.io",
                                      "endpoints",
                                      "services"};

static int res_name_cmp(const void *a, const void *b)
{
    return strcmp((*(const scn_resource *const *)a)->name, (*(const scn_resource *const *)b)->name);
}

/* A demo restore restores what its backup stored (every item, plugin-added ones too), in
 * Velero's order. */
static void demo_restore_of(scn_run *rs, const scn_run *b)
{
    size_t n = b->n_resources, k = 0;
    const scn_resource **rest = xcalloc(n ? n : 1, sizeof *rest);
    for (size_t p = 0; p < sizeof restore_first / sizeof restore_first[0]; p++)
        for (size_t i = 0; i < n; i++)
            if (!strcmp(b->resources[i].name, restore_first[p]))
                add_resource(rs, b->resources[i].name, b->resources[i].items, 0);
    for (size_t i = 0; i < n; i++) {
        const char *nm = b->resources[i].name;
        int first = 0;
        for (size_t p = 0; p < sizeof restore_first / sizeof restore_first[0]; p++)
            first |= !strcmp(nm, restore_first[p]);
        if (!first && strcmp(nm, "events") && strcmp(nm, "nodes")) rest[k++] = &b->resources[i];
    }
    qsort(rest, k, sizeof *rest, res_name_cmp);
    for (size_t i = 0; i < k; i++) add_resource(rs, rest[i]->name, rest[i]->items, 0);
    free(rest);
}

static scenario *demo_build(unsigned seed, time_t now)
{
    uint64_t st = 0x5eed0000ULL + seed;
    scenario *s = xcalloc(1, sizeof *s);
    s->namespaces = strv_dup((char **)demo_ns, 6);
    s->n_namespaces = 6;
    double MiB = 1048576.0, GiB = 1073741824.0;

    /* History: nightly backups at 01:00 over the past three weeks. */
    char last_nightly[64] = "";
    double midnight = (double)(now - now % 86400);
    for (int d = 21; d >= 1; d--) {
        scn_run *r = add_run(s);
        double when = midnight - d * 86400.0 + 3600 + rng_range(&st, 0, 20);
        struct tm tm;
        time_t tw = (time_t)when;
        gmtime_r(&tw, &tm);
        char name[64];
        strftime(name, sizeof name, "nightly-%Y%m%d010000", &tm);
        r->name = xstrdup(name);
        snprintf(last_nightly, sizeof last_nightly, "%s", name);
        r->schedule = xstrdup("nightly");
        r->start = when - (double)now;
        r->rate = 25 + rng_range(&st, 0, 20);
        demo_fill_resources(r, &st, 14 + rng_range(&st, 0, 10), 0.6);
        demo_pod_volume(r, "postgres-0", "payments", "pgdata", SCN_KOPIA,
                        (2.0 + rng_unit(&st)) * GiB, 40 * MiB);
        demo_pod_volume(r, "elasticsearch-0", "search", "data", SCN_KOPIA, 3 * GiB, 60 * MiB);
        demo_du(r, "orders-db", "shop", 4 * GiB, 80 * MiB);
        int roll = rng_range(&st, 0, 9);
        if (d == 4) roll = 0; /* whatever the seed: one Failed and one PartiallyFailed */
        if (d == 2) roll = 1;
        if ((d == 1 || d == 3 || d == 9) && roll == 0) roll = 3; /* restored: not Failed */
        if (roll == 0) {
            r->outcome = xstrdup("Failed");
            r->failure_reason = xstrdup(demo_errors[rng_range(&st, 0, 2)]);
            r->errors = 1;
            r->fail_at = 0.2 + 0.6 * rng_unit(&st);
        } else if (roll <= 2) {
            r->errors = rng_range(&st, 1, 4);
            r->warnings = rng_range(&st, 0, 6);
        } else {
            r->warnings = rng_range(&st, 0, 3);
        }
        r->hooks_attempted = 2;
        r->hooks_failed = r->errors && roll == 1 ? 1 : 0;
        if (d == 3 || d == 9) { /* restores people ran */
            double rstart = r->start;
            scn_run *rs = add_run(s); /* moves r */
            rs->kind = SCN_RESTORE;
            rs->name = xasprintf("%s-%s", name, "restore");
            rs->backup = xstrdup(name);
            rs->start = rstart + 6 * 3600;
            rs->rate = 20;
            demo_restore_of(rs, &s->runs[s->n_runs - 2]);
            rs->namespaces = strv_dup((char **)demo_ns, 6);
            rs->n_namespaces = 6;
            demo_pod_volume(rs, "postgres-0", "payments", "pgdata", SCN_KOPIA, 1.5 * GiB, 50 * MiB);
            if (d == 9) rs->warnings = 3;
        }
    }

    /* The big one, in flight. */
    scn_run *big = add_run(s);
    big->name = xstrdup("full-cluster-migration");
    big->start = -240;
    big->rate = 1.0;
    big->warnings = 4;
    big->hooks_attempted = 4;
    demo_fill_resources(big, &st, N_DEMO_RES, 1.0);
    demo_pod_volume(big, "postgres-0", "payments", "pgdata", SCN_KOPIA, 12 * GiB, 15 * MiB);
    demo_pod_volume(big, "postgres-1", "payments", "pgdata", SCN_KOPIA, 12 * GiB, 14 * MiB);
    demo_pod_volume(big, "elasticsearch-0", "search", "data", SCN_KOPIA, 20 * GiB, 24 * MiB);
    demo_pod_volume(big, "prometheus-0", "monitoring", "storage", SCN_KOPIA, 8 * GiB, 11 * MiB);
    demo_pod_volume(big, "redis-0", "shop", "data", SCN_RESTIC, 2 * GiB, 4 * MiB);
    scn_volume *stall =
        demo_pod_volume(big, "minio-0", "inventory", "export", SCN_RESTIC, 5 * GiB, 9 * MiB);
    stall->stall_after = 0.35;
    stall->stall_for = 420;
    demo_du(big, "orders-db", "shop", 40 * GiB, 40 * MiB);
    demo_du(big, "catalog-images", "inventory", 25 * GiB, 30 * MiB);

    /* A restore in flight with pod volume restores. */
    scn_run *rs = add_run(s);
    rs->kind = SCN_RESTORE;
    rs->name = xstrdup("payments-restore-drill");
    rs->backup = xstrdup(last_nightly);
    rs->start = -60;
    rs->rate = 1.5;
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->runs[i].kind == SCN_BACKUP && !strcmp(s->runs[i].name, last_nightly))
            demo_restore_of(rs, &s->runs[i]);
    rs->namespaces = strv_dup((char **)demo_ns, 6);
    rs->n_namespaces = 6;
    demo_pod_volume(rs, "postgres-0", "payments", "pgdata", SCN_KOPIA, 6 * GiB, 22 * MiB);
    demo_pod_volume(rs, "ledger-0", "payments", "journal", SCN_KOPIA, 1 * GiB, 9 * MiB);
    demo_du(rs, "payments-archive", "payments", 3 * GiB, 15 * MiB);

    /* The schedule of the nightly history (it fires again at 01:00 while the demo runs), and one
     * that starts a small backup every few minutes. */
    s->schedules = xcalloc(2, sizeof *s->schedules);
    s->n_schedules = 2;
    scn_schedule *nightly = &s->schedules[1];
    nightly->name = xstrdup("nightly");
    nightly->cron = xstrdup("0 1 * * *");
    nightly->created = -30 * 86400.0;
    scn_run_defaults(&nightly->tmpl);
    nightly->tmpl.schedule = xstrdup("nightly");
    nightly->tmpl.rate = 30;
    demo_fill_resources(&nightly->tmpl, &st, 16, 0.6);
    scn_schedule *sc = &s->schedules[0];
    sc->name = xstrdup("frequent");
    sc->cron = xstrdup("*/5 * * * *");
    scn_run_defaults(&sc->tmpl);
    sc->tmpl.schedule = xstrdup("frequent");
    sc->tmpl.rate = 4;
    sc->tmpl.namespaces = strv_dup((char **)demo_ns, 2);
    sc->tmpl.n_namespaces = 2;
    add_resource(&sc->tmpl, "namespaces", 2, 0);
    add_resource(&sc->tmpl, "pods", 24, 2);
    add_resource(&sc->tmpl, "deployments.apps", 8, 0);
    add_resource(&sc->tmpl, "services", 8, 0);
    add_resource(&sc->tmpl, "configmaps", 14, 0);
    add_resource(&sc->tmpl, "secrets", 12, 0);
    add_resource(&sc->tmpl, "persistentvolumeclaims", 2, 0);
    demo_pod_volume(&sc->tmpl, "redis-0", "shop", "data", SCN_KOPIA, 300 * MiB, 5 * MiB);
    return s;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    kc_buf b = {0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) kc_buf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return kc_buf_cstr(&b);
}

scenario *scenario_load(const char *name, unsigned seed, char *err, size_t errlen)
{
    return scenario_load_at(name, seed, (double)time(NULL), err, errlen);
}

scenario *scenario_load_at(const char *name, unsigned seed, double now, char *err, size_t errlen)
{
    if (!name || !strcmp(name, "demo")) return demo_build(seed, (time_t)now);
    if (!strcmp(name, "empty")) return xcalloc(1, sizeof(scenario));
    const char *world = simworlds_text(name);
    if (world) return scenario_parse(world, strlen(world), name, err, errlen);
    size_t len;
    char *text = read_file(name, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read scenario %s: %s", name, strerror(errno));
        return NULL;
    }
    scenario *s = scenario_parse(text, len, name, err, errlen);
    free(text);
    return s;
}

/* ---- cron ---- */

static int cron_field(const char *f, int lo, int hi, uint64_t *bits)
{
    *bits = 0;
    char *copy = xstrdup(f), *save = NULL;
    int rc = 0;
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        int a = lo, b = hi, step = 1;
        char *slash = strchr(part, '/');
        if (slash) {
            *slash = '\0';
            char *end;
            step = (int)strtol(slash + 1, &end, 10);
            if (*end || step < 1) rc = -1;
        }
        if (strcmp(part, "*")) {
            char *end;
            a = (int)strtol(part, &end, 10);
            if (end == part) rc = -1;
            if (*end == '-') {
                char *e2;
                b = (int)strtol(end + 1, &e2, 10);
                if (*e2 || e2 == end + 1) rc = -1;
            } else if (*end) {
                rc = -1;
            } else {
                b = slash ? hi : a;
            }
        }
        if (rc || a < lo || b > hi || a > b) {
            rc = -1;
            break;
        }
        for (int i = a; i <= b; i += step) *bits |= 1ULL << i;
    }
    free(copy);
    return rc;
}

int scn_cron_parse(const char *spec, scn_cron *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!strncmp(spec, "@every ", 7)) {
        double d;
        if (scn_parse_duration(spec + 7, &d) || d < 1 || d > 365 * 86400.0) {
            snprintf(err, errlen,
                     "bad schedule '%s': expected @every <duration> like 5m, at most 365d", spec);
            return -1;
        }
        c->every = (int)d;
        return 0;
    }
    const char *alias = !strcmp(spec, "@hourly")     ? "0 * * * *"
                        : !strcmp(spec, "@daily")    ? "0 0 * * *"
                        : !strcmp(spec, "@midnight") ? "0 0 * * *"
                        : !strcmp(spec, "@weekly")   ? "0 0 * * 0"
                                                     : spec;
    char f[5][64];
    if (sscanf(alias, "%63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4]) != 5 ||
        cron_field(f[0], 0, 59, &c->min) || cron_field(f[1], 0, 23, &c->hour) ||
        cron_field(f[2], 1, 31, &c->dom) || cron_field(f[3], 1, 12, &c->mon) ||
        cron_field(f[4], 0, 7, &c->dow)) {
        snprintf(err, errlen, "bad schedule '%s': expected 5 cron fields or @every", spec);
        return -1;
    }
    if (c->dow & (1ULL << 7)) c->dow |= 1; /* 7 is Sunday too */
    return 0;
}

double scn_cron_next(const scn_cron *c, double origin, double t)
{
    if (c->every) {
        double k = floor((t - origin) / c->every) + 1;
        if (k < 1) k = 1;
        return origin + k * c->every;
    }
    time_t m = (time_t)floor(t / 60) * 60 + 60;
    for (int i = 0; i < 366 * 24 * 60; i++, m += 60) {
        struct tm tm;
        gmtime_r(&m, &tm);
        if ((c->min >> tm.tm_min & 1) && (c->hour >> tm.tm_hour & 1) &&
            (c->dom >> tm.tm_mday & 1) && (c->mon >> (tm.tm_mon + 1) & 1) &&
            (c->dow >> tm.tm_wday & 1))
            return (double)m;
    }
    return INFINITY;
}
