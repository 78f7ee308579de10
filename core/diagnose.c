/* diagnose.c: the "why is it stuck?" rules of diagnose.h, each from evidence in the model (runs,
 * volumes and their trackers) and the health picture (server pod, node-agents, locations). */
#include "diagnose.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "itemops.h"
#include "queue.h"

static void dg_add(diag *out, size_t max, size_t *n, const char *code, double since,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void dg_add(diag *out, size_t max, size_t *n, const char *code, double since,
                   const char *fmt, ...)
{
    if (*n >= max) return;
    diag *d = &out[(*n)++];
    d->code = code;
    d->since = since;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
}

static const char *dg_kind(const model_run *r)
{
    return r->kind == VL_BACKUP ? "backup" : "restore";
}

static const char *dg_vkind(vl_kind k)
{
    return k == VL_PVB   ? "PodVolumeBackup"
           : k == VL_PVR ? "PodVolumeRestore"
           : k == VL_DU  ? "DataUpload"
                         : "DataDownload";
}

#define DG_RESTART_REASON "during the server starting"

static void dg_restart(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const vl_run *run = r->run;
    if (run->phase_id == VL_PH_FAILED && run->failure_reason &&
        strstr(run->failure_reason, DG_RESTART_REASON)) {
        const kc_pod *p = c->h ? c->h->server : NULL;
        char why[96] = "";
        if (p && p->last_reason && p->last_restart >= run->started)
            snprintf(why, sizeof why, " (it restarted: %s, exit %d)", p->last_reason,
                     p->last_exit_code);
        dg_add(out, max, n, "server-restarted", run->completed,
               "orphaned by a Velero server restart%s: marked Failed when the server started again",
               why);
        return;
    }
    if (run->phase_id != VL_PH_IN_PROGRESS || run->started <= 0 || !c->h || !c->h->server) return;
    const kc_pod *p = c->h->server;
    char clock[32];
    if (p->last_restart > run->started) {
        dg_add(
            out, max, n, "server-restarted", p->last_restart,
            "the Velero server restarted at %s (%s, exit %d) after this %s started: Velero marks "
            "it Failed when it starts again",
            fmt_clock(clock, sizeof clock, p->last_restart, 0),
            p->last_reason ? p->last_reason : "reason unknown", p->last_exit_code, dg_kind(r));
    } else if (p->created > run->started) {
        dg_add(out, max, n, "server-restarted", p->created,
               "the Velero server pod %s was replaced at %s, after this %s started: Velero marks "
               "it Failed when it starts again",
               p->name ? p->name : "?", fmt_clock(clock, sizeof clock, p->created, 0), dg_kind(r));
    }
}

static int dg_waiting(const vl_run *run)
{
    return run->phase_id == VL_PH_NEW || run->phase_id == VL_PH_QUEUED ||
           run->phase_id == VL_PH_READY_TO_START;
}

static void dg_queue(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const vl_run *run = r->run;
    if (!dg_waiting(run)) return;
    const model_run *ahead = NULL;
    int64_t pos = 1;
    for (size_t i = 0; i < c->m->n_runs; i++) {
        const model_run *o = c->m->runs[i];
        if (o == r || o->kind != r->kind || !o->run) continue;
        if (vl_phase_active(o->run->phase_id)) {
            if (!ahead || o->run->started < ahead->run->started) ahead = o;
        } else if (dg_waiting(o->run) &&
                   (o->run->meta.created < run->meta.created ||
                    (o->run->meta.created == run->meta.created && strcmp(o->name, r->name) < 0))) {
            pos++;
        }
    }
    if (!ahead) return;
    if (run->queue_position > 0) pos = run->queue_position;
    char dur[32];
    dg_add(out, max, n, "queued", run->meta.created,
           "%s at position %lld, behind %s %s (%s for %s)", run->phase, (long long)pos,
           dg_kind(ahead), ahead->name, ahead->run->phase,
           fmt_duration(dur, sizeof dur,
                        ahead->run->started > 0 ? c->wall - ahead->run->started : -1));
}

/* the dead queue and a ReadyToStart backup nobody takes (queue.h) */
static void dg_queue_dead(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const model_run *head;
    double since;
    char dur[32];
    if (queue_dead(c->m, r, c->wall, &head, &since))
        dg_add(out, max, n, "queue-dead", since,
               "the backup queue is dead: nothing in progress for %s while %s %s waits at its head",
               fmt_duration(dur, sizeof dur, c->wall - since),
               head == r ? "this backup" : head->name, head->run->phase);
    if (queue_ready_stuck(r, c->wall, &since))
        dg_add(out, max, n, "ready-to-start-stuck", since,
               "ReadyToStart for %s: the backup controller has not started it",
               fmt_duration(dur, sizeof dur, c->wall - since));
}

static void dg_volumes(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    if (vl_phase_terminal(r->run->phase_id)) return; /* most runs: no pass over the volumes */
    model_volume *vols[256];
    size_t nv = model_run_volumes(c->m, r, vols, 256);
    if (nv > 256) nv = 256;
    char dur[32];
    for (size_t i = 0; i < nv; i++) {
        const vl_volume *v = vols[i]->vol;
        if (!v || v->waiting_since <= 0) continue;
        double waited = c->wall - v->waiting_since;
        int podvol = v->kind == VL_PVB || v->kind == VL_PVR;
        if (podvol && (v->phase_id == VL_PH_NEW || v->phase_id == VL_PH_ACCEPTED) &&
            waited > DIAG_VOLUME_WAIT_S && v->node && c->h && c->h->pods_known) {
            const kc_pod *a = health_agent_on(c->h, v->node);
            if (a && a->ready) continue;
            char agent[160];
            if (a)
                snprintf(agent, sizeof agent, "whose node-agent %s is not ready", a->name);
            else
                snprintf(agent, sizeof agent, "which has no node-agent pod");
            dg_add(out, max, n, "node-agent-not-ready", v->waiting_since,
                   "%s %s %s for %s on node %s, %s", dg_vkind(v->kind),
                   v->meta.name ? v->meta.name : "?", v->phase,
                   fmt_duration(dur, sizeof dur, waited), v->node, agent);
        } else if (!podvol && (v->phase_id == VL_PH_ACCEPTED || v->phase_id == VL_PH_PREPARED) &&
                   waited > DIAG_EXPOSER_WAIT_S) {
            dg_add(out, max, n, "exposer-stuck", v->waiting_since, "%s %s %s for %s%s%s: %s",
                   dg_vkind(v->kind), v->meta.name ? v->meta.name : "?", v->phase,
                   fmt_duration(dur, sizeof dur, waited), v->node ? " on node " : "",
                   v->node ? v->node : "",
                   v->phase_id == VL_PH_ACCEPTED ? "its data-mover pod has not become ready"
                                                 : "the data path has not started");
        }
    }
}

static void dg_bsl(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const vl_run *run = r->run;
    if (!c->h || vl_phase_terminal(run->phase_id)) return;
    const char *loc = run->storage_location;
    if (r->kind == VL_RESTORE && run->backup_name) {
        const model_run *b = model_find_run(c->m, VL_BACKUP, run->backup_name);
        loc = b && b->run ? b->run->storage_location : NULL;
    }
    const vl_bsl *bsl = health_bsl(c->h, loc);
    if (!bsl || !bsl->phase || strcmp(bsl->phase, "Unavailable")) return;
    /* since: when veltop first saw it so (or the validation that said so before); the last
     * validation moves with every retry, the outage does not */
    double since = health_bsl_since(c->h, loc);
    if (since <= 0) since = bsl->last_validated;
    char lv[48] = "";
    if (bsl->last_validated > 0) {
        char clock[32];
        snprintf(lv, sizeof lv, " (last validated %s)",
                 fmt_clock(clock, sizeof clock, bsl->last_validated, 0));
    }
    dg_add(out, max, n, "bsl-unavailable", since, "storage location %s is Unavailable%s%s%s", loc,
           lv, bsl->message ? ": " : "", bsl->message ? bsl->message : "");
}

static void dg_log(const diag_ctx *c, const model_run *r, const diag_log *log, diag *out,
                   size_t max, size_t *n)
{
    if (!log || log->last_time <= 0 || r->run->phase_id != VL_PH_IN_PROGRESS) return;
    double quiet = c->wall - log->last_time;
    if (quiet <= DIAG_LOG_SILENT_S) return;
    char dur[32];
    dg_add(out, max, n, "log-silent", log->last_time,
           "the Velero server has logged nothing for this %s for %s; its last line: %s", dg_kind(r),
           fmt_duration(dur, sizeof dur, quiet), log->last_line ? log->last_line : "(none)");
}

static void dg_done(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const vl_run *run = r->run;
    if (!vl_phase_active(run->phase_id) || run->phase_id == VL_PH_ACCEPTED ||
        run->phase_id == VL_PH_PREPARED)
        return;
    if (!run->has_progress || run->items_total <= 0 || run->items_done < run->items_total) return;
    double oe;
    int unk;
    if (itemops_eta(c->m, r, c->now, c->wall, &oe, &unk)) return; /* another plugin's at work */
    model_volume *vols[256];
    size_t nv = model_run_volumes(c->m, r, vols, 256);
    if (nv > 256) return;
    double since = 0;
    for (size_t i = 0; i < nv; i++) {
        const vl_volume *v = vols[i]->vol;
        if (!v || !vl_phase_terminal(v->phase_id)) return;
        if (v->completed > since) since = v->completed;
    }
    /* the item counter's last change, if one was seen after attaching (monotonic -> wall);
     * with nothing seen and no volume to date it, watching since attaching is the evidence */
    double last = est_last_change(r->items);
    if (last > r->attached + 0.5) {
        double w = c->wall - (c->now - last);
        if (w > since) since = w;
    } else if (since <= 0) {
        since = c->wall - (c->now - r->attached);
    }
    if (since <= 0 || c->wall - since <= DIAG_DONE_WAIT_S) return;
    char dur[32];
    dg_add(out, max, n, "all-done-phase-stuck", since,
           "all %lld items and %zu volume%s done %s ago, but the phase is still %s",
           (long long)run->items_total, nv, nv == 1 ? "" : "s",
           fmt_duration(dur, sizeof dur, c->wall - since), run->phase);
}

/* A plugin operation whose progress has not moved for longer than the run's item operation
 * timeout (Velero cancels it then, counted from its creation). */
static void dg_ops(const diag_ctx *c, const model_run *r, diag *out, size_t max, size_t *n)
{
    const itemops *io = r->item_ops;
    if (!io || !io->known || !itemops_waiting(r->run)) return;
    int def;
    double timeout = itemops_timeout(r->run, &def);
    for (size_t i = 0; i < io->n; i++) {
        const itemop *o = &io->ops[i];
        double quiet;
        if (!itemop_stalled(o, timeout, c->wall, &quiet)) continue;
        char dur[32], lim[32], tg[512];
        dg_add(out, max, n, "plugin-operation-stalled", o->moved_at,
               "plugin operation %s (%s) on %s: no progress for %s, longer than the item "
               "operation timeout (%s%s)",
               o->id, o->plugin, itemop_target(o, tg, sizeof tg),
               fmt_duration(dur, sizeof dur, quiet), fmt_duration(lim, sizeof lim, timeout),
               def ? ", Velero's default" : "");
    }
}

size_t diag_run(const diag_ctx *in, const model_run *r, const diag_log *log, diag *out, size_t max)
{
    size_t n = 0;
    if (!r || !r->run) return 0;
    /* every rule compares the cluster's timestamps (and the log's, stamped by the cluster) with
     * now: now on the cluster's clock; so are the findings' since */
    diag_ctx cc = *in;
    cc.wall = model_cluster_now(in->m, in->wall);
    const diag_ctx *c = &cc;
    dg_restart(c, r, out, max, &n);
    dg_queue(c, r, out, max, &n);
    dg_queue_dead(c, r, out, max, &n);
    dg_volumes(c, r, out, max, &n);
    dg_bsl(c, r, out, max, &n);
    dg_log(c, r, log, out, max, &n);
    dg_done(c, r, out, max, &n);
    dg_ops(c, r, out, max, &n);
    return n;
}
