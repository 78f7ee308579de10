/* readiness.c: restore readiness per schedule (readiness.h): the newest restorable backup of each
 * schedule of the health picture, its age against the interval, its location, the last restore. */
#include "readiness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "health.h"
#include "kubeclient/util.h"

static double ready_time(const vl_run *r)
{
    return r->started > 0 ? r->started : r->meta.created;
}

static int ready_restorable(const vl_run *r)
{
    return r->phase_id == VL_PH_COMPLETED || r->phase_id == VL_PH_PARTIALLY_FAILED;
}

/* The restore r restores from schedule name: spec.scheduleName, or spec.backupName is one of the
 * schedule's backups (as far as the model holds them). */
static int ready_from(const model *m, const vl_run *r, const char *name)
{
    if (r->schedule && !strcmp(r->schedule, name)) return 1;
    if (!r->backup_name) return 0;
    const model_run *b = model_find_run(m, VL_BACKUP, r->backup_name);
    return b && b->run && b->run->schedule && !strcmp(b->run->schedule, name);
}

static void ready_bsl(const health *h, const readiness *r, ready_schedule *rs)
{
    if (!rs->backup) {
        rs->bsl = RDY_UNKNOWN; /* no backup, no location to judge */
        return;
    }
    if (r->bsls_unread[0]) {
        rs->bsl = RDY_UNKNOWN;
        snprintf(rs->bsl_why, sizeof rs->bsl_why, "cannot read backupstoragelocations: %.150s",
                 r->bsls_unread);
        return;
    }
    const vl_bsl *b = health_bsl(h, rs->backup->storage_location);
    if (!b) {
        rs->bsl = RDY_NO;
        snprintf(rs->bsl_why, sizeof rs->bsl_why, "no such location");
    } else if (!b->phase || !*b->phase) {
        rs->bsl = RDY_UNKNOWN;
        snprintf(rs->bsl_why, sizeof rs->bsl_why, "no phase yet");
    } else if (!strcmp(b->phase, "Available")) {
        rs->bsl = RDY_YES;
    } else {
        rs->bsl = RDY_NO;
        snprintf(rs->bsl_why, sizeof rs->bsl_why, "%.150s", b->phase);
    }
}

readiness *ready_build(const health *h, const model *m, const char *restores_unread)
{
    readiness *r = xcalloc(1, sizeof *r);
    r->now = h->now;
    snprintf(r->backups_unread, sizeof r->backups_unread, "%s", h->unread[HEALTH_IN_BACKUPS]);
    snprintf(r->bsls_unread, sizeof r->bsls_unread, "%s", h->unread[HEALTH_IN_BSLS]);
    snprintf(r->restores_unread, sizeof r->restores_unread, "%s",
             restores_unread ? restores_unread : "");
    r->n = h->n_sch;
    r->s = r->n ? xcalloc(r->n, sizeof *r->s) : NULL;
    for (size_t i = 0; i < r->n; i++) {
        const health_schedule *hs = &h->sch[i];
        ready_schedule *rs = &r->s[i];
        const char *name = hs->s->meta.name ? hs->s->meta.name : "";
        rs->schedule = name;
        rs->known = !r->backups_unread[0];
        rs->restores_known = !r->restores_unread[0];
        rs->interval = hs->cron_ok ? hs->due.interval : 0;
        rs->age = -1;
        for (size_t k = 0; m && k < m->n_runs; k++) {
            const vl_run *x = m->runs[k]->run;
            if (!x) continue;
            if (m->runs[k]->kind == VL_BACKUP) {
                if (!rs->known || !x->schedule || strcmp(x->schedule, name) || !ready_restorable(x))
                    continue;
                if (!rs->backup || ready_time(x) > ready_time(rs->backup)) rs->backup = x;
            } else if (rs->restores_known && x->phase_id == VL_PH_COMPLETED &&
                       ready_from(m, x, name)) {
                if (!rs->restore || x->completed > rs->last_restore) {
                    rs->restore = x;
                    rs->last_restore = x->completed;
                }
            }
        }
        if (!rs->restores_known)
            snprintf(rs->restore_why, sizeof rs->restore_why, "cannot read restores: %.200s",
                     r->restores_unread);
        else if (!rs->known && !rs->restore) { /* by spec.backupName: unknown, not none */
            rs->restores_known = 0;
            snprintf(rs->restore_why, sizeof rs->restore_why, "cannot read backups: %.200s",
                     r->backups_unread);
        }
        if (rs->backup) {
            rs->taken = ready_time(rs->backup);
            rs->age = r->now - rs->taken;
            if (rs->age < 0) rs->age = 0;
        }
        ready_bsl(h, r, rs);
        double lim = READY_STALE_INTERVALS * rs->interval;
        if (rs->known && rs->interval > 0 && !hs->s->paused)
            rs->stale = rs->backup ? rs->age > lim
                                   : hs->s->meta.created > 0 && r->now - hs->s->meta.created > lim;
        r->n_stale += rs->stale;
    }
    return r;
}

void ready_free(readiness *r)
{
    if (!r) return;
    free(r->s);
    free(r);
}

const ready_schedule *ready_find(const readiness *r, const char *name)
{
    for (size_t i = 0; r && name && i < r->n; i++)
        if (!strcmp(r->s[i].schedule, name)) return &r->s[i];
    return NULL;
}

char *ready_line(const readiness *r, const ready_schedule *rs, char *buf, size_t n)
{
    size_t o = 0;
    char d[32];
    buf[0] = 0;
#define RL_ADD(...)                                                                                \
    do {                                                                                           \
        if (o < n) o += (size_t)snprintf(buf + o, n - o, __VA_ARGS__);                             \
    } while (0)
#define STALE_ADD()                                                                                \
    do {                                                                                           \
        char iv[32];                                                                               \
        RL_ADD(", older than %d intervals (%s)", READY_STALE_INTERVALS,                            \
               fmt_duration(iv, sizeof iv, rs->interval));                                         \
    } while (0)
    if (!rs->known) {
        RL_ADD("restorable: unknown (cannot read backups: %s)", r->backups_unread);
    } else if (!rs->backup) {
        RL_ADD("restorable: none");
        if (rs->stale) STALE_ADD();
    } else {
        const vl_run *b = rs->backup;
        RL_ADD("restorable: %s (%s, %s", b->meta.name ? b->meta.name : "?",
               fmt_ago(d, sizeof d, rs->age), b->phase ? b->phase : "?");
        if (b->phase_id == VL_PH_PARTIALLY_FAILED)
            RL_ADD(", %" PRId64 " error%s", b->errors, b->errors == 1 ? "" : "s");
        RL_ADD(")");
        if (rs->stale) STALE_ADD();
        const char *loc = b->storage_location ? b->storage_location : "?";
        if (rs->bsl == RDY_YES)
            RL_ADD(", BSL %s Available", loc);
        else if (rs->bsl == RDY_NO)
            RL_ADD(", BSL %s %s", loc, rs->bsl_why);
        else
            RL_ADD(", BSL %s unknown (%s)", loc, rs->bsl_why);
    }
    if (!rs->restores_known)
        RL_ADD(", last restore unknown (%s)", rs->restore_why);
    else if (!rs->restore)
        RL_ADD(", no restore found");
    else
        RL_ADD(", last restore %s", fmt_ago(d, sizeof d, r->now - rs->last_restore));
#undef STALE_ADD
#undef RL_ADD
    return buf;
}
