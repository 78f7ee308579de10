/* model.c: the program's model: runs and volumes as the stores last decoded them, each with its
 * progress trackers (estimator.h), volumes joined to runs by label, and the list's view (sort,
 * filter, selection that follows a run by name). No curses here: tests drive it by hand. */
#include "app.h"

#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "itemops.h"
#include "kubeclient/sat.h"
#include "kubeclient/util.h"

/* A chained hash index (kind, name) -> object: 10 000 runs and 50 000 volumes must not make
 * every event a linear search. The nodes are intrusive: each run is one allocation holding its
 * index node, its record and its name (model_run_block), each volume one holding its node and its
 * record (model_vol_block; its name is its decoded state's), and a node keeps only its link and
 * hash, the key being read from the record that follows it: 50 000 volumes cost 64 bytes and one
 * malloc each here instead of ~130 bytes in three. */
typedef struct model_node {
    struct model_node *next;
    uint32_t h;
} model_node;

/* What an index's nodes are, and so which key follows them. */
enum { MODEL_IX_VOLS, MODEL_IX_RUNS, MODEL_IX_LABELS };

typedef struct model_index {
    model_node **b;
    size_t nb, n;
    int runs; /* MODEL_IX_*: the nodes are model_vol_block's, model_run_block's, model_alias's */
} model_index;

typedef struct model_run_block {
    model_node node;
    model_run r;
    char name[];
} model_run_block;

/* A run whose name is over 63 characters has a label value (GetValidName) unlike its name: it is
 * indexed by it through this node, which sits in the run's own block after its name. */
typedef struct model_alias {
    model_node node;
    model_run *r;
    char label[VL_LABEL_MAX + 1];
} model_alias;

typedef struct model_vol_block {
    model_node node;
    model_volume v;
} model_vol_block;

#define MODEL_BLOCK_OF(type, member, p) ((type *)(void *)((char *)(p)-offsetof(type, member)))

static uint32_t model_hash(int kind, const char *name)
{
    uint32_t h = 2166136261u ^ (uint32_t)kind;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

static model_index *model_index_new(int runs)
{
    model_index *ix = xcalloc(1, sizeof(*ix));
    ix->nb = 256;
    ix->b = xcalloc(ix->nb, sizeof(*ix->b));
    ix->runs = runs;
    return ix;
}

/* The nodes belong to their objects' blocks: freed with them. */
static void model_index_free(model_index *ix)
{
    if (!ix) return;
    free(ix->b);
    free(ix);
}

/* The record after node n, and whether its key is (kind, name). */
static void *model_node_obj(const model_index *ix, model_node *n, int kind, const char *name)
{
    if (ix->runs == MODEL_IX_RUNS) {
        model_run *r = &MODEL_BLOCK_OF(model_run_block, node, n)->r;
        return (int)r->kind == kind && !strcmp(r->name, name) ? r : NULL;
    }
    if (ix->runs == MODEL_IX_LABELS) {
        model_alias *a = MODEL_BLOCK_OF(model_alias, node, n);
        return (int)a->r->kind == kind && !strcmp(a->label, name) ? a->r : NULL;
    }
    model_volume *v = &MODEL_BLOCK_OF(model_vol_block, node, n)->v;
    return (int)v->kind == kind && !strcmp(v->name, name) ? v : NULL;
}

static void *model_index_get(const model_index *ix, int kind, const char *name)
{
    uint32_t h = model_hash(kind, name);
    void *obj;
    for (model_node *n = ix->b[h & (ix->nb - 1)]; n; n = n->next)
        if (n->h == h && (obj = model_node_obj(ix, n, kind, name))) return obj;
    return NULL;
}

static void model_index_put(model_index *ix, model_node *n, int kind, const char *name)
{
    if (ix->n >= ix->nb) {
        size_t nb = ix->nb * 2;
        model_node **b = xcalloc(nb, sizeof(*b));
        for (size_t i = 0; i < ix->nb; i++) {
            model_node *e = ix->b[i];
            while (e) {
                model_node *next = e->next;
                e->next = b[e->h & (nb - 1)];
                b[e->h & (nb - 1)] = e;
                e = next;
            }
        }
        free(ix->b);
        ix->b = b;
        ix->nb = nb;
    }
    n->h = model_hash(kind, name);
    n->next = ix->b[n->h & (ix->nb - 1)];
    ix->b[n->h & (ix->nb - 1)] = n;
    ix->n++;
}

/* Unlinks node n (in the index). */
static void model_index_del(model_index *ix, model_node *n)
{
    for (model_node **pp = &ix->b[n->h & (ix->nb - 1)]; *pp; pp = &(*pp)->next) {
        if (*pp == n) {
            *pp = n->next;
            ix->n--;
            return;
        }
    }
}

static void model_join_add(model *m, model_volume *v);
static void model_join_orphans(model *m, model_run *r);
static void model_orphans_free(struct model_orphans *o);
static const est_opts model_items_opts = {60.0, 1.0};
static const est_opts model_bytes_opts = {60.0, 10.0};

model *model_new(void)
{
    model *m = xcalloc(1, sizeof(model));
    m->run_index = model_index_new(MODEL_IX_RUNS);
    m->vol_index = model_index_new(MODEL_IX_VOLS);
    m->label_index = model_index_new(MODEL_IX_LABELS);
    m->idle_est = est_new(&model_items_opts);
    est_finish(m->idle_est, 0, 0); /* rate and ETA unknown (-1) */
    m->join_gen = 1;               /* the runs' volume lists are to be built */
    m->hist_gen = 1;
    return m;
}

static void model_res_free(model_res *res, size_t n, const est *idle)
{
    for (size_t i = 0; i < n; i++) {
        free(res[i].resource);
        if (res[i].est != idle) est_free(res[i].est);
    }
    free(res);
}

static void model_run_free(model_run *r, const est *idle)
{
    if (!r) return;
    free(r->moves);
    if (r->items != idle) est_free(r->items);
    model_res_free(r->res, r->n_res, idle);
    model_res_free(r->derived, r->n_derived, idle);
    free(r->res_note);
    itemops_free(r->item_ops);
    free(r->joined);
    free(MODEL_BLOCK_OF(model_run_block, r, r));
}

static void model_volume_free(model_volume *v, const est *idle)
{
    if (!v) return;
    if (v->bytes != idle) est_free(v->bytes);
    free(MODEL_BLOCK_OF(model_vol_block, v, v));
}

void model_free(model *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n_runs; i++) model_run_free(m->runs[i], m->idle_est);
    for (size_t i = 0; i < m->n_vols; i++) model_volume_free(m->vols[i], m->idle_est);
    est_free(m->idle_est);
    free(m->runs);
    free(m->vols);
    free(m->hist);
    model_orphans_free(m->orphans);
    model_index_free(m->run_index);
    model_index_free(m->vol_index);
    model_index_free(m->label_index);
    free(m);
}

model_run *model_find_run(const model *m, vl_kind kind, const char *name)
{
    if (!name) return NULL;
    return model_index_get(m->run_index, (int)kind, name);
}

/* Finds or adds the tracked row of one resource. */
/* A row name and where it is (rows or input), for the sorted lookups below. */
typedef struct model_key {
    const char *name;
    size_t pos;
} model_key;

static int model_key_cmp(const void *a, const void *b)
{
    const model_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* in's names sorted (with their positions; NULL names left out): for bsearch. */
static model_key *model_keys_of(const vl_res_progress *in, size_t nin, size_t *nk)
{
    model_key *k = xmalloc((nin ? nin : 1) * sizeof *k);
    *nk = 0;
    for (size_t i = 0; i < nin; i++)
        if (in[i].resource) k[(*nk)++] = (model_key){in[i].resource, i};
    qsort(k, *nk, sizeof *k, model_key_cmp);
    return k;
}

static const model_key *model_keys_find(const model_key *k, size_t nk, const char *name)
{
    size_t lo = 0, hi = nk;
    while (lo < hi) { /* the first of that name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(k[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nk && !strcmp(k[lo].name, name) ? &k[lo] : NULL;
}

/* idle: the shared tracker for rows of a finished run (no history needed), NULL otherwise.
 * Rows are found by name through sorted indexes, O((rows + nin) log): a list of thousands of
 * resource types (KC_CAP_RESOURCE_ROWS) costs no quadratic search. New names are appended in
 * input order; a name given twice updates its row twice, the last one wins. */
static void model_res_feed(model_res **res, uint32_t *n, const vl_res_progress *in, size_t nin,
                           const unsigned char *flags, double now, est *idle, const est *shared)
{
    size_t n0 = *n, nk;
    model_key *old = xmalloc((n0 ? n0 : 1) * sizeof *old);
    for (size_t i = 0; i < n0; i++) old[i] = (model_key){(*res)[i].resource, i};
    qsort(old, n0, sizeof *old, model_key_cmp);
    model_key *ink = model_keys_of(in, nin, &nk);
    /* per input position: its row (an existing one), or SIZE_MAX and the first position of its
     * name (lead), whose row is made when the input reaches it */
    size_t *row = xmalloc((nin ? nin : 1) * 2 * sizeof *row), *lead = row + (nin ? nin : 1);
    for (size_t i = 0; i < nin; i++) row[i] = lead[i] = SIZE_MAX;
    for (size_t a = 0; a < nk;) {
        size_t b = a + 1;
        while (b < nk && !strcmp(ink[b].name, ink[a].name)) b++;
        const model_key *o = model_keys_find(old, n0, ink[a].name);
        for (size_t g = a; g < b; g++) {
            if (o)
                row[ink[g].pos] = o->pos;
            else
                lead[ink[g].pos] = ink[a].pos; /* sorted by position within the name */
        }
        a = b;
    }
    free(old);
    free(ink);
    if (nin) *res = xrealloc(*res, (n0 + nin) * sizeof(model_res));
    for (size_t i = 0; i < nin; i++) {
        if (!in[i].resource) continue;
        if (row[i] == SIZE_MAX) {
            size_t l = lead[i];
            if (l == i) { /* a new name: its row, in input order */
                model_res *r = &(*res)[*n];
                r->resource = xstrdup(in[i].resource);
                r->done = r->total = 0;
                r->est = idle ? idle : est_new(&model_items_opts);
                r->flags = 0;
                row[i] = (*n)++;
            } else {
                row[i] = row[l];
            }
        }
        model_res *r = &(*res)[row[i]];
        r->done = in[i].processed;
        r->total = in[i].total;
        r->flags = flags ? flags[i] : 0;
        if (r->est != shared) est_sample(r->est, now, r->done, r->total);
    }
    free(row);
}

/* The phase as veltop sees it now: the first sight, a change, or (Queued) a new position. */
static void model_run_seen(model *m, model_run *mr, const vl_run *r, double wall)
{
    model_seen s = {
        model_cluster_now(m, wall),
        r->queue_position > 0 && r->queue_position < INT32_MAX ? (int32_t)r->queue_position : 0,
        (uint8_t)r->phase_id};
    if (mr->first_seen.at <= 0) {
        mr->first_seen = s;
        return;
    }
    model_seen *last = mr->n_moves ? &mr->moves[mr->n_moves - 1] : &mr->first_seen;
    if (last->phase == s.phase) {
        if (s.queue_pos) last->queue_pos = s.queue_pos; /* moved up the queue */
        return;
    }
    if (!mr->moves) mr->moves = xcalloc(MODEL_MOVES_MAX, sizeof *mr->moves);
    if (mr->n_moves == MODEL_MOVES_MAX) mr->n_moves--; /* flapping: keep the newest */
    mr->moves[mr->n_moves++] = s;
}

/* A run's place in its schedule's history: 0 when it has none (not a finished backup of a
 * schedule with both times), else a hash of what places it (schedule, start, end, phase). */
static uint64_t model_hist_key(vl_kind kind, const vl_run *r)
{
    if (kind != VL_BACKUP || !r->schedule || !*r->schedule ||
        (r->phase_id != VL_PH_COMPLETED && r->phase_id != VL_PH_PARTIALLY_FAILED) ||
        r->started <= 0 || r->completed <= r->started)
        return 0;
    uint64_t h = 1469598103934665603ull ^ (uint64_t)r->phase_id;
    for (const unsigned char *p = (const unsigned char *)r->schedule; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    double t[2] = {r->started, r->completed};
    const unsigned char *b = (const unsigned char *)t;
    for (size_t i = 0; i < sizeof t; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h | 1;
}

model_run *model_upsert_run(model *m, const vl_run *r, double now, double wall)
{
    const char *name = r->meta.name ? r->meta.name : "";
    model_run *mr = model_find_run(m, r->kind, name);
    int fresh = 0;
    if (!mr) {
        if (m->n_runs == m->cap_runs) {
            m->cap_runs = m->cap_runs ? m->cap_runs * 2 : 64;
            m->runs = xrealloc(m->runs, m->cap_runs * sizeof(*m->runs));
        }
        size_t nl = strlen(name) + 1;
        /* a long name's alias (label value and index node) follows the name, aligned */
        size_t at = (sizeof(model_run_block) + nl + _Alignof(model_alias) - 1) &
                    ~(_Alignof(model_alias) - 1);
        int alias = nl - 1 > VL_LABEL_MAX;
        model_run_block *blk = xcalloc(1, alias ? at + sizeof(model_alias) : sizeof(*blk) + nl);
        mr = &blk->r;
        mr->kind = r->kind;
        mr->name = memcpy(blk->name, name, nl);
        mr->label = mr->name;
        if (alias) {
            model_alias *a = (model_alias *)(void *)((char *)blk + at);
            a->r = mr;
            mr->label = vl_valid_label(name, a->label);
            model_index_put(m->label_index, &a->node, (int)mr->kind, a->label);
        }
        /* first seen finished: no history is ever needed */
        mr->items = vl_phase_terminal(r->phase_id) ? m->idle_est : est_new(&model_items_opts);
        mr->attached = now;
        mr->owner = m;
        mr->pos = m->n_runs;
        m->runs[m->n_runs++] = mr;
        model_index_put(m->run_index, &blk->node, (int)mr->kind, mr->name);
        m->vols_dirty = 1;
        fresh = 1;
    }
    mr->run = r;
    uint32_t uh = r->meta.uid && *r->meta.uid ? vl_uid_hash(r->meta.uid) : 0;
    if (fresh) {
        mr->uid_hash = uh;
        /* its volumes are among the orphans, unless its name is another run's label too (then
         * it may take volumes joined to that one: everything is joined again) */
        if (m->join_built == m->join_gen &&
            !model_index_get(m->label_index, (int)mr->kind, mr->name))
            model_join_orphans(m, mr);
        else
            m->join_gen++;
    } else if (uh != mr->uid_hash) { /* created again under its name: its volumes are others */
        mr->uid_hash = uh;
        m->join_gen++;
    }
    uint64_t hk = model_hist_key(mr->kind, r);
    if (hk != mr->hist_key) {
        mr->hist_key = hk;
        m->hist_gen++;
    }
    model_run_seen(m, mr, r, wall);
    if (mr->items == m->idle_est && !vl_phase_terminal(r->phase_id)) {
        mr->items = est_new(&model_items_opts); /* came back to life (re-created) */
        mr->finished = 0;
    }
    if (!mr->finished) {
        if (vl_phase_terminal(r->phase_id)) {
            if (r->started > 0 && r->completed >= r->started && mr->items != m->idle_est)
                est_finish(mr->items, r->items_done, model_wall_span(m, r->completed - r->started));
            mr->finished = 1;
        } else if (!mr->seeded && r->started > 0 && r->items_done > 0 &&
                   model_cluster_now(m, wall) > r->started) {
            /* attached to a run already in flight: the average since its start gives an ETA now */
            est_seed(mr->items, now, r->items_done,
                     model_wall_span(m, model_cluster_now(m, wall) - r->started));
            est_sample(mr->items, now, r->items_done, r->items_total);
            mr->seeded = 1;
        } else {
            mr->seeded = 1;
            est_sample(mr->items, now, r->items_done, r->items_total);
        }
    }
    if (r->has_resource_progress)
        model_res_feed(&mr->res, &mr->n_res, r->resources, r->n_resources, NULL, now,
                       mr->items == m->idle_est ? m->idle_est : NULL, m->idle_est);
    m->gen++;
    return mr;
}

void model_remove_run(model *m, vl_kind kind, const char *name)
{
    model_run *r = model_find_run(m, kind, name);
    if (!r) return;
    size_t i = r->pos;
    model_index_del(m->run_index, &MODEL_BLOCK_OF(model_run_block, r, r)->node);
    if (r->label != r->name)
        model_index_del(m->label_index, &MODEL_BLOCK_OF(model_alias, label, r->label)->node);
    if (r->hist_key) m->hist_gen++;
    model_run_free(r, m->idle_est);
    m->runs[i] = m->runs[--m->n_runs];
    if (i < m->n_runs) m->runs[i]->pos = i;
    m->vols_dirty = 1;
    m->join_gen++;
    m->gen++;
}

void model_upsert_volume(model *m, const vl_volume *v, double now)
{
    const char *name = v->meta.name ? v->meta.name : "";
    model_volume *mv = model_index_get(m->vol_index, (int)v->kind, name);
    int fresh = mv == NULL;
    if (fresh) {
        if (m->n_vols == m->cap_vols) {
            m->cap_vols = m->cap_vols ? m->cap_vols * 2 : 64;
            m->vols = xrealloc(m->vols, m->cap_vols * sizeof(*m->vols));
        }
        model_vol_block *blk = xmalloc(sizeof(*blk));
        mv = &blk->v;
        mv->kind = v->kind;
        mv->name = (char *)name;
        mv->bytes = vl_phase_terminal(v->phase_id) ? m->idle_est : est_new(&model_bytes_opts);
        mv->pos = m->n_vols;
        m->vols[m->n_vols++] = mv;
        model_index_put(m->vol_index, &blk->node, (int)mv->kind, mv->name);
    }
    mv->vol = v;
    mv->name = (char *)name; /* the same text, in the state that replaces the one it was in */
    uint32_t key = (v->run_name ? vl_uid_hash(v->run_name) : 0) * 31u + v->run_uid_hash + 1;
    if (fresh) { /* joined now if the joins are current, else with the rest */
        mv->join_key = key;
        if (m->join_built == m->join_gen)
            model_join_add(m, mv);
        else
            m->join_gen++;
    } else if (key != mv->join_key) { /* relabelled: the joins change */
        mv->join_key = key;
        m->join_gen++;
    }
    double wall = model_cluster_now(m, kc_wall_now()); /* the cluster's clock */
    if (mv->bytes == m->idle_est) {
        if (vl_phase_terminal(v->phase_id)) goto done;
        mv->bytes = est_new(&model_bytes_opts);
    }
    if (vl_phase_terminal(v->phase_id) && v->started > 0 && v->completed >= v->started) {
        est_finish(mv->bytes, v->bytes_done, model_wall_span(m, v->completed - v->started));
    } else if (fresh && vl_phase_active(v->phase_id) && v->started > 0 && v->bytes_done > 0 &&
               wall > v->started) {
        /* attached while it moves: the average since its start gives a rate at once */
        est_seed(mv->bytes, now, v->bytes_done, model_wall_span(m, wall - v->started));
        est_sample(mv->bytes, now, v->bytes_done, v->bytes_total);
    } else {
        est_sample(mv->bytes, now, v->bytes_done, v->bytes_total);
    }
done:
    m->vols_dirty = 1;
    m->gen++;
}

void model_remove_volume(model *m, vl_kind kind, const char *name)
{
    model_volume *v = model_index_get(m->vol_index, (int)kind, name);
    if (!v) return;
    size_t i = v->pos;
    model_index_del(m->vol_index, &MODEL_BLOCK_OF(model_vol_block, v, v)->node);
    model_volume_free(v, m->idle_est);
    m->vols[i] = m->vols[--m->n_vols];
    if (i < m->n_vols) m->vols[i]->pos = i;
    m->vols_dirty = 1;
    m->join_gen++;
    m->gen++;
}

/* A volume whose run-uid label names another uid than run r's belongs to another run of the same
 * name (deleted and created again) or to another run with the same label value. */
static int model_uid_ok(const vl_volume *v, const model_run *r)
{
    const char *uid = r->run ? r->run->meta.uid : NULL;
    return !v->run_uid_hash || !uid || !*uid || v->run_uid_hash == vl_uid_hash(uid);
}

static int model_volume_of(const model_volume *v, const model_run *r)
{
    vl_kind k = v->kind;
    int backup = k == VL_PVB || k == VL_DU;
    if ((r->kind == VL_BACKUP) != backup) return 0;
    return v->vol && v->vol->run_name && !strcmp(v->vol->run_name, r->label) &&
           model_uid_ok(v->vol, r);
}

/* The run of kind rk volume v joins: by its run-name label (a run's name when up to 63
 * characters, else its GetValidName alias), checked against its run-uid label. */
static model_run *model_run_of(const model *m, const vl_volume *v, vl_kind rk)
{
    model_run *c[2] = {model_find_run(m, rk, v->run_name),
                       model_index_get(m->label_index, (int)rk, v->run_name)};
    if (c[0] && c[0]->label != c[0]->name) c[0] = NULL; /* its label is its alias */
    for (int i = 0; i < 2; i++)
        if (c[i] && model_uid_ok(v, c[i])) return c[i];
    return NULL;
}

/* The run volume v joins, or NULL. */
static model_run *model_join_run(const model *m, const model_volume *v)
{
    if (!v->vol || !v->vol->run_name) return NULL;
    vl_kind rk = (v->kind == VL_PVB || v->kind == VL_DU) ? VL_BACKUP : VL_RESTORE;
    model_run *r = model_run_of(m, v->vol, rk);
    return r && model_volume_of(v, r) ? r : NULL;
}

static void model_join_push(model_volume ***list, uint32_t *n, uint32_t *cap, model_volume *v)
{
    if (*n == *cap) {
        *cap = *cap + *cap / 2 + 2; /* 2, 5, 9: a backup of five volumes wastes no slot */
        *list = xrealloc(*list, *cap * sizeof(**list));
    }
    (*list)[(*n)++] = v;
}

/* The orphans: a chained hash of the label each names, entries in the order they came (the
 * volumes' order); an entry taken by its run is emptied, and all are dropped at the next full
 * join. */
typedef struct model_orphan {
    model_volume *v; /* NULL once taken */
    uint32_t h;
    int next; /* the next entry of the chain, -1 none */
} model_orphan;

struct model_orphans {
    model_orphan *e;
    size_t n, cap;
    int *head; /* nb chains */
    size_t nb;
};

static void model_orphans_free(struct model_orphans *o)
{
    if (!o) return;
    free(o->e);
    free(o->head);
    free(o);
}

static void model_orphans_clear(model *m)
{
    struct model_orphans *o = m->orphans;
    m->n_orphans = 0;
    if (!o) return;
    o->n = 0;
    for (size_t i = 0; i < o->nb; i++) o->head[i] = -1;
}

static void model_orphans_link(struct model_orphans *o, size_t i)
{
    size_t b = o->e[i].h & (o->nb - 1);
    o->e[i].next = o->head[b];
    o->head[b] = (int)i;
}

static void model_orphans_add(model *m, model_volume *v)
{
    if (!m->orphans) m->orphans = xcalloc(1, sizeof *m->orphans);
    struct model_orphans *o = m->orphans;
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->e = xrealloc(o->e, o->cap * sizeof *o->e);
    }
    if (o->n >= o->nb) { /* as many chains as entries */
        o->nb = o->nb ? o->nb * 2 : 64;
        o->head = xrealloc(o->head, o->nb * sizeof *o->head);
        for (size_t i = 0; i < o->nb; i++) o->head[i] = -1;
        for (size_t i = 0; i < o->n; i++) model_orphans_link(o, i);
    }
    o->e[o->n] = (model_orphan){v, model_hash(0, v->vol->run_name), -1};
    model_orphans_link(o, o->n++);
    m->n_orphans++;
}

/* Volume v, the last in m->vols, joined to its run, or kept as an orphan if it names one. */
static void model_join_add(model *m, model_volume *v)
{
    model_run *r = model_join_run(m, v);
    if (r)
        model_join_push(&r->joined, &r->n_joined, &r->cap_joined, v);
    else if (v->vol && v->vol->run_name)
        model_orphans_add(m, v);
}

static int model_vol_pos_cmp(const void *a, const void *b)
{
    size_t pa = (*(model_volume *const *)a)->pos, pb = (*(model_volume *const *)b)->pos;
    return pa < pb ? -1 : pa > pb;
}

/* Run r came: the orphans that name its label join it, in the volumes' order (as a full build
 * would have them). */
static void model_join_orphans(model *m, model_run *r)
{
    struct model_orphans *o = m->orphans;
    if (!o || !m->n_orphans) return;
    uint32_t h = model_hash(0, r->label);
    for (int i = o->head[h & (o->nb - 1)]; i >= 0; i = o->e[i].next) {
        model_orphan *e = &o->e[i];
        if (!e->v || e->h != h || strcmp(e->v->vol->run_name, r->label)) continue;
        model_run *to = model_join_run(m, e->v);
        if (!to) continue;
        model_join_push(&to->joined, &to->n_joined, &to->cap_joined, e->v);
        e->v = NULL;
        m->n_orphans--;
    }
    if (r->n_joined > 1) qsort(r->joined, r->n_joined, sizeof *r->joined, model_vol_pos_cmp);
}

/* Every run's volume list, in one pass over the volumes (in their order), when the joins
 * changed since the last build: the run answer, runeta and the diagnosis each ask for a run's
 * volumes, for every row on screen and every run in flight, and a pass over 50 000 volumes per
 * ask cost a scrape 65 ms. The lists are a cache of what model_volume_of says, so the const
 * model may build them. */
static void model_join_refresh(const model *cm)
{
    if (cm->join_built == cm->join_gen) return;
    model *m = (model *)cm;
    for (size_t i = 0; i < m->n_runs; i++) m->runs[i]->n_joined = 0;
    model_orphans_clear(m);
    for (size_t j = 0; j < m->n_vols; j++) model_join_add(m, m->vols[j]);
    m->join_built = m->join_gen;
}

size_t model_run_volumes(const model *m, const model_run *r, model_volume **out, size_t max)
{
    model_join_refresh(m);
    if (out)
        for (size_t i = 0; i < r->n_joined && i < max; i++) out[i] = r->joined[i];
    return r->n_joined;
}

/* By schedule, then start (ties by name): a schedule's runs are one slice, oldest first. */
static int model_hist_cmp(const void *pa, const void *pb)
{
    const vl_run *a = (*(const model_run *const *)pa)->run;
    const vl_run *b = (*(const model_run *const *)pb)->run;
    int c = strcmp(a->schedule, b->schedule);
    if (c) return c;
    if (a->started != b->started) return a->started < b->started ? -1 : 1;
    return strcmp((*(const model_run *const *)pa)->name, (*(const model_run *const *)pb)->name);
}

static void model_hist_refresh(const model *cm)
{
    if (cm->hist_built == cm->hist_gen) return;
    model *m = (model *)cm; /* a cache of what the runs say, as the joins */
    m->n_hist = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        if (!m->runs[i]->hist_key) continue;
        if (m->n_hist == m->cap_hist) {
            m->cap_hist = m->cap_hist ? m->cap_hist * 2 : 64;
            m->hist = xrealloc(m->hist, m->cap_hist * sizeof(*m->hist));
        }
        m->hist[m->n_hist++] = m->runs[i];
    }
    if (m->n_hist > 1) qsort(m->hist, m->n_hist, sizeof(*m->hist), model_hist_cmp);
    m->hist_built = m->hist_gen;
}

size_t model_schedule_runs(const model *m, vl_kind kind, const char *schedule, double before,
                           const model_run **out, size_t max)
{
    if (kind != VL_BACKUP || !schedule || !*schedule || !max) return 0;
    model_hist_refresh(m);
    /* the first index past the schedule's runs that started before `before` */
    size_t lo = 0, hi = m->n_hist;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const vl_run *y = m->hist[mid]->run;
        int c = strcmp(y->schedule, schedule);
        if (c < 0 || (c == 0 && (before <= 0 || y->started < before)))
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo > 0 && n < max && !strcmp(m->hist[lo - 1]->run->schedule, schedule))
        out[n++] = m->hist[--lo];
    return n;
}

int model_volume_unsized(const vl_volume *v)
{
    return v && v->bytes_total <= 0 && !vl_phase_terminal(v->phase_id);
}

static void model_vol_add(model_vol_sum *s, const vl_volume *vol)
{
    vl_phase p = vol->phase_id;
    s->n++;
    if (p == VL_PH_COMPLETED)
        s->n_done++;
    else if (p == VL_PH_FAILED)
        s->n_failed++;
    else if (p == VL_PH_CANCELED)
        s->n_canceled++;
    else if (vl_phase_active(p))
        s->n_active++;
    else
        s->n_pending++;
    s->n_unsized += model_volume_unsized(vol);
    s->bytes_done = kc_sat_add(s->bytes_done, vol->bytes_done);
    s->bytes_total = kc_sat_add(s->bytes_total, vol->bytes_total);
}

/* The sums read each run's joined volumes: bytes moving change no join, so most refreshes cost a
 * walk of the lists, not a lookup per volume. */
void model_refresh_volumes(model *m)
{
    model_join_refresh(m);
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *r = m->runs[i];
        memset(&r->vols, 0, sizeof(model_vol_sum));
        for (size_t j = 0; j < r->n_joined; j++) model_vol_add(&r->vols, r->joined[j]->vol);
    }
    m->vols_dirty = 0;
}

void model_run_set_derived(model *m, model_run *r, const vl_res_progress *res, size_t n,
                           const unsigned char *flags, double now)
{
    model_res_feed(&r->derived, &r->n_derived, res, n, flags, now, NULL, m->idle_est);
    /* rows no longer given (a guessed name replaced by the server's) go */
    size_t k = 0, nk;
    model_key *given = model_keys_of(res, n, &nk);
    for (size_t i = 0; i < r->n_derived; i++) {
        if (model_keys_find(given, nk, r->derived[i].resource)) {
            r->derived[k++] = r->derived[i];
        } else {
            free(r->derived[i].resource);
            if (r->derived[i].est != m->idle_est) est_free(r->derived[i].est);
        }
    }
    free(given);
    r->n_derived = k;
    r->derived_from_log = 1;
    m->gen++;
}

void model_run_set_note(model_run *r, const char *note)
{
    free(r->res_note);
    r->res_note = note ? xstrdup(note) : NULL;
}

const model_res *model_run_resources(const model_run *r, size_t *n, int *from_log)
{
    if (r->n_res > 0 || !r->derived_from_log) {
        *n = r->n_res;
        if (from_log) *from_log = 0;
        return r->res;
    }
    *n = r->n_derived;
    if (from_log) *from_log = 1;
    return r->derived;
}

double model_run_rate(const model_run *r, double now)
{
    const vl_run *x = r->run;
    /* finished (whatever its phase says): the whole-run average from the timestamps */
    if (x && x->started > 0 && x->completed > x->started)
        return (double)x->items_done / model_wall_span(r->owner, x->completed - x->started);
    return est_rate(r->items, now);
}

double model_run_eta(const model_run *r, double now)
{
    if (r->finished || !r->run || !vl_phase_active(r->run->phase_id)) return -1;
    return est_eta(r->items, now);
}

double model_run_duration(const model_run *r, double wall)
{
    const vl_run *x = r->run;
    if (!x || x->started <= 0) return -1;
    if (x->completed > 0) return model_wall_span(r->owner, x->completed - x->started);
    if (vl_phase_terminal(x->phase_id)) return -1;
    return model_wall_span(r->owner, model_cluster_now(r->owner, wall) - x->started);
}

void model_set_clock(model *m, double wall0, double cluster0, double scale)
{
    m->clock_wall0 = wall0;
    m->clock_cluster0 = cluster0;
    m->clock_scale = scale > 0 ? scale : 0;
}

void model_set_clock_offset(model *m, double offset, int known)
{
    if (!m) return;
    m->clock_offset = known ? offset : 0;
    m->clock_offset_known = known;
}

double model_clock_offset(const model *m, int *known)
{
    int k = m && !(m->clock_scale > 0) && m->clock_offset_known;
    if (known) *known = k;
    return k ? m->clock_offset : 0;
}

double model_cluster_now(const model *m, double wall)
{
    if (!m) return wall;
    if (!(m->clock_scale > 0)) return wall + model_clock_offset(m, NULL);
    return m->clock_cluster0 + (wall - m->clock_wall0) * m->clock_scale;
}

double model_local_time(const model *m, double cluster_t)
{
    if (!m || !(cluster_t > 0)) return cluster_t;
    if (!(m->clock_scale > 0)) return cluster_t - model_clock_offset(m, NULL);
    return m->clock_wall0 + (cluster_t - m->clock_cluster0) / m->clock_scale;
}

double model_wall_time(const model *m, double cluster_t, double wall)
{
    if (!m || !(m->clock_scale > 0) || cluster_t <= 0) return cluster_t;
    if (cluster_t < m->clock_cluster0) return m->clock_wall0 - (m->clock_cluster0 - cluster_t);
    return wall - model_wall_span(m, model_cluster_now(m, wall) - cluster_t);
}

double model_wall_span(const model *m, double cluster_s)
{
    return m && m->clock_scale > 0 ? cluster_s / m->clock_scale : cluster_s;
}

/* ---- view ----------------------------------------------------------------------------------- */

void view_init(view *v)
{
    memset(v, 0, sizeof(*v));
    v->sel = -1;
}

void view_clear(view *v)
{
    free(v->rows);
    v->rows = NULL;
    v->n_rows = v->cap_rows = 0;
    free(v->sel_name);
    v->sel_name = NULL;
}

static double view_start_key(const model_run *r)
{
    if (r->run && r->run->started > 0) return r->run->started;
    return r->run ? r->run->meta.created : 0;
}

static double view_fraction(const model_run *r)
{
    const vl_run *x = r->run;
    if (!x) return 0;
    if (x->items_total > 0) return (double)x->items_done / (double)x->items_total;
    return x->phase_id == VL_PH_COMPLETED ? 1.0 : 0.0;
}

static int view_cmp_start(const model_run *a, const model_run *b)
{
    double sa = view_start_key(a), sb = view_start_key(b);
    if (sa != sb) return sa > sb ? -1 : 1;
    if (a->kind != b->kind) return a->kind == VL_BACKUP ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Phase rank for sorting: running first, then waiting, then failed, then done. */
static int view_phase_rank(const model_run *r)
{
    vl_phase p = r->run ? r->run->phase_id : VL_PH_UNKNOWN;
    if (vl_phase_active(p)) return 0;
    if (!vl_phase_terminal(p)) return 1;
    if (p == VL_PH_FAILED || p == VL_PH_FAILED_VALIDATION) return 2;
    if (p == VL_PH_PARTIALLY_FAILED) return 3;
    return 4;
}

static view_sort view_qsort_by;
static int view_qsort_rev;

static int view_qsort_cmp(const void *pa, const void *pb)
{
    const model_run *a = *(model_run *const *)pa, *b = *(model_run *const *)pb;
    int c = 0;
    switch (view_qsort_by) {
    case VIEW_SORT_NAME:
        c = strcmp(a->name, b->name);
        if (!c) c = a->kind - b->kind;
        break;
    case VIEW_SORT_PHASE:
        c = view_phase_rank(a) - view_phase_rank(b);
        break;
    case VIEW_SORT_PROGRESS: {
        double fa = view_fraction(a), fb = view_fraction(b);
        c = fa < fb ? -1 : fa > fb ? 1 : 0;
        break;
    }
    case VIEW_SORT_START:
        break;
    }
    if (!c) c = view_cmp_start(a, b);
    return view_qsort_rev ? -c : c;
}

static int view_eq(const char *a, const char *b, size_t bn)
{
    return a && strlen(a) == bn && !strncasecmp(a, b, bn);
}

/* One word of the filter, parsed once per rebuild (a regular expression compiled once). */
typedef enum { VW_RE, VW_NS, VW_SCHEDULE, VW_PHASE, VW_LABEL, VW_NOLABEL } view_word_kind;
typedef struct view_word {
    view_word_kind kind;
    char arg[128];
    regex_t re; /* VW_RE */
} view_word;
#define VIEW_MAX_WORDS 64

/* The run has label key (kl bytes), with value val (NULL: any value). */
static int view_has_label(const vl_run *run, const char *key, size_t kl, const char *val)
{
    for (size_t i = 0; run && i < run->meta.nlabels; i++) {
        const char *k = run->meta.label_keys[i], *lv = run->meta.label_values[i];
        if (!k || strlen(k) != kl || strncmp(k, key, kl)) continue;
        if (!val || (lv && !strcmp(lv, val))) return 1;
    }
    return 0;
}

/* "ns:NAME" a namespace the run includes (by name, or all of them but NAME excluded),
 * "schedule:NAME", "phase:NAME" exactly (case-insensitive), "label:key=value" or "label:key"
 * (and "-l" selectors: key=value, key!=value, key); else a regular expression matching the name,
 * the phase or the schedule. */
static int view_word_matches(const view_word *w, const model_run *r)
{
    const vl_run *run = r->run;
    const char *arg = w->arg;
    size_t al = strlen(arg);
    switch (w->kind) {
    case VW_NS:
        if (!run) return 0;
        for (size_t i = 0; i < run->n_excluded_ns; i++)
            if (view_eq(run->excluded_ns[i], arg, al)) return 0;
        if (!run->n_included_ns) return 1; /* all namespaces */
        for (size_t i = 0; i < run->n_included_ns; i++)
            if (view_eq(run->included_ns[i], arg, al) || !strcmp(run->included_ns[i], "*"))
                return 1;
        return 0;
    case VW_SCHEDULE:
        return run && view_eq(run->schedule, arg, al);
    case VW_PHASE:
        return run && view_eq(run->phase ? run->phase : "New", arg, al);
    case VW_LABEL:
    case VW_NOLABEL: {
        const char *eq = strchr(arg, '=');
        size_t kl = eq ? (size_t)(eq - arg) : al;
        int has = view_has_label(run, arg, kl, eq ? eq + 1 : NULL);
        return w->kind == VW_LABEL ? has : !has;
    }
    case VW_RE:
        if (!regexec(&w->re, r->name, 0, NULL, 0)) return 1;
        if (run && run->phase && !regexec(&w->re, run->phase, 0, NULL, 0)) return 1;
        if (run && run->schedule && !regexec(&w->re, run->schedule, 0, NULL, 0)) return 1;
        return 0;
    }
    return 0;
}

/* Parses the filter into words (*invert: "!" before them); 0, or -1 with v->filter_error set.
 * Compiled words are freed by view_words_free. */
static int view_parse(view *v, view_word *w, size_t *n, int *invert)
{
    const char *p = v->filter;
    *n = 0;
    *invert = 0;
    v->filter_error[0] = 0;
    while (*p == ' ') p++;
    if (!strncmp(p, "-l", 2) && (p[2] == ' ' || !p[2])) { /* k9s: -l key=value,key2!=value */
        for (p += 2; *p && *n < VIEW_MAX_WORDS;) {
            while (*p == ' ' || *p == ',') p++;
            size_t len = strcspn(p, ", ");
            if (!len) break;
            view_word *x = &w[(*n)++];
            snprintf(x->arg, sizeof x->arg, "%.*s", (int)len, p);
            char *ne = strstr(x->arg, "!=");
            x->kind = VW_LABEL;
            if (ne) { /* key!=value: without that value */
                memmove(ne, ne + 1, strlen(ne));
                x->kind = VW_NOLABEL;
            }
            p += len;
        }
        return 0;
    }
    if (*p == '!') {
        *invert = 1;
        p++;
    }
    while (*p && *n < VIEW_MAX_WORDS) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (!len) break;
        view_word *x = &w[*n];
        snprintf(x->arg, sizeof x->arg, "%.*s", (int)len, p);
        p += len;
        char *colon = strchr(x->arg, ':');
        size_t pl = colon ? (size_t)(colon - x->arg) : 0;
        static const struct {
            const char *prefix;
            view_word_kind kind;
        } pre[] = {
            {"ns", VW_NS}, {"schedule", VW_SCHEDULE}, {"phase", VW_PHASE}, {"label", VW_LABEL}};
        x->kind = VW_RE;
        for (size_t i = 0; colon && i < sizeof pre / sizeof pre[0]; i++)
            if (pl == strlen(pre[i].prefix) && !strncasecmp(x->arg, pre[i].prefix, pl)) {
                x->kind = pre[i].kind;
                memmove(x->arg, colon + 1, strlen(colon + 1) + 1);
                break;
            }
        if (x->kind == VW_RE) {
            int rc = regcomp(&x->re, x->arg, REG_EXTENDED | REG_ICASE | REG_NOSUB);
            if (rc) {
                char why[64];
                regerror(rc, &x->re, why, sizeof why);
                snprintf(v->filter_error, sizeof v->filter_error,
                         "not a regular expression: %.40s (%.60s)", x->arg, why);
                return -1; /* x->re is not compiled: not counted, not freed */
            }
        }
        (*n)++;
    }
    return 0;
}

static void view_words_free(view_word *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].kind == VW_RE) regfree(&w[i].re);
}

/* Every word of the filter matches (none of them with "!" before them: the others). */
static int view_matches(const view *v, const view_word *w, size_t n, int invert, const model_run *r)
{
    if (v->kinds && !(v->kinds & (1 << r->kind))) return 0;
    for (size_t i = 0; i < n; i++)
        if (!view_word_matches(&w[i], r)) return invert;
    return !invert || !n;
}

void view_rebuild(view *v, const model *m)
{
    if (v->cap_rows < m->n_runs) {
        v->cap_rows = m->n_runs;
        v->rows = xrealloc(v->rows, v->cap_rows * sizeof(*v->rows));
    }
    v->n_rows = 0;
    view_word *words = xcalloc(VIEW_MAX_WORDS, sizeof *words);
    size_t n_words;
    int invert;
    if (view_parse(v, words, &n_words, &invert) == 0)
        for (size_t i = 0; i < m->n_runs; i++)
            if (view_matches(v, words, n_words, invert, m->runs[i]))
                v->rows[v->n_rows++] = m->runs[i];
    view_words_free(words, n_words);
    free(words);
    view_qsort_by = v->sort;
    view_qsort_rev = v->reverse;
    if (v->n_rows > 1) qsort(v->rows, v->n_rows, sizeof(*v->rows), view_qsort_cmp);
    if (v->sel_name) {
        for (size_t i = 0; i < v->n_rows; i++) {
            if (v->rows[i]->kind == v->sel_kind && !strcmp(v->rows[i]->name, v->sel_name)) {
                v->sel = (int)i;
                return;
            }
        }
    }
    if (!v->sel_name) {
        /* nothing chosen yet (no key, no f, no drill): the cursor stays on its row, the top
         * (the newest run) at first, however many runs arrive above the one it is on; following
         * a run the user never chose kept a run from the first page of the list selected, and
         * the newest rows scrolled off the screen */
        v->sel = v->n_rows ? (v->sel < 0                 ? 0
                              : v->sel >= (int)v->n_rows ? (int)v->n_rows - 1
                                                         : v->sel)
                           : -1;
        return;
    }
    /* the followed run is gone or filtered out: keep the row index, follow what is there now */
    view_select(v, v->sel < 0 ? 0 : v->sel);
}

void view_select(view *v, int idx)
{
    if (v->n_rows == 0) {
        v->sel = -1;
        return;
    }
    if (idx < 0) idx = 0;
    if (idx >= (int)v->n_rows) idx = (int)v->n_rows - 1;
    v->sel = idx;
    const model_run *r = v->rows[idx];
    if (v->sel_name && v->sel_kind == r->kind && !strcmp(v->sel_name, r->name)) return;
    free(v->sel_name);
    v->sel_kind = r->kind;
    v->sel_name = xstrdup(r->name);
}

model_run *view_selected(const view *v)
{
    if (v->sel < 0 || v->sel >= (int)v->n_rows) return NULL;
    return v->rows[v->sel];
}

int view_follow(view *v)
{
    int best = -1;
    for (size_t i = 0; i < v->n_rows; i++) {
        const model_run *r = v->rows[i];
        if (!r->run || !vl_phase_active(r->run->phase_id)) continue;
        if (best < 0 || view_start_key(r) > view_start_key(v->rows[best])) best = (int)i;
    }
    if (best < 0) return 0;
    view_select(v, best);
    return 1;
}

/* Every item of a run in progress is counted, done, by exact log-derived rows (none estimated)
 * whose sum is both its totalItems and its items done: Velero has patched its last totals (a
 * restore before waiting for its volumes, restore.go:659-667; a backup's cannot grow once every
 * item is done). A transient done == total (Velero #5990) does not pass: its rows are not done. */
static int model_items_final(const model_run *r)
{
    size_t n;
    int from_log;
    const model_res *res = model_run_resources(r, &n, &from_log);
    if (!from_log || !n) return 0;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if ((res[i].flags & MODEL_RES_ESTIMATE) || res[i].done != res[i].total) return 0;
        sum += res[i].total;
    }
    return sum == r->run->items_total && sum == r->run->items_done;
}

int model_run_total_estimated(const model_run *r)
{
    if (!r || !r->run || vl_phase_terminal(r->run->phase_id)) return 0;
    if (model_items_final(r)) return 0;
    return r->run->phase_id == VL_PH_IN_PROGRESS || est_total_estimated(r->items);
}
