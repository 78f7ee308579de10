/* simlogtext.c: the text of the Velero server's log lines for a planned run, checked against
 * the v1.18.1 sources (backup_controller.go, backup.go, item_collector.go, item_backupper.go,
 * restore_controller.go, restore.go): messages, fields, logSource lines, and which lines go to the
 * server's stdout only (its own logger) rather than the run's stored log. */
#include "simlogtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simlog.h"

static const char *err_texts[] = {
    ("error executing custom action (groupResource=pods, namespace=%s, name=%s): rpc error: "
     "code = Unknown desc = timed out waiting for hook to complete"),
    "error getting volume info for %s/%s: volume snapshot not ready",
    "failed to get pod volume backup for %s/%s: context deadline exceeded",
};
static const char *warn_texts[] = {
    "skipping item %s/%s because it is being deleted",
    ("could not restore, %s/%s already exists. Warning: the in-cluster version is different "
     "than the backed-up version"),
    "volume %s/%s has no snapshot location, skipping",
};

/* Keeps a results message alive for the run's lifetime. */
static void add_result(sp_run *r, char *msg)
{
    r->msgs = xrealloc(r->msgs, (r->nmsgs + 1) * sizeof *r->msgs);
    r->msgs[r->nmsgs++] = msg;
}

/* ---- the Velero server's log lines, as v1.18.1 writes them ---- */

/* ItemBlocks the backup loop queues ahead of the worker: the worker pool's input channel holds
 * max(workers, 10) = 10 blocks (item_block_worker_pool.go:51, one worker by default), and the loop
 * logs one more block's "Processing item" lines before its send blocks (backup.go:570-616). */
#define BLOCK_LOOKAHEAD 11

static void add_line(const sp_ctx *c, sp_run *r, double t, int live_only, const char *level,
                     const char *msg, simlog_field *f, size_t nf)
{
    if (!isfinite(t)) return; /* never comes (a queued run that never starts) */
    r->lines = xrealloc(r->lines, (r->nlines + 1) * sizeof *r->lines);
    r->lines[r->nlines].t = t;
    r->lines[r->nlines].live_only = live_only;
    r->lines[r->nlines].text = simlog_format(c->log_json, t, level, msg, f, nf);
    r->nlines++;
}

#define F(k, v)                                                                                    \
    {                                                                                              \
        k, v                                                                                       \
    }

/* The GroupVersion the item collector logs as group= ("v1", "apps/v1"). */
static const char *pres_gv(const sp_res *p, char *buf, size_t n)
{
    const char *slash = strrchr(p->list_key, '/');
    snprintf(buf, n, "%.*s", (int)(slash - p->list_key), p->list_key);
    return buf;
}

/* An item is collected (listed by the item collector) unless a plugin adds it: the last `added`
 * items of a resource. */
static int item_collected(const sp_res *p, int k)
{
    return k - p->first < p->items - p->added;
}

static const sp_res *item_res(const sp_run *r, int k)
{
    size_t ri = 0;
    while (ri + 1 < r->nres && k >= r->res[ri].first + r->res[ri].items) ri++;
    return &r->res[ri];
}

/* Errors and warnings at evenly spread items (and their results entries). */
static void item_results(const sp_ctx *c, sp_run *r, int k, int last_items, int n_err, int *ei,
                         int *wi, const sp_res *p, const char *nsn, const char *name, double t)
{
    const char *wk = r->is_restore ? "restore" : "backup";
    char who[300];
    snprintf(who, sizeof who, "%s/%s", c->ns, r->sr.name);
    while (*ei < n_err && (long)(*ei + 1) * last_items / (n_err + 1) == k) {
        char m[600];
        snprintf(m, sizeof m, err_texts[*ei % 3], nsn ? nsn : "cluster", name);
        simlog_field g[] = {F(wk, who),
                            F("error", m),
                            F("logSource", r->is_restore ? "pkg/restore/restore.go:1664"
                                                         : "pkg/backup/backup.go:546"),
                            F("name", name),
                            F("namespace", nsn ? nsn : ""),
                            F("resource", p->gr)};
        add_line(c, r, t, 0, "error",
                 r->is_restore ? "error restoring item" : "Error backing up item", g, 6);
        add_result(r, xstrdup(m));
        r->errs[*ei].scope = nsn ? nsn : "cluster";
        r->errs[*ei].msg = r->msgs[r->nmsgs - 1];
        (*ei)++;
    }
    while (*wi < r->sr.warnings && (long)(*wi + 1) * last_items / (r->sr.warnings + 1) == k) {
        char m[600];
        snprintf(m, sizeof m, warn_texts[*wi % 3], nsn ? nsn : "cluster", name);
        simlog_field g[] = {F(wk, who),
                            F("logSource", r->is_restore ? "pkg/restore/restore.go:1549"
                                                         : "pkg/backup/item_backupper.go:140"),
                            F("name", name), F("namespace", nsn ? nsn : ""), F("resource", p->gr)};
        add_line(c, r, t, 0, "warning", m, g, 5);
        add_result(r, xstrdup(m));
        r->warns[*wi].scope = nsn ? nsn : "cluster";
        r->warns[*wi].msg = r->msgs[r->nmsgs - 1];
        (*wi)++;
    }
}

/* Warnings and errors left over (runs with fewer items than warnings), the volumes' creation,
 * and a Failed run's failure. */
static void plan_tail_lines(const sp_ctx *c, sp_run *r, int failed, int ei, int n_err, int wi)
{
    const scn_run *s = &r->sr;
    const char *wk = r->is_restore ? "restore" : "backup";
    char who[300];
    snprintf(who, sizeof who, "%s/%s", c->ns, s->name);
    for (; wi < s->warnings; wi++) {
        char m[300];
        snprintf(m, sizeof m, warn_texts[wi % 3], "velero", s->name);
        simlog_field g[] = {F(wk, who), F("logSource", "pkg/backup/backup.go:610")};
        add_line(c, r, r->t_pass_end - 0.2, 0, "warning", m, g, 2);
        add_result(r, xstrdup(m));
        r->warns[wi].scope = "velero";
        r->warns[wi].msg = r->msgs[r->nmsgs - 1];
    }
    for (; ei < n_err; ei++) {
        char m[300];
        snprintf(m, sizeof m, err_texts[ei % 3], "velero", s->name);
        simlog_field g[] = {F(wk, who), F("error", m), F("logSource", "pkg/backup/backup.go:612")};
        add_line(c, r, r->t_pass_end - 0.2, 0, "error", "Error backing up item", g, 3);
        add_result(r, xstrdup(m));
        r->errs[ei].scope = "velero";
        r->errs[ei].msg = r->msgs[r->nmsgs - 1];
    }
    for (size_t i = 0; i < r->nvols; i++) {
        sp_vol *v = &r->vols[i];
        if (!isfinite(v->t_create)) continue;
        char m[400];
        if (v->sv->uploader == SCN_DATAMOVER)
            snprintf(m, sizeof m, "%s %s/%s created for PVC %s/%s",
                     r->is_restore ? "DataDownload" : "DataUpload", c->ns, v->name, v->sv->ns,
                     v->sv->pvc);
        else
            snprintf(m, sizeof m, "Created %s %s/%s for pod %s/%s volume %s",
                     r->is_restore ? "PodVolumeRestore" : "PodVolumeBackup", c->ns, v->name,
                     v->sv->ns, v->sv->pod, v->sv->volume);
        simlog_field g[] = {F(wk, who),
                            F("logSource", r->is_restore ? "pkg/podvolume/restorer.go:180"
                                                         : "pkg/podvolume/backupper.go:320")};
        add_line(c, r, v->t_create, 0, "info", m, g, 2);
    }
    if (failed) {
        /* the reconciler's own logger: the server's stdout only, not the run's stored log */
        const char *reason = s->failure_reason ? s->failure_reason : "failed";
        /* a failed restore is logged at debug level only (restore_controller.go:271) */
        if (!r->is_restore) {
            simlog_field g[] = {F("backuprequest", who), F("controller", "backup"),
                                F("error", reason),
                                F("logSource", "pkg/controller/backup_controller.go:343")};
            add_line(c, r, r->t_fail, 1, "error", "backup failed", g, 4);
        }
        add_result(r, xstrdup(reason));
        r->errs[r->errors - 1].scope = "velero";
        r->errs[r->errors - 1].msg = r->msgs[r->nmsgs - 1];
    }
}

/* A backup's lines (backup_controller.go, backup.go, item_collector.go, item_backupper.go). Items
 * go into ItemBlocks of one collected item each, plus the items plugins add after it; the worker
 * backs a block's items up one by one at the run's rate. "Processing item" is logged when the loop
 * queues a block, BLOCK_LOOKAHEAD blocks ahead of the worker (excluded and failed-later items too;
 * never for items plugins add); "Backing up item" when the item is really backed up; "Backed up N
 * items out of an estimated total of M" once per block, when the worker returns it. */
void slt_plan_backup(const sp_ctx *c, sp_run *r, int failed, double t_items_end)
{
    const scn_run *s = &r->sr;
    char who[300], name[200], gv[128], m[700];
    snprintf(who, sizeof who, "%s/%s", c->ns, s->name);
    const char *ctl = "pkg/controller/backup_controller.go:";
    struct {
        const char *msg, *line;
    } setup[] = {{"Setting up backup temp file", "731"},
                 {"Setting up plugin manager", "738"},
                 {"Getting backup item actions", "742"},
                 {"Getting ItemBlock actions", "747"},
                 {"Setting up backup store to check for backup existence", "752"}};
    char ls[80];
    snprintf(ls, sizeof ls, "%s720", ctl);
    simlog_field f[] = {F("backup", who), F("logSource", ls)};
    add_line(c, r, r->t_start, 1, "info", "Setting up backup log", f, 2); /* server logger */
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        snprintf(ls, sizeof ls, "%s%s", ctl, setup[i].line);
        add_line(c, r, r->t_start, 0, "info", setup[i].msg, f, 2);
    }
    f[1].val = "pkg/backup/backup.go:272";
    add_line(c, r, r->t_start, 0, "info", "Writing backup version file", f, 2);
    kc_buf inc = {0};
    for (size_t i = 0; i < sp_run_nns(r); i++)
        kc_buf_printf(&inc, "%s%s", i ? ", " : "", sp_run_ns(r, i));
    snprintf(m, sizeof m, "Including namespaces: %s", kc_buf_cstr(&inc));
    kc_buf_free(&inc);
    f[1].val = "pkg/backup/backup.go:305";
    add_line(c, r, r->t_start, 0, "info", m, f, 2);
    f[1].val = "pkg/backup/backup.go:306";
    add_line(c, r, r->t_start, 0, "info", "Excluding namespaces: <none>", f, 2);
    int fs = 0;
    for (size_t i = 0; i < r->nvols; i++) fs |= r->vols[i].sv->uploader != SCN_DATAMOVER;
    snprintf(m, sizeof m, "Backing up all volumes using pod volume backup: %s",
             fs ? "true" : "false");
    f[1].val = "pkg/backup/backup.go:336";
    add_line(c, r, r->t_start, 0, "info", m, f, 2);

    /* Item collection: per group, per resource, per namespace; namespaces have no Listing or
     * Retrieved line (collectNamespaces). */
    double tc = r->t_start + 0.1;
    size_t nns = sp_run_nns(r);
    char last_gv[128] = "";
    for (size_t i = 0; i < r->nres; i++) {
        const sp_res *p = &r->res[i];
        pres_gv(p, gv, sizeof gv);
        if (strcmp(gv, last_gv)) {
            simlog_field g[] = {F("backup", who), F("group", gv),
                                F("logSource", "pkg/backup/item_collector.go:257")};
            add_line(c, r, tc, 0, "info", "Getting items for group", g, 3);
            snprintf(last_gv, sizeof last_gv, "%s", gv);
        }
        simlog_field g[] = {F("backup", who), F("group", gv),
                            F("logSource", "pkg/backup/item_collector.go:364"),
                            F("resource", p->bare), F("namespace", "")};
        add_line(c, r, tc, 0, "info", "Getting items for resource", g, 4);
        if (!strcmp(p->gr, "namespaces")) continue;
        int known = p->items - p->added;
        size_t nloop = p->namespaced ? nns : 1;
        for (size_t j = 0; j < nloop; j++) {
            int cnt = p->namespaced ? known / (int)nns + ((int)j < known % (int)nns) : known;
            g[4].val = p->namespaced ? sp_run_ns(r, j) : "";
            g[2].val = "pkg/backup/item_collector.go:539";
            add_line(c, r, tc, 0, "info", "Listing items", g, 5);
            snprintf(m, sizeof m, "Retrieved %d items", cnt);
            g[2].val = "pkg/backup/item_collector.go:575";
            add_line(c, r, tc, 0, "info", m, g, 5);
        }
    }
    snprintf(m, sizeof m,
             "Collected %d items matching the backup spec from the Kubernetes API (actual number "
             "of items backed up may be more or less depending on velero.io/exclude-from-backup "
             "annotation, plugins returning additional related items to back up, etc.)",
             r->est0);
    {
        simlog_field g[] = {F("backup", who), F("logSource", "pkg/backup/backup.go:398"),
                            F("progress", "")};
        add_line(c, r, tc, 0, "info", m, g, 3);
    }

    /* ItemBlocks: block b holds items [bfirst[b], bfirst[b+1]) */
    int *bfirst = xcalloc((size_t)r->n_items + 2, sizeof *bfirst);
    int nb = 0;
    for (int k = 0; k < r->n_items; k++)
        if (k == 0 || item_collected(item_res(r, k), k)) bfirst[nb++] = k;
    bfirst[nb] = r->n_items;
    int last_items = r->fail_item >= 0 ? r->fail_item : r->n_items;
    int n_err = failed ? r->errors - 1 : r->errors;
    int ei = 0, wi = 0;
    for (int b = 0; b < nb; b++) {
        /* the worker takes block j when block j-1 is backed up */
        int qb = b - BLOCK_LOOKAHEAD;
        double tq = qb <= 0 ? r->t_items0 : sp_item_time(r, bfirst[qb] - 1) + 1e-4;
        if (tq < r->t_fail) {
            const sp_res *qp = NULL;
            const char *qns = NULL;
            for (int k = bfirst[b]; k < bfirst[b + 1]; k++) {
                const sp_res *p = item_res(r, k);
                if (!item_collected(p, k)) continue;
                sp_item_id(r, p, k - p->first, &qns, name, sizeof name);
                qp = p;
                simlog_field g[] = {F("backup", who),  F("logSource", "pkg/backup/backup.go:575"),
                                    F("name", name),   F("namespace", qns ? qns : ""),
                                    F("progress", ""), F("resource", p->gr)};
                add_line(c, r, tq, 0, "info", "Processing item", g, 6);
            }
            if (qp) { /* name is the block's last collected item */
                snprintf(m, sizeof m, "Backing Up Item Block including %s %s/%s (1 items in block)",
                         qp->gr, qns ? qns : "", name);
                simlog_field g[] = {F("backup", who), F("logSource", "pkg/backup/backup.go:612")};
                add_line(c, r, tq, 0, "info", m, g, 2);
            }
        }
        int k;
        for (k = bfirst[b]; k < bfirst[b + 1] && k < last_items; k++) {
            const sp_res *p = item_res(r, k);
            const char *nsn;
            sp_item_id(r, p, k - p->first, &nsn, name, sizeof name);
            double tp = sp_item_time(r, k) - 0.5 / s->rate;
            simlog_field g[] = {F("backup", who),
                                F("logSource", "pkg/backup/item_backupper.go:186"), F("name", name),
                                F("namespace", nsn ? nsn : ""), F("resource", p->gr)};
            add_line(c, r, tp, 0, "info", "Backing up item", g, 5);
            item_results(c, r, k, last_items, n_err, &ei, &wi, p, nsn, name, tp);
        }
        if (k < bfirst[b + 1] || k == bfirst[b]) continue; /* never finished */
        const sp_res *p = item_res(r, bfirst[b]);
        const char *nsn;
        sp_item_id(r, p, bfirst[b] - p->first, &nsn, name, sizeof name);
        snprintf(m, sizeof m,
                 "Backed up %d items out of an estimated total of %d (estimate will change "
                 "throughout the backup)",
                 k, sp_estimate_at(r, k));
        simlog_field g[] = {F("backup", who),
                            F("kind", p->groupkind),
                            F("logSource", "pkg/backup/backup.go:560"),
                            F("name", name),
                            F("namespace", nsn ? nsn : ""),
                            F("progress", "")};
        add_line(c, r, sp_item_time(r, k - 1), 0, "info", m, g, 6);
    }
    free(bfirst);
    plan_tail_lines(c, r, failed, ei, n_err, wi);
    if (failed || !isfinite(r->t_pass_end)) return;
    simlog_field g[] = {F("backup", who), F("logSource", "pkg/backup/backup.go:632"),
                        F("progress", "")};
    add_line(c, r, t_items_end, 0, "info", "done processing ItemBlocks", g, 2);
    g[1].val = "pkg/podvolume/backupper.go:401";
    add_line(c, r, t_items_end, 0, "info", "Waiting for completion of PVB", g, 2);
    snprintf(m, sizeof m, "Backed up a total of %d items", r->n_items);
    g[1].val = "pkg/backup/backup.go:684";
    add_line(c, r, r->t_pass_end, 0, "info", m, g, 3);
    snprintf(m, sizeof m, "Initial backup processing complete, moving to %s",
             sp_run_phase(r, r->t_pass_end));
    snprintf(ls, sizeof ls, "%s859", ctl);
    g[1].val = ls;
    add_line(c, r, r->t_pass_end + 0.001, 1, "info", m, g, 2); /* server logger */
}

/* A restore's lines (restore_controller.go, restore.go): every resource's turn announced up front,
 * then per item "Attempting to restore" and "Restored N items out of an estimated total of M";
 * namespaces are restored (and counted in N) without either line. */
void slt_plan_restore(const sp_ctx *c, sp_run *r, int failed)
{
    const scn_run *s = &r->sr;
    char who[300], name[200], m[700];
    snprintf(who, sizeof who, "%s/%s", c->ns, s->name);
    simlog_field f[] = {F("logSource", "pkg/controller/restore_controller.go:563"),
                        F("restore", who)};
    add_line(c, r, r->t_start, 0, "info", "starting restore", f, 2);
    snprintf(m, sizeof m, "Starting restore of backup %s/%s", c->ns, s->backup ? s->backup : "");
    f[0].val = "pkg/restore/restore.go:434";
    add_line(c, r, r->t_start, 0, "info", m, f, 2);
    double tc = r->t_start + 0.1;
    size_t nns = sp_run_nns(r);
    for (size_t i = 0; i < r->nres; i++) {
        const sp_res *p = &r->res[i];
        size_t nloop = p->namespaced ? nns : 1;
        for (size_t j = 0; j < nloop; j++) {
            if (p->namespaced) {
                snprintf(m, sizeof m, "Resource '%s' will be restored into namespace '%s'", p->gr,
                         sp_run_ns(r, j));
                f[0].val = "pkg/restore/restore.go:2313";
            } else {
                snprintf(m, sizeof m, "Resource '%s' will be restored at cluster scope", p->gr);
                f[0].val = "pkg/restore/restore.go:2315";
            }
            add_line(c, r, tc, 0, "info", m, f, 2);
        }
    }
    int last_items = r->fail_item >= 0 ? r->fail_item : r->n_items;
    int n_err = failed ? r->errors - 1 : r->errors;
    int ei = 0, wi = 0;
    for (int k = 0; k < last_items; k++) {
        const sp_res *p = item_res(r, k);
        const char *nsn;
        sp_item_id(r, p, k - p->first, &nsn, name, sizeof name);
        double tk = sp_item_time(r, k), tp = tk - 0.5 / s->rate;
        if (strcmp(p->gr, "namespaces")) {
            const char *kind = p->groupkind;
            size_t kl = strcspn(kind, ".");
            snprintf(m, sizeof m, "Attempting to restore %.*s: %s.", (int)kl, kind, name);
            simlog_field g[] = {
                F("groupResource", p->gr), F("logSource", "pkg/restore/restore.go:1506"),
                F("namespace", nsn ? nsn : ""), F("original name", name), F("restore", who)};
            add_line(c, r, tp, 0, "info", m, g, 5);
        }
        item_results(c, r, k, last_items, n_err, &ei, &wi, p, nsn, name, tp);
        if (!strcmp(p->gr, "namespaces")) continue;
        snprintf(m, sizeof m,
                 "Restored %d items out of an estimated total of %d (estimate will change "
                 "throughout the restore)",
                 k + 1, sp_estimate_at(r, k + 1));
        simlog_field g[] = {F("logSource", "pkg/restore/restore.go:799"),
                            F("name", name),
                            F("namespace", nsn ? nsn : ""),
                            F("progress", ""),
                            F("resource", p->gr),
                            F("restore", who)};
        add_line(c, r, tk, 0, "info", m, g, 6);
    }
    plan_tail_lines(c, r, failed, ei, n_err, wi);
    if (failed || !isfinite(r->t_pass_end)) return;
    f[0].val = "pkg/restore/restore.go:676";
    add_line(c, r, r->t_pass_end, 0, "info", "Waiting for all pod volume restores to complete", f,
             2);
    f[0].val = "pkg/restore/restore.go:692";
    add_line(c, r, r->t_pass_end, 0, "info", "Done waiting for all pod volume restores to complete",
             f, 2);
    f[0].val = "pkg/controller/restore_controller.go:624";
    add_line(c, r, r->t_pass_end + 0.001, 0, "info", "restore completed", f, 2);
}

#undef F
