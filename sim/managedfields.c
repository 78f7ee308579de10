/* managedfields.c: kube-apiserver's field ownership bookkeeping for the sim's writes. A field set
 * is kept in its wire form, FieldsV1 (a JSON object: "f:<name>" per child field, "." when the
 * node itself is owned; {} alone means the node itself), and manipulated in place. */
#include "managedfields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

/* ---- field sets in FieldsV1 form ---- */

static int fs_has_children(const cJSON *n)
{
    for (const cJSON *c = n->child; c; c = c->next)
        if (strcmp(c->string, ".") != 0) return 1;
    return 0;
}

/* Whether the node's own path is in the set: {} or a "." member. */
static int fs_self(const cJSON *n)
{
    return !n->child || cJSON_GetObjectItemCaseSensitive(n, ".") != NULL;
}

/* Adds item under key keeping the members sorted ("." first, then "f:" keys in byte order, as
 * structured-merge-diff serializes a set). */
static void fs_add_sorted(cJSON *parent, const char *key, cJSON *item)
{
    cJSON *c = parent->child;
    while (c && strcmp(c->string, key) < 0) c = c->next;
    if (!c) {
        cJSON_AddItemToObject(parent, key, item);
        return;
    }
    if (!(item->type & cJSON_StringIsConst)) free(item->string); /* a duplicate's own key */
    item->string = xstrdup(key); /* cJSON frees it with free(): no hooks are set */
    item->type &= ~cJSON_StringIsConst;
    /* linked by hand: Debian's cJSON 1.7.15 refuses cJSON_InsertItemInArray into an object */
    item->next = c;
    item->prev = c->prev;
    if (c == parent->child)
        parent->child = item;
    else
        c->prev->next = item;
    c->prev = item;
}

/* Makes the node say self (or not); a node with neither self nor children should be removed by
 * the caller: returns 1 then. */
static int fs_set_self(cJSON *n, int self)
{
    int hc = fs_has_children(n);
    cJSON *dot = cJSON_GetObjectItemCaseSensitive(n, ".");
    if (hc) {
        if (self && !dot) fs_add_sorted(n, ".", cJSON_CreateObject());
        if (!self && dot) cJSON_DeleteItemFromObjectCaseSensitive(n, ".");
        return 0;
    }
    if (dot) cJSON_DeleteItemFromObjectCaseSensitive(n, ".");
    return !self;
}

static void fs_union(cJSON *dst, const cJSON *src)
{
    int self = fs_self(dst) || fs_self(src);
    for (const cJSON *c = src->child; c; c = c->next) {
        if (!strcmp(c->string, ".")) continue;
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, c->string);
        if (d)
            fs_union(d, c);
        else
            fs_add_sorted(dst, c->string, cJSON_Duplicate(c, 1));
    }
    fs_set_self(dst, self);
}

/* dst minus rm; returns 1 when dst is left empty (the caller removes it). */
static int fs_difference(cJSON *dst, const cJSON *rm)
{
    int self = fs_self(dst) && !fs_self(rm);
    for (const cJSON *c = rm->child; c; c = c->next) {
        if (!strcmp(c->string, ".")) continue;
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, c->string);
        if (d && fs_difference(d, c)) cJSON_DeleteItemFromObjectCaseSensitive(dst, c->string);
    }
    return fs_set_self(dst, self);
}

/* The root of a set is no field: it never says "."; empty means no member. */
static void fs_root_union(cJSON *dst, const cJSON *src)
{
    fs_union(dst, src);
    cJSON_DeleteItemFromObjectCaseSensitive(dst, ".");
}

static int fs_root_difference(cJSON *dst, const cJSON *rm)
{
    fs_difference(dst, rm);
    cJSON_DeleteItemFromObjectCaseSensitive(dst, ".");
    return dst->child == NULL;
}

/* Every path of a value: a map with members is itself and its members; anything else (scalars,
 * lists, which are atomic, and empty maps) is a leaf. */
static cJSON *fs_full(const cJSON *v)
{
    cJSON *n = cJSON_CreateObject();
    if (cJSON_IsObject(v) && v->child) {
        fs_add_sorted(n, ".", cJSON_CreateObject());
        for (const cJSON *c = v->child; c; c = c->next) {
            char key[512];
            snprintf(key, sizeof key, "f:%s", c->string);
            if (!cJSON_GetObjectItemCaseSensitive(n, key)) fs_add_sorted(n, key, fs_full(c));
        }
    }
    return n;
}

static void fs_put(cJSON *set, const char *key, cJSON *node)
{
    if (cJSON_GetObjectItemCaseSensitive(set, key)) {
        cJSON_Delete(node);
        return;
    }
    fs_add_sorted(set, key, node);
}

/* The metadata nobody owns (stripmeta.go). */
static int meta_stripped(const char *k)
{
    static const char *const skip[] = {"name",       "namespace",     "creationTimestamp",
                                       "selfLink",   "uid",           "clusterName",
                                       "generation", "managedFields", "resourceVersion"};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (!strcmp(k, skip[i])) return 1;
    return 0;
}

/* What a write from old to new added or changed (into changed) and removed (into removed).
 * level 0 is the object, 1 its metadata (whose identity fields are skipped). */
static void fs_diff(const cJSON *old, const cJSON *new, cJSON *changed, cJSON *removed, int level)
{
    char key[512];
    for (const cJSON *m = new ? new->child : NULL; m; m = m->next) {
        if (level == 0 && (!strcmp(m->string, "apiVersion") || !strcmp(m->string, "kind")))
            continue;
        if (level == 1 && meta_stripped(m->string)) continue;
        snprintf(key, sizeof key, "f:%s", m->string);
        const cJSON *o = old ? cJSON_GetObjectItemCaseSensitive(old, m->string) : NULL;
        if (level == 0 && !strcmp(m->string, "metadata")) { /* metadata itself: nobody's */
            if (!cJSON_IsObject(m)) continue;
            cJSON *c = cJSON_CreateObject(), *r = cJSON_CreateObject();
            fs_diff(cJSON_IsObject(o) ? o : NULL, m, c, r, 1);
            if (c->child)
                fs_put(changed, key, c);
            else
                cJSON_Delete(c);
            if (r->child)
                fs_put(removed, key, r);
            else
                cJSON_Delete(r);
            continue;
        }
        if (!o) {
            fs_put(changed, key, fs_full(m));
        } else if (cJSON_IsObject(o) && cJSON_IsObject(m) && o->child && m->child) {
            cJSON *c = cJSON_CreateObject(), *r = cJSON_CreateObject();
            fs_diff(o, m, c, r, 2);
            if (c->child)
                fs_put(changed, key, c);
            else
                cJSON_Delete(c);
            if (r->child)
                fs_put(removed, key, r);
            else
                cJSON_Delete(r);
        } else if (!cJSON_Compare(o, m, 1)) {
            fs_put(changed, key, cJSON_IsObject(m) ? fs_full(m) : cJSON_CreateObject());
        }
    }
    for (const cJSON *o = old ? old->child : NULL; o; o = o->next) {
        if (level == 0 && (!strcmp(o->string, "apiVersion") || !strcmp(o->string, "kind") ||
                           !strcmp(o->string, "metadata")))
            continue;
        if (level == 1 && meta_stripped(o->string)) continue;
        if (cJSON_GetObjectItemCaseSensitive(new, o->string)) continue;
        snprintf(key, sizeof key, "f:%s", o->string);
        fs_put(removed, key, fs_full(o));
    }
}

/* ---- entries ---- */

static const char *ent_str(const cJSON *e, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, k));
    return s ? s : "";
}

static double ent_time(const cJSON *e)
{
    double t;
    const char *s = ent_str(e, "time");
    return s[0] && kc_parse_time(s, &t) == 0 ? t : 0;
}

/* The apiserver's order (managedfields.go sortEncodedManagedFields): operation, time (seconds),
 * manager, apiVersion, subresource. */
static int ent_cmp(const void *a, const void *b)
{
    const cJSON *p = *(const cJSON *const *)a, *q = *(const cJSON *const *)b;
    int c = strcmp(ent_str(p, "operation"), ent_str(q, "operation"));
    if (c) return c;
    double tp = floor(ent_time(p)), tq = floor(ent_time(q));
    if (tp != tq) return tp < tq ? -1 : 1;
    if ((c = strcmp(ent_str(p, "manager"), ent_str(q, "manager")))) return c;
    if ((c = strcmp(ent_str(p, "apiVersion"), ent_str(q, "apiVersion")))) return c;
    return strcmp(ent_str(p, "subresource"), ent_str(q, "subresource"));
}

static cJSON *ent_new(const char *manager, const char *op, const char *apiv, const char *sub)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "manager", manager);
    cJSON_AddStringToObject(e, "operation", op);
    cJSON_AddStringToObject(e, "apiVersion", apiv);
    cJSON_AddStringToObject(e, "time", "");
    cJSON_AddStringToObject(e, "fieldsType", "FieldsV1");
    cJSON_AddItemToObject(e, "fieldsV1", cJSON_CreateObject());
    if (sub && sub[0]) cJSON_AddStringToObject(e, "subresource", sub);
    return e;
}

void sim_mf_stamp(cJSON *next, const cJSON *prev, const sim_mf_writer *w)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(next, "metadata");
    if (!cJSON_IsObject(md)) return;
    const cJSON *pmd = prev ? cJSON_GetObjectItemCaseSensitive(prev, "metadata") : NULL;
    const cJSON *pmf = cJSON_GetObjectItemCaseSensitive(pmd, "managedFields");
    const char *op0 = w && w->operation ? w->operation : "Update";
    if (prev && cJSON_GetArraySize(pmf) == 0 && strcmp(op0, "Apply") != 0) {
        /* an object nobody tracks stays untracked through updates (skipnonapplied.go) */
        cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
        return;
    }
    cJSON *mf = cJSON_IsArray(pmf) ? cJSON_Duplicate(pmf, 1) : cJSON_CreateArray();

    cJSON *changed = cJSON_CreateObject(), *removed = cJSON_CreateObject();
    fs_diff(prev, next, changed, removed, 0);

    const char *manager = w && w->manager && w->manager[0] ? w->manager : "unknown";
    const char *op = w && w->operation ? w->operation : "Update";
    const char *sub = w && w->subresource ? w->subresource : "";
    const char *apiv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(next, "apiVersion"));
    if (!apiv) apiv = "";
    int apply = !strcmp(op, "Apply");

    /* every manager loses what this write changed or removed (update.go, force) */
    cJSON *own = NULL;
    for (cJSON *e = mf->child, *nx; e; e = nx) {
        nx = e->next;
        cJSON *fs = cJSON_GetObjectItemCaseSensitive(e, "fieldsV1");
        int mine = !strcmp(ent_str(e, "manager"), manager) &&
                   !strcmp(ent_str(e, "operation"), op) &&
                   (apply || !strcmp(ent_str(e, "apiVersion"), apiv)) &&
                   !strcmp(ent_str(e, "subresource"), sub);
        int empty = !cJSON_IsObject(fs);
        if (!empty) {
            fs_root_difference(fs, changed);
            empty = fs_root_difference(fs, removed);
        }
        if (empty) {
            cJSON_DetachItemViaPointer(mf, e);
            cJSON_Delete(e);
            continue;
        }
        if (mine) own = e;
    }
    /* a write that changed something: its fields join the writer's, whose time moves */
    if (changed->child) {
        if (!own) {
            own = ent_new(manager, op, apiv, sub);
            cJSON_AddItemToArray(mf, own);
        }
        cJSON_ReplaceItemInObjectCaseSensitive(own, "apiVersion", cJSON_CreateString(apiv));
        fs_root_union(cJSON_GetObjectItemCaseSensitive(own, "fieldsV1"), changed);
        char ts[40];
        kc_format_time(floor(w ? w->time : kc_wall_now()), ts, sizeof ts);
        cJSON_ReplaceItemInObjectCaseSensitive(own, "time", cJSON_CreateString(ts));
    }
    cJSON_Delete(changed);
    cJSON_Delete(removed);

    /* sorted as the apiserver encodes them */
    int n = cJSON_GetArraySize(mf);
    if (n > 1) {
        cJSON **v = xcalloc((size_t)n, sizeof *v);
        int i = 0;
        for (cJSON *e = mf->child; e; e = e->next) v[i++] = e;
        qsort(v, (size_t)n, sizeof *v, ent_cmp);
        mf->child = v[0];
        for (i = 0; i < n; i++) {
            v[i]->prev = i ? v[i - 1] : v[n - 1];
            v[i]->next = i + 1 < n ? v[i + 1] : NULL;
        }
        free(v);
    }
    if (cJSON_GetObjectItemCaseSensitive(md, "managedFields"))
        cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
    if (n)
        cJSON_AddItemToObject(md, "managedFields", mf);
    else
        cJSON_Delete(mf);
}

const char *sim_mf_manager(const char *field_manager, const char *user_agent, char *buf, size_t n)
{
    if (field_manager && field_manager[0]) {
        snprintf(buf, n, "%s", field_manager);
        return buf;
    }
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)(user_agent ? user_agent : "");
         *p && *p != '/' && k + 1 < n && k < 128; p++)
        if (*p >= 0x20 && *p != 0x7f) buf[k++] = (char)*p;
    buf[k] = '\0';
    return buf;
}

double sim_mf_status_time(const cJSON *obj, const char **manager)
{
    const cJSON *mf = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "managedFields");
    double best = 0;
    if (manager) *manager = NULL;
    const cJSON *e;
    cJSON_ArrayForEach(e, mf)
    {
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(e, "fieldsV1");
        if (!cJSON_GetObjectItemCaseSensitive(fs, "f:status")) continue;
        double t = ent_time(e);
        if (t > best) {
            best = t;
            if (manager)
                *manager = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "manager"));
        }
    }
    return best;
}

void sim_mf_stamp_created(cJSON *obj, const char *creator, double t_create, const char *status_mgr,
                          double t_status)
{
    sim_mf_writer wc = {.manager = creator, .operation = "Update", .time = t_create};
    if (!(t_status > t_create)) { /* its status has not changed since: the creator's too */
        sim_mf_stamp(obj, NULL, &wc);
        return;
    }
    cJSON *st = cJSON_DetachItemFromObjectCaseSensitive(obj, "status");
    sim_mf_stamp(obj, NULL, &wc);
    if (!st) return;
    cJSON *before = cJSON_Duplicate(obj, 1);
    cJSON_AddItemToObject(obj, "status", st);
    sim_mf_writer ws = {.manager = status_mgr, .operation = "Update", .time = t_status};
    sim_mf_stamp(obj, before, &ws);
    cJSON_Delete(before);
}
