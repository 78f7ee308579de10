/* logprogress.c: per-resource progress derived from Velero's log lines and resource lists. */
#include "logprogress.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"

typedef struct lprog_ent {
    char *bare;       /* "deployments" */
    char *qualified;  /* "deployments.apps", NULL until known */
    char *guess;      /* display name from the table of well-known groups while unqualified */
    int64_t total;    /* backups: the sum of "Retrieved N items"; restores: lprog_set_totals */
    int64_t done;     /* "Backing up item" / "Restored N items" lines */
    int64_t queued;   /* backups: "Processing item" lines (queued into an ItemBlock) */
    int64_t excluded; /* backups: "Excluding item because ..." lines */
    unsigned char has_total; /* a Retrieved line or lprog_set_totals gave a total */
    unsigned char est_total; /* lprog_set_totals said the total is an estimate */
} lprog_ent;

struct lprog {
    int is_restore;
    char *run_ref;
    lprog_ent *ents;
    size_t n, cap;
    vl_res_progress *view;
    unsigned char *view_flags;
    size_t view_cap;
    unsigned long lines, item_lines;
    int64_t retrieved;  /* backups: the sum of every Retrieved line */
    int64_t collected;  /* backups: "Collected N items matching the backup spec", -1 before */
    long last;          /* restores: the entry of the newest Restored line, -1 before */
    int64_t pass_total; /* backups: N of "Backed up a total of N items" (the pass is over), -1 */
    int64_t pass_seen;  /* backups: the "Backing up item" lines of this run, every type */
    int past_ns;        /* restores: a resource after namespaces is being restored */
    lp_line scratch;
};

lprog *lprog_new(int is_restore, const char *run_ref)
{
    lprog *p = xcalloc(1, sizeof *p);
    p->is_restore = is_restore;
    p->run_ref = xstrdup(run_ref ? run_ref : "");
    p->collected = -1;
    p->last = -1;
    p->pass_total = -1;
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
    p->lines = p->item_lines = 0;
    p->retrieved = 0;
    p->collected = -1;
    p->last = -1;
    p->past_ns = 0;
    p->pass_total = -1;
    p->pass_seen = 0;
}

void lprog_free(lprog *p)
{
    if (!p) return;
    lprog_reset(p);
    free(p->ents);
    free(p->view);
    free(p->view_flags);
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
    memset(e, 0, sizeof *e);
    e->bare = xstrdup(bare);
    e->qualified = xstrdup(qualified);
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

static int lprog_starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* "Retrieved N items" (item_collector.go:575): resource= is the bare plural, group= the
 * GroupVersion ("apps/v1"; the core group is "v1"): the row is <plural>.<group>, core bare. */
static int lprog_retrieved(lprog *p, const lp_line *l, const char *res, int64_t n)
{
    const char *group = lp_get(l, "group");
    lprog_ent *e;
    if (group && *group && !strchr(res, '.')) {
        const char *slash = strchr(group, '/');
        char *q = slash ? xasprintf("%s.%.*s", res, (int)(slash - group), group) : xstrdup(res);
        e = lprog_qualified(p, q);
        free(q);
    } else {
        e = strchr(res, '.') ? lprog_qualified(p, res) : lprog_bare(p, res);
    }
    e->total = kc_sat_add(e->total, n);
    e->has_total = 1;
    p->retrieved = kc_sat_add(p->retrieved, n);
    return 1;
}

/* Backups (v1.18.1; velero-api.md "v1.18.1, line by line"): "Processing item" is logged when an
 * item is queued into an ItemBlock (up to ~10 blocks ahead of the workers, excluded items too):
 * it only marks its resource active. "Backing up item" is logged once per item really backed
 * up, plugin-added items (PVs) included: the count. */
static int lprog_feed_backup(lprog *p, const lp_line *l, const char *msg, const char *res)
{
    int64_t n;
    if (!strcmp(msg, "Backing up item")) {
        p->item_lines++;
        lprog_qualified(p, res)->done++;
        p->pass_seen++;
        return 1;
    }
    if (!strcmp(msg, "Processing item")) {
        p->item_lines++;
        lprog_qualified(p, res)->queued++;
        return 1;
    }
    if (lprog_starts(msg, "Excluding item because ")) {
        p->item_lines++;
        lprog_qualified(p, res)->excluded++;
        return 1;
    }
    if ((n = lprog_count_after(msg, "Retrieved ")) >= 0) return lprog_retrieved(p, l, res, n);
    return 0;
}

/* Restores: one "Restored N items out of an estimated total of M" line per restored item with
 * resource= (restore.go:794-799); none for namespaces (restore.go:759-762), which are restored
 * right after the CRDs, before any other resource. */
static int lprog_feed_restore(lprog *p, const char *msg, const char *res)
{
    if (lprog_count_after(msg, "Restored ") < 0) return 0;
    p->item_lines++;
    lprog_ent *e = lprog_qualified(p, res);
    e->done++;
    p->last = (long)(e - p->ents);
    if (strcmp(res, "customresourcedefinitions.apiextensions.k8s.io")) p->past_ns = 1;
    return 1;
}

int lprog_feed(lprog *p, const lp_line *l)
{
    const char *ref = lp_get(l, p->is_restore ? "restore" : "backup");
    if (!ref || strcmp(ref, p->run_ref)) return 0;
    p->lines++;
    const char *msg = l->msg, *res = lp_get(l, "resource");
    int64_t n;
    if (!p->is_restore && (n = lprog_count_after(msg, "Collected ")) >= 0 &&
        strstr(msg, " matching the backup spec")) {
        p->collected = n;
        return 1;
    }
    /* the item pass's last line (backup.go:546 at v1.15.0, the same at v1.18.1): what was backed
     * up is all there is */
    if (!p->is_restore && (n = lprog_count_after(msg, "Backed up a total of ")) >= 0) {
        p->pass_total = n;
        return 1;
    }
    if (!res || !*res) return 0;
    return p->is_restore ? lprog_feed_restore(p, msg, res) : lprog_feed_backup(p, l, msg, res);
}

int lprog_feed_raw(lprog *p, const char *line, size_t len)
{
    if (lp_parse(&p->scratch, line, len)) return 0;
    return lprog_feed(p, &p->scratch);
}

void lprog_set_totals(lprog *p, const vl_res_progress *r, size_t n, const unsigned char *estimate)
{
    for (size_t i = 0; i < p->n; i++) { /* the new totals replace the old ones, names too */
        p->ents[i].total = 0;
        p->ents[i].has_total = p->ents[i].est_total = 0;
    }
    for (size_t i = 0; i < n; i++) {
        lprog_ent *e = strchr(r[i].resource, '.') ? lprog_qualified(p, r[i].resource)
                                                  : lprog_bare(p, r[i].resource);
        if (!e->qualified) e->qualified = xstrdup(r[i].resource);
        e->total = r[i].total;
        e->has_total = 1;
        e->est_total = estimate && estimate[i];
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

/* A backup whose item pass is over ("Backed up a total of N items"): every type is done. With
 * every item's line seen, its count is exact; with lines missing (the log seen from the middle),
 * what the collector retrieved of it stands for its count, as an estimate. */
static int64_t lprog_row_passed(const lprog *p, const lprog_ent *e, int64_t *done,
                                unsigned char *flags)
{
    int64_t n = e->done;
    *flags = 0;
    if (p->pass_seen < p->pass_total) {
        int64_t listed = e->has_total ? e->total - e->excluded : 0;
        if (listed > n) n = listed, *flags = LPROG_ESTIMATE;
    }
    return *done = n;
}

/* One row's shown done count, total and flags. A total the log gives no evidence of (no
 * Retrieved line, no resource list, or one the count has passed) is none (LPROG_NO_TOTAL, 0),
 * never the count standing in for it: "25 of ~25" said nothing the count did not. */
static int64_t lprog_row(const lprog *p, const lprog_ent *e, int64_t *done, unsigned char *flags)
{
    int64_t total = e->total;
    int est = 0, active = 0, none = 0;
    *done = e->done;
    if (!p->is_restore && p->pass_total >= 0) return lprog_row_passed(p, e, done, flags);
    if (!p->is_restore) {
        if (!strcmp(e->bare, "namespaces") && !e->has_total) {
            /* collected without a Retrieved line: the Collected count less every Retrieved one
             * is theirs; before that line nothing says how many there are */
            if (p->collected >= 0 && p->collected >= p->retrieved)
                total = p->collected - p->retrieved;
            else
                none = 1;
        } else {
            total -= e->excluded;
            none = !e->has_total; /* only items backed up (plugin-added) say it exists */
        }
        if (e->done > total) none = 1; /* plugins added items: nothing says how many more */
        active = e->queued > 0 && (none || e->done < total);
    } else {
        if (!strcmp(e->bare, "namespaces") && p->past_ns) {
            if (!e->has_total || e->done > e->total) return (*flags = LPROG_NO_TOTAL), 0;
            return (*flags = e->est_total ? LPROG_ESTIMATE : 0), e->total;
        }
        est = e->est_total;
        if (!e->has_total || e->done > total) none = 1;
        active = p->last >= 0 && &p->ents[p->last] == e && (none || e->done < total);
    }
    if (none) total = 0, est = 0;
    if (total < 0) total = 0;
    *flags = (unsigned char)((est ? LPROG_ESTIMATE : 0) | (active ? LPROG_ACTIVE : 0) |
                             (none ? LPROG_NO_TOTAL : 0));
    return total;
}

size_t lprog_resources(lprog *p, const vl_res_progress **out, const unsigned char **flags)
{
    if (p->view_cap < p->n) {
        p->view_cap = p->n;
        p->view = xrealloc(p->view, p->view_cap * sizeof *p->view);
        p->view_flags = xrealloc(p->view_flags, p->view_cap);
    }
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        lprog_ent *e = &p->ents[i];
        unsigned char f;
        int64_t done, total = lprog_row(p, e, &done, &f);
        /* a restore's resource its filters leave nothing of, no line about it: not a row */
        if (p->is_restore && total == 0 && e->done == 0) continue;
        /* a finished item pass: a type of which nothing was backed up (the collector's many
         * "Retrieved 0 items") is not a row of this backup */
        if (!p->is_restore && p->pass_total >= 0 && done == 0) continue;
        p->view[k].resource = (char *)lprog_display(e);
        p->view[k].processed = done;
        p->view[k].total = total;
        if (p->is_restore && !strcmp(e->bare, "namespaces") && p->past_ns && !(f & LPROG_NO_TOTAL))
            p->view[k].processed = total;
        p->view_flags[k++] = f;
    }
    if (out) *out = p->view;
    if (flags) *flags = p->view_flags;
    return k;
}

unsigned long lprog_lines(const lprog *p)
{
    return p->lines;
}

unsigned long lprog_item_lines(const lprog *p)
{
    return p->item_lines;
}

int lprog_silent(const lprog *p, int64_t items_done)
{
    return items_done > 0 && p->item_lines == 0;
}
