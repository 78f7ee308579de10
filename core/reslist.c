/* reslist.c: resource-list artifacts (BackupResourceList / RestoreResourceList) to per-resource
 * rows: a scanner of the JSON as its bytes come (reslist.h), the restore filters Velero applies to
 * them, and the row names of their keys. The scanner is written by hand rather than with cJSON: a
 * whole tree of a 10^6-key, 23 MB list is ~250 MB and one parse blocks the loop; this keeps counts
 * per key (capped) and is fed in slices. */
#include "reslist.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"

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

/* The row name of a resource-list key "<group/version>/<Kind>": the API server's plural when
 * resolve knows it, else Kubernetes' guess (*guessed set). malloc'd. */
static char *lprog_key_row(const char *key, lprog_resolve_fn resolve, void *arg, int *guessed)
{
    const char *kind = strrchr(key, '/');
    if (resolve && kind && kind != key) {
        char *gv = xstrndup(key, (size_t)(kind - key));
        const char *plural = resolve(arg, gv, kind + 1);
        if (plural) {
            const char *slash = strchr(gv, '/');
            char *r = slash ? xasprintf("%s.%.*s", plural, (int)(slash - gv), gv) : xstrdup(plural);
            free(gv);
            return r;
        }
        free(gv);
    }
    *guessed = 1;
    return lprog_key_to_resource(key);
}

/* Velero's restore controller always excludes these (restore_controller.go
 * nonRestorableResources); these two pass any filter (restore.go resourceMustHave). */
static const char *const lprog_nonrestorable[] = {
    "nodes",
    "events",
    "events.events.k8s.io",
    "backups.velero.io",
    "restores.velero.io",
    "resticrepositories.velero.io",
    "csinodes.storage.k8s.io",
    "volumeattachments.storage.k8s.io",
    "backuprepositories.velero.io",
};
static const char *const lprog_musthave[] = {"datauploads.velero.io",
                                             "volumesnapshotcontents.snapshot.storage.k8s.io"};

static int lprog_in(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(set[i], s)) return 1;
    return 0;
}

/* A spec's resource name against a row ("deployments.apps"): Velero resolves the name through
 * discovery first: a plural without group ("deployments") names its group's resource; globs as
 * its wildcard matching. A short name or Kind ("deploy") is not resolved here. */
static int lprog_res_match(const char *pat, const char *row)
{
    if (!strcmp(pat, "*") || !strcmp(pat, row)) return 1;
    if (!strchr(pat, '.')) {
        size_t n = strcspn(row, ".");
        if (strlen(pat) == n && !strncmp(pat, row, n)) return 1;
    }
    return fnmatch(pat, row, 0) == 0;
}

static int lprog_any_match(char *const *pats, size_t n, const char *s, int res)
{
    for (size_t i = 0; i < n; i++)
        if (res ? lprog_res_match(pats[i], s) : fnmatch(pats[i], s, 0) == 0) return 1;
    return 0;
}

/* IncludesExcludes.ShouldInclude: excludes win; no includes (or "*") means everything. */
static int lprog_should_include(char *const *inc, size_t ninc, char *const *exc, size_t nexc,
                                const char *s, int res)
{
    if (lprog_any_match(exc, nexc, s, res)) return 0;
    if (!ninc) return 1;
    for (size_t i = 0; i < ninc; i++)
        if (!strcmp(inc[i], "*")) return 1;
    return lprog_any_match(inc, ninc, s, res);
}

/* The restore filter's decisions that depend on the row only: -1 the row is never restored, 1 it
 * must be (its namespace does not matter), 0 its namespaced entries count by namespace. */
static int lprog_row_rule(const lprog_filter *f, const char *row)
{
    if (lprog_in(row, lprog_musthave, 2)) return 1;
    if (lprog_in(row, lprog_nonrestorable, 9) ||
        !lprog_should_include(f->inc_res, f->n_inc_res, f->exc_res, f->n_exc_res, row, 1))
        return -1;
    return 0;
}

/* Whether f keeps cluster-scoped entries (getOrderedResourceCollection, restore.go:2250-2275). */
static int lprog_keeps_cluster(const lprog_filter *f)
{
    if (f->include_cluster == 0) return 0;
    int everything =
        f->n_exc_ns == 0 && (f->n_inc_ns == 0 || (f->n_inc_ns == 1 && !strcmp(f->inc_ns[0], "*")));
    return f->include_cluster == 1 || everything;
}

/* ---- the scanner ---- */

/* Bytes of one key or entry kept: a namespace is at most 63, a key a few dozen; longer strings
 * are scanned to their end and kept cut. */
#define RL_STR_MAX 4096

typedef struct rl_key {
    char *key;
    int64_t all;     /* entries, of any JSON type */
    int64_t cluster; /* string entries without a namespace: "name", "/name" */
    int64_t ns;      /* string entries "ns/name" */
    int64_t ns_kept; /* of them, in a namespace the filter keeps (every one without a filter) */
} rl_key;

enum {
    RL_START,
    RL_KEY_OR_END,
    RL_NEXT_KEY,
    RL_KEY,
    RL_COLON,
    RL_VALUE,
    RL_ELEM_OR_END,
    RL_ELEM,
    RL_ELEM_STR,
    RL_ELEM_SKIP,
    RL_AFTER_ELEM,
    RL_AFTER_VALUE,
    RL_END,
    RL_BAD
};

struct reslist {
    const lprog_filter *f;
    int state;
    kc_buf tok;                         /* the string being read (up to RL_STR_MAX bytes) */
    int tok_esc, tok_has_esc, tok_cut;  /* after a backslash; one seen; bytes left out */
    int skip_depth, skip_str, skip_esc; /* a non-string entry being skipped */
    rl_key *keys;
    size_t n, cap, dropped;
    int cur_dropped; /* the current key is past the cap: its entries are not counted */
    kc_buf last_ns;  /* the namespace decided last, and the decision (entries come grouped) */
    int last_ok, have_last;
    size_t off;
    char err[200];
};

reslist *reslist_new(const lprog_filter *f)
{
    reslist *l = xcalloc(1, sizeof *l);
    l->f = f;
    return l;
}

void reslist_free(reslist *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n; i++) free(l->keys[i].key);
    free(l->keys);
    kc_buf_free(&l->tok);
    kc_buf_free(&l->last_ns);
    free(l);
}

size_t reslist_keys(const reslist *l)
{
    return l->n;
}

size_t reslist_dropped(const reslist *l)
{
    return l->dropped;
}

size_t reslist_offset(const reslist *l)
{
    return l->off;
}

static void rl_bad(reslist *l, const char *what, size_t at)
{
    if (l->state == RL_BAD) return;
    l->state = RL_BAD;
    if (at == (size_t)-1)
        snprintf(l->err, sizeof l->err, "%s", what);
    else
        snprintf(l->err, sizeof l->err, "resource list is not valid JSON: %s at byte %zu", what,
                 at);
}

/* The string just read, decoded (escapes through cJSON), NUL-terminated in tok, or -1. */
static int rl_decode(reslist *l)
{
    if (!l->tok_has_esc) {
        kc_buf_cstr(&l->tok);
        return 0;
    }
    kc_buf q = {0};
    kc_buf_append(&q, "\"", 1);
    kc_buf_append(&q, l->tok.data, l->tok.len);
    kc_buf_append(&q, "\"", 1);
    cJSON *s = cJSON_ParseWithLength(q.data, q.len);
    kc_buf_free(&q);
    const char *v = cJSON_GetStringValue(s);
    if (!v) {
        cJSON_Delete(s);
        if (!l->tok_cut) return -1;
        kc_buf_cstr(&l->tok); /* cut inside an escape: the raw bytes, a name nobody has */
        return 0;
    }
    l->tok.len = 0;
    kc_buf_append(&l->tok, v, strlen(v));
    kc_buf_cstr(&l->tok);
    cJSON_Delete(s);
    return 0;
}

static void rl_key_begin(reslist *l)
{
    if (l->n >= KC_CAP_RESOURCE_ROWS) {
        l->dropped++;
        l->cur_dropped = 1;
        return;
    }
    l->cur_dropped = 0;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->keys = xrealloc(l->keys, l->cap * sizeof *l->keys);
    }
    rl_key *k = &l->keys[l->n++];
    memset(k, 0, sizeof *k);
    k->key = xstrndup(l->tok.data, l->tok.len);
}

static void rl_entry(reslist *l, int is_string)
{
    if (l->cur_dropped || !l->n) return;
    rl_key *k = &l->keys[l->n - 1];
    k->all++;
    if (!is_string) return;
    const char *s = l->tok.data, *slash = memchr(s, '/', l->tok.len);
    size_t nl = slash ? (size_t)(slash - s) : 0;
    if (!nl) {
        k->cluster++;
        return;
    }
    k->ns++;
    if (!l->f) {
        k->ns_kept++;
        return;
    }
    if (!l->have_last || l->last_ns.len != nl || memcmp(l->last_ns.data, s, nl)) {
        l->last_ns.len = 0;
        kc_buf_append(&l->last_ns, s, nl);
        l->last_ok = lprog_should_include(l->f->inc_ns, l->f->n_inc_ns, l->f->exc_ns,
                                          l->f->n_exc_ns, kc_buf_cstr(&l->last_ns), 0);
        l->have_last = 1;
    }
    k->ns_kept += l->last_ok;
}

static int rl_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Reads string bytes from p[i..n) into tok; returns the index after the closing quote, or n
 * when the string goes on past this slice (state kept). */
static size_t rl_string(reslist *l, const char *p, size_t i, size_t n, int *closed)
{
    *closed = 0;
    while (i < n) {
        if (l->tok_esc) {
            l->tok_esc = 0;
            if (l->tok.len < RL_STR_MAX)
                kc_buf_append(&l->tok, p + i, 1);
            else
                l->tok_cut = 1;
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && p[j] != '"' && p[j] != '\\') j++;
        size_t take = j - i,
               room = RL_STR_MAX - (l->tok.len < RL_STR_MAX ? l->tok.len : RL_STR_MAX);
        if (take > room) {
            l->tok_cut = 1;
            take = room;
        }
        kc_buf_append(&l->tok, p + i, take);
        i = j;
        if (i == n) break;
        if (p[i] == '"') {
            *closed = 1;
            return i + 1;
        }
        l->tok_esc = 1; /* a backslash: kept with the byte after it */
        l->tok_has_esc = 1;
        if (l->tok.len < RL_STR_MAX)
            kc_buf_append(&l->tok, "\\", 1);
        else
            l->tok_cut = 1;
        i++;
    }
    return n;
}

static void rl_tok_start(reslist *l)
{
    l->tok.len = 0;
    l->tok_esc = l->tok_has_esc = l->tok_cut = 0;
}

int reslist_feed(reslist *l, const char *p, size_t n, kc_err *err)
{
    size_t i = 0;
    while (i < n && l->state != RL_BAD) {
        char c = p[i];
        size_t at = l->off + i;
        switch (l->state) {
        case RL_START:
            if (rl_ws(c)) break;
            if (c != '{') {
                rl_bad(l, "resource list is not a JSON object", (size_t)-1);
                break;
            }
            l->state = RL_KEY_OR_END;
            break;
        case RL_KEY_OR_END:
        case RL_NEXT_KEY:
            if (rl_ws(c)) break;
            if (c == '}' && l->state == RL_KEY_OR_END) {
                l->state = RL_END;
            } else if (c == '"') {
                rl_tok_start(l);
                l->state = RL_KEY;
            } else {
                rl_bad(l, "a key expected", at);
            }
            break;
        case RL_KEY:
        case RL_ELEM_STR: {
            int closed, key = l->state == RL_KEY;
            size_t next = rl_string(l, p, i, n, &closed);
            if (closed) {
                if (rl_decode(l)) {
                    rl_bad(l, "a bad escape in a string", l->off + next - 1);
                    break;
                }
                if (key) {
                    rl_key_begin(l);
                    l->state = RL_COLON;
                } else {
                    rl_entry(l, 1);
                    l->state = RL_AFTER_ELEM;
                }
            }
            i = next;
            continue;
        }
        case RL_COLON:
            if (rl_ws(c)) break;
            if (c != ':') rl_bad(l, "':' expected", at);
            l->state = l->state == RL_BAD ? RL_BAD : RL_VALUE;
            break;
        case RL_VALUE:
            if (rl_ws(c)) break;
            if (c != '[') {
                snprintf(l->err, sizeof l->err,
                         "resource list: the entry of \"%.100s\" is not an array (at byte %zu)",
                         l->cur_dropped ? "(a key past the cap)" : l->keys[l->n - 1].key, at);
                l->state = RL_BAD;
                break;
            }
            l->state = RL_ELEM_OR_END;
            break;
        case RL_ELEM_OR_END:
        case RL_ELEM:
            if (rl_ws(c)) break;
            if (c == ']' && l->state == RL_ELEM_OR_END) {
                l->state = RL_AFTER_VALUE;
            } else if (c == '"') {
                rl_tok_start(l);
                l->state = RL_ELEM_STR;
            } else if (c == ']' || c == ',' || c == '}' || c == ':') {
                rl_bad(l, "a value expected", at);
            } else { /* a number, literal, object or array: counted, not read */
                rl_entry(l, 0);
                l->skip_depth = l->skip_str = l->skip_esc = 0;
                l->state = RL_ELEM_SKIP;
                continue; /* this byte again, in SKIP */
            }
            break;
        case RL_ELEM_SKIP:
            if (l->skip_str) {
                if (l->skip_esc)
                    l->skip_esc = 0;
                else if (c == '\\')
                    l->skip_esc = 1;
                else if (c == '"')
                    l->skip_str = 0;
            } else if (c == '"') {
                l->skip_str = 1;
            } else if (c == '[' || c == '{') {
                if (++l->skip_depth > 512) rl_bad(l, "nested too deep", at);
            } else if (c == ']' || c == '}') {
                if (l->skip_depth == 0) { /* the array's own end, after a scalar */
                    if (c != ']') rl_bad(l, "']' expected", at);
                    l->state = l->state == RL_BAD ? RL_BAD : RL_AFTER_VALUE;
                } else if (--l->skip_depth == 0) {
                    l->state = RL_AFTER_ELEM;
                }
            } else if (c == ',' && l->skip_depth == 0) {
                l->state = RL_ELEM;
            }
            break;
        case RL_AFTER_ELEM:
            if (rl_ws(c)) break;
            if (c == ',')
                l->state = RL_ELEM;
            else if (c == ']')
                l->state = RL_AFTER_VALUE;
            else
                rl_bad(l, "',' or ']' expected", at);
            break;
        case RL_AFTER_VALUE:
            if (rl_ws(c)) break;
            if (c == ',')
                l->state = RL_NEXT_KEY;
            else if (c == '}')
                l->state = RL_END;
            else
                rl_bad(l, "',' or '}' expected", at);
            break;
        case RL_END:
            if (!rl_ws(c)) rl_bad(l, "bytes after the end", at);
            break;
        }
        i++;
    }
    l->off += n;
    if (l->state == RL_BAD) {
        kc_err_set(err, "%s", l->err);
        return -1;
    }
    return 0;
}

int reslist_finish(reslist *l, kc_err *err)
{
    if (l->state == RL_START) rl_bad(l, "resource list is not a JSON object", (size_t)-1);
    if (l->state != RL_END && l->state != RL_BAD)
        snprintf(l->err, sizeof l->err, "resource list ends early (after %zu bytes)", l->off),
            l->state = RL_BAD;
    if (l->state == RL_BAD) {
        kc_err_set(err, "%s", l->err);
        return -1;
    }
    return 0;
}

/* A row and whether its kind was guessed, sorted together. */
typedef struct lprog_tmp {
    vl_res_progress r;
    int guessed;
} lprog_tmp;

static int lprog_tmp_cmp(const void *a, const void *b)
{
    return strcmp(((const lprog_tmp *)a)->r.resource, ((const lprog_tmp *)b)->r.resource);
}

void reslist_rows(const reslist *l, const lprog_filter *f, lprog_resolve_fn resolve, void *arg,
                  vl_res_progress **out, size_t *n, unsigned char **row_est)
{
    lprog_tmp *t = xcalloc(l->n ? l->n : 1, sizeof *t);
    int cluster_ok = f ? lprog_keeps_cluster(f) : 1;
    for (size_t i = 0; i < l->n; i++) {
        const rl_key *k = &l->keys[i];
        char *res = lprog_key_row(k->key, resolve, arg, &t[i].guessed);
        int64_t items = k->all;
        if (f) {
            int rule = lprog_row_rule(f, res);
            items = rule < 0 ? 0 : (rule ? k->ns : k->ns_kept) + (cluster_ok ? k->cluster : 0);
        }
        t[i].r.resource = res;
        t[i].r.total = items;
        t[i].r.processed = f ? 0 : items;
    }
    /* keys naming one row (a guess and the server's name alike) add up: sorted, then merged */
    qsort(t, l->n, sizeof *t, lprog_tmp_cmp);
    size_t cnt = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (cnt && !strcmp(t[cnt - 1].r.resource, t[i].r.resource)) {
            t[cnt - 1].r.total += t[i].r.total;
            t[cnt - 1].r.processed += t[i].r.processed;
            t[cnt - 1].guessed |= t[i].guessed;
            free(t[i].r.resource);
            continue;
        }
        t[cnt++] = t[i];
    }
    int unresolved = 0;
    if (f) {
        /* a resource name with no group that names no row may be a short name or a Kind, which
         * only discovery resolves */
        char *const *lists[2] = {f->inc_res, f->exc_res};
        size_t nl[2] = {f->n_inc_res, f->n_exc_res};
        for (int li = 0; li < 2; li++)
            for (size_t i = 0; i < nl[li]; i++) {
                int hit = !strcmp(lists[li][i], "*") || strchr(lists[li][i], '.') != NULL;
                for (size_t j = 0; j < cnt && !hit; j++)
                    hit = lprog_res_match(lists[li][i], t[j].r.resource);
                unresolved |= !hit;
            }
    }
    vl_res_progress *r = xcalloc(cnt ? cnt : 1, sizeof *r);
    unsigned char *est = row_est ? xcalloc(cnt ? cnt : 1, 1) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        r[i] = t[i].r;
        /* label selectors pick items a list of names cannot tell */
        if (est) est[i] = t[i].guessed || unresolved || (f && f->selector);
    }
    free(t);
    *out = r;
    *n = cnt;
    if (row_est) *row_est = est;
}

int lprog_rows_from_list(const char *json, size_t len, const lprog_filter *f,
                         lprog_resolve_fn resolve, void *arg, vl_res_progress **out, size_t *n,
                         unsigned char **row_est, kc_err *err)
{
    *out = NULL;
    *n = 0;
    if (row_est) *row_est = NULL;
    reslist *l = reslist_new(f);
    if (reslist_feed(l, json, len, err) || reslist_finish(l, err)) {
        reslist_free(l);
        return -1;
    }
    reslist_rows(l, f, resolve, arg, out, n, row_est);
    reslist_free(l);
    return 0;
}

int lprog_from_resource_list(const char *json, size_t len, vl_res_progress **out, size_t *n,
                             kc_err *err)
{
    return lprog_rows_from_list(json, len, NULL, NULL, NULL, out, n, NULL, err);
}

static char **lprog_strings(const cJSON *a, size_t *n)
{
    *n = 0;
    int cap = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (cap <= 0) return NULL;
    char **v = xcalloc((size_t)cap, sizeof *v);
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        if (cJSON_IsString(e)) v[(*n)++] = xstrdup(e->valuestring);
    }
    return v;
}

void lprog_filter_from_restore(lprog_filter *f, const cJSON *restore)
{
    memset(f, 0, sizeof *f);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(restore, "spec");
    f->inc_ns =
        lprog_strings(cJSON_GetObjectItemCaseSensitive(spec, "includedNamespaces"), &f->n_inc_ns);
    f->exc_ns =
        lprog_strings(cJSON_GetObjectItemCaseSensitive(spec, "excludedNamespaces"), &f->n_exc_ns);
    f->inc_res =
        lprog_strings(cJSON_GetObjectItemCaseSensitive(spec, "includedResources"), &f->n_inc_res);
    f->exc_res =
        lprog_strings(cJSON_GetObjectItemCaseSensitive(spec, "excludedResources"), &f->n_exc_res);
    const cJSON *icr = cJSON_GetObjectItemCaseSensitive(spec, "includeClusterResources");
    f->include_cluster = cJSON_IsBool(icr) ? cJSON_IsTrue(icr) : -1;
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(spec, "labelSelector");
    const cJSON *ols = cJSON_GetObjectItemCaseSensitive(spec, "orLabelSelectors");
    f->selector = (cJSON_IsObject(ls) && ls->child) || cJSON_GetArraySize(ols) > 0;
}

void lprog_filter_free(lprog_filter *f)
{
    char **lists[4] = {f->inc_ns, f->exc_ns, f->inc_res, f->exc_res};
    size_t nl[4] = {f->n_inc_ns, f->n_exc_ns, f->n_inc_res, f->n_exc_res};
    for (int l = 0; l < 4; l++) {
        for (size_t i = 0; i < nl[l]; i++) free(lists[l][i]);
        free(lists[l]);
    }
    memset(f, 0, sizeof *f);
}

void lprog_res_free(vl_res_progress *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) free(r[i].resource);
    free(r);
}
