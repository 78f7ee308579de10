/* metrics.c: the Prometheus / OpenMetrics exposition of veltop's answers (metrics.h). Families
 * come from tables: a name, a help line and a getter that says whether the figure is known (an
 * unknown one has no sample). The writer is hand-written: libprometheus-cpp is C++ and the C
 * clients (prom/libprom) keep a registry of mutable collectors, while this renders a finished
 * picture in one pass. */
#include "metrics.h"

#include "itemops.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readiness.h"
#include "repo.h"
#include "runeta.h"
#include "veltop_version.h"

typedef struct mx_w {
    kc_buf *b;
    mx_format f;
    /* the family whose HELP/TYPE are written before its first sample: a family with no sample
     * has no header either (no empty families in the exposition) */
    const char *fam, *fam_help;
} mx_w;

/* ---- label values: escaped, valid UTF-8 ------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when the byte starts none (overlong
 * forms, surrogates and code points past U+10FFFF are invalid, as Go's utf8.ValidString says). */
static size_t mx_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned cp, min;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

void mx_label_value(kc_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), run = 0;
    for (size_t i = 0; i < n;) {
        size_t l = mx_utf8_len(p + i, n - i);
        const char *esc = NULL;
        if (l == 0)
            esc = "\xef\xbf\xbd"; /* U+FFFD for a byte of no valid sequence */
        else if (p[i] == '\\')
            esc = "\\\\";
        else if (p[i] == '"')
            esc = "\\\"";
        else if (p[i] == '\n')
            esc = "\\n";
        if (!esc) {
            i += l;
            run += l;
            continue;
        }
        kc_buf_append(b, p + i - run, run);
        kc_buf_append(b, esc, strlen(esc));
        run = 0;
        i += l ? l : 1;
    }
    kc_buf_append(b, p + n - run, run);
}

/* ---- lines ----------------------------------------------------------------------------------- */

/* "# HELP / # TYPE" (and "# UNIT" in OpenMetrics) of a family. Info families are gauges named
 * *_info in the text format; in OpenMetrics the family drops the suffix and has type info. */
static void mx_header(mx_w *w, const char *name, const char *help)
{
    size_t nl = strlen(name);
    int info = nl > 5 && !strcmp(name + nl - 5, "_info");
    int om = w->f == MX_OPENMETRICS;
    int fl = (int)(info && om ? nl - 5 : nl);
    kc_buf_printf(w->b, "# HELP %.*s %s\n# TYPE %.*s %s\n", fl, name, help, fl, name,
                  info && om ? "info" : "gauge");
    if (om) {
        static const char *units[] = {"seconds", "bytes"};
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t ul = strlen(units[i]);
            if (nl > ul + 1 && name[nl - ul - 1] == '_' && !strcmp(name + nl - ul, units[i]))
                kc_buf_printf(w->b, "# UNIT %s %s\n", name, units[i]);
        }
    }
}

/* The family the next samples belong to: its header waits for its first sample (mx_begin). */
static void mx_family(mx_w *w, const char *name, const char *help)
{
    w->fam = name;
    w->fam_help = help;
}

/* Starts a sample of family name ("name{"): the family's header first, when this is its first. */
static void mx_begin(mx_w *w, const char *name)
{
    if (w->fam && !strcmp(w->fam, name)) {
        mx_header(w, w->fam, w->fam_help);
        w->fam = NULL;
    }
    kc_buf_printf(w->b, "%s{", name);
}

static void mx_label(mx_w *w, int *first, const char *k, const char *v)
{
    kc_buf_printf(w->b, "%s%s=\"", *first ? "" : ",", k);
    mx_label_value(w->b, v);
    kc_buf_append(w->b, "\"", 1);
    *first = 0;
}

static void mx_value(mx_w *w, double v)
{
    /* integers (counts, bytes up to 2^53) as integers, the rest with 15 significant digits;
     * the getters keep non-finite values out, but if one came it is spelled as the formats do */
    if (!isfinite(v))
        kc_buf_printf(w->b, "} %s\n", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        kc_buf_printf(w->b, "} %" PRId64 "\n", (int64_t)v);
    else
        kc_buf_printf(w->b, "} %.15g\n", v);
}

static void mx_cluster_labels(mx_w *w, int *first, const mx_cluster *c)
{
    mx_label(w, first, "context", c->context);
    mx_label(w, first, "namespace", c->ns);
}

static const char *mx_kind(vl_kind k)
{
    return k == VL_RESTORE ? "Restore" : "Backup";
}

static void mx_run_labels(mx_w *w, int *first, const mx_cluster *c, const run_answer *a)
{
    const vl_run *x = a->run ? a->run->run : NULL;
    mx_cluster_labels(w, first, c);
    mx_label(w, first, "kind", mx_kind(a->kind));
    mx_label(w, first, "name", a->run ? a->run->name : "");
    mx_label(w, first, "schedule", x && x->schedule ? x->schedule : "");
}

/* ---- per run in flight ----------------------------------------------------------------------- */

typedef int (*mx_run_get)(const run_answer *a, double *v);

static int g_items_done(const run_answer *a, double *v)
{
    *v = (double)a->items_done;
    return a->items_known;
}
static int g_items_expected(const run_answer *a, double *v)
{
    *v = (double)a->items_total;
    return a->items_known && a->items_total > 0; /* totalItems is omitempty: 0 is "not yet" */
}
static int g_items_estimated(const run_answer *a, double *v)
{
    *v = a->items_estimated ? 1 : 0;
    return a->items_known && a->items_total > 0;
}
static int g_bytes_done(const run_answer *a, double *v)
{
    *v = (double)a->bytes_done;
    return a->bytes_known;
}
static int g_bytes_expected(const run_answer *a, double *v)
{
    *v = (double)a->bytes_total;
    return a->bytes_total_known;
}
static int g_items_rate(const run_answer *a, double *v)
{
    *v = a->items_rate;
    return a->items_rate >= 0 && isfinite(a->items_rate);
}
static int g_bytes_rate(const run_answer *a, double *v)
{
    *v = a->bytes_rate;
    return a->bytes_rate >= 0 && isfinite(a->bytes_rate);
}
static int g_eta(const run_answer *a, double *v)
{
    *v = ceil(a->eta); /* whole seconds rounded up, as --once --json: never 0 while time is left */
    return a->eta_kind != ANS_ETA_NONE && a->eta >= 0 && isfinite(a->eta);
}
static int g_eta_end(const run_answer *a, double *v)
{
    *v = a->eta_end;
    return a->eta_kind != ANS_ETA_NONE && a->eta_end > 0 && isfinite(a->eta_end);
}
static int g_eta_bound(const run_answer *a, double *v)
{
    *v = a->eta_kind == ANS_ETA_BOUND ? 1 : 0;
    return a->eta_kind != ANS_ETA_NONE;
}
static int g_stalled(const run_answer *a, double *v)
{
    *v = a->stalled == ANS_YES ? 1 : 0;
    return a->stalled != ANS_UNKNOWN;
}
static int g_stalled_for(const run_answer *a, double *v)
{
    *v = a->stalled == ANS_YES ? floor(a->stalled_for) : 0;
    return a->stalled != ANS_UNKNOWN;
}
static int g_last_progress(const run_answer *a, double *v)
{
    *v = a->last_progress;
    return a->last_progress > 0;
}
/* The run's own timestamps are the object's, on the cluster's clock, as --once --json writes
 * them (veltop_cluster_clock_offset_seconds says how far that clock is from ours); a time no
 * RFC 3339 date can write is unknown there, and absent here. */
static int mx_stamp(double t, double *v)
{
    *v = t;
    return t > 0 && t < KC_TIME_END;
}
static int g_started(const run_answer *a, double *v)
{
    return mx_stamp(a->run && a->run->run ? a->run->run->started : 0, v);
}
static int g_ended(const run_answer *a, double *v)
{
    return mx_stamp(a->ended > 0 && a->run && a->run->run ? a->run->run->completed : 0, v);
}

static const struct {
    const char *name, *help;
    mx_run_get get;
} mx_run_families[] = {
    {"veltop_run_start_timestamp_seconds", "Start of the run (startTimestamp), unix seconds.",
     g_started},
    {"veltop_run_items_done", "Items processed so far (itemsBackedUp / itemsRestored).",
     g_items_done},
    {"veltop_run_items_expected", "Items the run expects to process (totalItems).",
     g_items_expected},
    {"veltop_run_items_expected_estimated",
     "1 while the expected item count is Velero's estimate and may still change.",
     g_items_estimated},
    {"veltop_run_done_bytes", "Bytes moved so far over the run's volumes.", g_bytes_done},
    {"veltop_run_expected_bytes", "Bytes the run's volumes hold, once every volume is sized.",
     g_bytes_expected},
    {"veltop_run_items_per_second", "Items processed per second, live.", g_items_rate},
    {"veltop_run_bytes_per_second", "Bytes moved per second over the run's volumes, live.",
     g_bytes_rate},
    {"veltop_run_eta_seconds", "Seconds until the run ends (absent when no end can be predicted).",
     g_eta},
    {"veltop_run_eta_timestamp_seconds", "Predicted end of the run, unix seconds.", g_eta_end},
    {"veltop_run_eta_lower_bound", "1 when the ETA is a lower bound: the run will not end sooner.",
     g_eta_bound},
    {"veltop_run_stalled", "1 when nothing the run waits on moves (absent when unknown).",
     g_stalled},
    {"veltop_run_stalled_seconds", "Seconds the run has not moved (0 while it moves).",
     g_stalled_for},
    {"veltop_run_last_progress_timestamp_seconds",
     "Newest evidence of progress of what the run waits on, unix seconds.", g_last_progress},
};
#define MX_NRUNF (sizeof mx_run_families / sizeof mx_run_families[0])

static const char *mx_part(re_part p)
{
    static const char *n[RE_NPARTS] = {"items", "podVolumes", "dataMover", "finalizing"};
    return p < RE_NPARTS ? n[p] : "unknown";
}

/* One sample per finding of a's diagnosis (the answer's, as --once --json lists them). */
static void mx_findings(mx_w *w, const char *fam, const mx_cluster *c, const run_answer *a)
{
    for (size_t d = 0; d < a->n_diag; d++) {
        int first = 1;
        mx_begin(w, fam);
        mx_run_labels(w, &first, c, a);
        mx_label(w, &first, "rule", a->diag[d].code);
        mx_value(w, 1);
    }
}

static void mx_runs(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    mx_family(w, "veltop_run_info", "A run in flight, with its phase.");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_runs; i++) {
            const run_answer *a = &cl[c].runs[i];
            if (!a->active) continue;
            int first = 1;
            mx_begin(w, "veltop_run_info");
            mx_run_labels(w, &first, &cl[c], a);
            mx_label(w, &first, "phase", a->run && a->run->run ? a->run->run->phase : "");
            mx_value(w, 1);
        }
    for (size_t f = 0; f < MX_NRUNF; f++) {
        mx_family(w, mx_run_families[f].name, mx_run_families[f].help);
        for (size_t c = 0; c < ncl; c++)
            for (size_t i = 0; i < cl[c].n_runs; i++) {
                const run_answer *a = &cl[c].runs[i];
                double v;
                if (!a->active || !mx_run_families[f].get(a, &v)) continue;
                int first = 1;
                mx_begin(w, mx_run_families[f].name);
                mx_run_labels(w, &first, &cl[c], a);
                mx_value(w, v);
            }
    }
    mx_family(w, "veltop_run_waiting_info",
              "What the run's end waits on now: part (items, podVolumes, dataMover, finalizing) "
              "and volume (namespace/pod:volume or PVC, empty when none).");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_runs; i++) {
            const run_answer *a = &cl[c].runs[i];
            if (!a->active || a->waiting_unknown) continue; /* unknown: no sample */
            char vol[512] = "";
            if (a->waiting_vol) runeta_vol_label(vol, sizeof vol, a->waiting_vol);
            int first = 1;
            mx_begin(w, "veltop_run_waiting_info");
            mx_run_labels(w, &first, &cl[c], a);
            mx_label(w, &first, "part", mx_part(a->waiting));
            mx_label(w, &first, "volume", vol);
            mx_value(w, 1);
        }
    mx_family(w, "veltop_run_eta_caveat_info",
              "Why the run's ETA estimate may still grow, in the words every surface uses (the "
              "list's '+'): volumes not sized yet, more volumes may come, a volume is stalled ...");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_runs; i++) {
            const run_answer *a = &cl[c].runs[i];
            if (!a->active || a->eta_kind != ANS_ETA_ESTIMATE || !a->eta_caveat) continue;
            int first = 1;
            mx_begin(w, "veltop_run_eta_caveat_info");
            mx_run_labels(w, &first, &cl[c], a);
            mx_label(w, &first, "caveat", a->eta_caveat);
            mx_value(w, 1);
        }
    mx_family(w, "veltop_run_diagnosis_info",
              "A finding of veltop's diagnosis of a run not finished (in flight or waiting to "
              "start), one per rule.");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_runs; i++)
            mx_findings(w, "veltop_run_diagnosis_info", &cl[c], &cl[c].runs[i]);
}

/* ---- the last finished run per schedule ------------------------------------------------------ */

static void mx_last_labels(mx_w *w, int *first, const mx_cluster *c, const run_answer *a)
{
    mx_run_labels(w, first, c, a);
}

/* A finished run's duration (3), errors (4) or warnings (5): the object's own figures (Velero
 * omits zero counts: a finished run without them had none). */
static int mx_last_more(const run_answer *a, int which, double *v)
{
    const vl_run *x = a->run ? a->run->run : NULL;
    if (!x) return 0;
    if (which == 3) {
        *v = x->completed - x->started;
        return x->started > 0 && x->completed >= x->started && x->completed < KC_TIME_END;
    }
    *v = (double)(which == 4 ? x->errors : x->warnings);
    return 1;
}

static void mx_lasts(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    mx_family(w, "veltop_last_run_info",
              "The newest finished run of each kind and schedule (an empty schedule: runs of "
              "no schedule), with its end phase.");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_last; i++) {
            const run_answer *a = &cl[c].last[i];
            int first = 1;
            mx_begin(w, "veltop_last_run_info");
            mx_last_labels(w, &first, &cl[c], a);
            mx_label(w, &first, "phase", a->run && a->run->run ? a->run->run->phase : "");
            mx_value(w, 1);
        }
    static const struct {
        const char *name, *help;
        int which;
    } fams[] = {
        {"veltop_last_run_end_timestamp_seconds", "End of that run, unix seconds.", 0},
        {"veltop_last_run_items_done", "Items that run processed.", 1},
        {"veltop_last_run_done_bytes", "Bytes that run's volumes moved.", 2},
        {"veltop_last_run_duration_seconds",
         "Seconds from that run's start to its end (startTimestamp to completionTimestamp).", 3},
        {"veltop_last_run_errors", "Errors that run ended with (status.errors).", 4},
        {"veltop_last_run_warnings", "Warnings that run ended with (status.warnings).", 5},
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        mx_family(w, fams[f].name, fams[f].help);
        for (size_t c = 0; c < ncl; c++)
            for (size_t i = 0; i < cl[c].n_last; i++) {
                const run_answer *a = &cl[c].last[i];
                double v = fams[f].which == 1 ? (double)a->items_done : (double)a->bytes_done;
                int known = fams[f].which == 0   ? g_ended(a, &v)
                            : fams[f].which == 1 ? a->items_known
                            : fams[f].which == 2 ? a->bytes_known
                                                 : mx_last_more(a, fams[f].which, &v);
                if (!known) continue;
                int first = 1;
                mx_begin(w, fams[f].name);
                mx_last_labels(w, &first, &cl[c], a);
                mx_value(w, v);
            }
    }
    mx_family(w, "veltop_last_run_diagnosis_info",
              "A finding of veltop's diagnosis of that run, one per rule.");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < cl[c].n_last; i++)
            mx_findings(w, "veltop_last_run_diagnosis_info", &cl[c], &cl[c].last[i]);
}

run_answer *mx_run_answers(const ans_ctx *c, const model *m, size_t *nout)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_runs; i++)
        n += m->runs[i]->run && !vl_phase_terminal(m->runs[i]->run->phase_id);
    run_answer *out = xcalloc(n ? n : 1, sizeof *out);
    n = 0;
    for (size_t i = 0; i < m->n_runs; i++)
        if (m->runs[i]->run && !vl_phase_terminal(m->runs[i]->run->phase_id))
            answer_run(c, m->runs[i], &out[n++]);
    *nout = n;
    return out;
}

run_answer *mx_last_runs(const ans_ctx *c, const model *m, size_t *nout)
{
    size_t max = MX_LAST_MAX;
    /* the newest finished run (by completion, the cluster's clock) per (kind, schedule): a linear
     * table, as schedules are few (and capped at max) */
    const model_run **pick = xcalloc(max, sizeof *pick);
    size_t n = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *r = m->runs[i];
        const vl_run *x = r->run;
        if (!x || !vl_phase_terminal(x->phase_id)) continue;
        const char *s = x->schedule ? x->schedule : "";
        size_t k = 0;
        for (; k < n; k++) {
            const vl_run *y = pick[k]->run;
            if (pick[k]->kind == r->kind && !strcmp(y->schedule ? y->schedule : "", s)) break;
        }
        if (k == n) {
            if (n == max) continue;
            pick[n++] = r;
        } else if (x->completed > pick[k]->run->completed ||
                   (x->completed == pick[k]->run->completed &&
                    strcmp(r->name, pick[k]->name) > 0)) {
            pick[k] = r;
        }
    }
    run_answer *out = xcalloc(n ? n : 1, sizeof *out);
    for (size_t k = 0; k < n; k++) answer_run(c, pick[k], &out[k]);
    free(pick);
    *nout = n;
    return out;
}

/* ---- per schedule ---------------------------------------------------------------------------- */

static void mx_schedules(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    static const struct {
        const char *name, *help;
    } fams[] = {
        {"veltop_schedule_paused", "1 when the schedule is paused."},
        {"veltop_schedule_next_run_timestamp_seconds",
         "When Velero will next fire the schedule, unix seconds (absent when paused or its cron "
         "expression is not understood)."},
        {"veltop_schedule_interval_seconds", "Seconds between the schedule's next two firings."},
        {"veltop_schedule_last_success_timestamp_seconds",
         "Start of the schedule's newest Completed backup, unix seconds."},
        {"veltop_schedule_overdue",
         "1 when no backup of the schedule succeeded within two of its intervals (one interval "
         "late), plus its usual duration."},
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        mx_family(w, fams[f].name, fams[f].help);
        for (size_t c = 0; c < ncl; c++) {
            const health *h = cl[c].h;
            for (size_t i = 0; h && i < h->n_sch; i++) {
                const health_schedule *s = &h->sch[i];
                double v = 0;
                int known = 1;
                switch (f) {
                case 0:
                    v = s->s->paused ? 1 : 0;
                    break;
                case 1:
                    v = s->due.next;
                    known = s->cron_ok && !s->s->paused && v > 0;
                    break;
                case 2:
                    v = s->due.interval;
                    known = s->cron_ok && v > 0;
                    break;
                case 3:
                    v = s->last_success;
                    known = v > 0;
                    break;
                default: /* unknown (absent) while its backups cannot be read */
                    v = s->due.overdue ? 1 : 0;
                    known = s->cron_ok && !s->runs_unknown;
                    break;
                }
                if (!known) continue;
                int first = 1;
                mx_begin(w, fams[f].name);
                mx_cluster_labels(w, &first, &cl[c]);
                mx_label(w, &first, "schedule", s->s->meta.name);
                mx_value(w, v);
            }
        }
    }
}

/* ---- restore readiness per schedule (readiness.h) -------------------------------------------- */

static void mx_readiness(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    static const struct {
        const char *name, *help;
    } fams[] = {
        {"veltop_schedule_restorable_age_seconds",
         "Age of the schedule's newest restorable backup (Completed or PartiallyFailed), from its "
         "start (absent when it has none or its backups cannot be read)."},
        {"veltop_schedule_restorable_stale",
         "1 when the schedule's newest restorable backup (or, with none, the schedule itself) is "
         "older than two of its intervals; paused schedules are never stale."},
        {"veltop_schedule_restorable_location_available",
         "1 when the storage location of the schedule's newest restorable backup is Available."},
        {"veltop_schedule_last_restore_timestamp_seconds",
         "End of the newest Completed restore from the schedule (by spec.scheduleName or a "
         "backup of the schedule), unix seconds."},
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        mx_family(w, fams[f].name, fams[f].help);
        for (size_t c = 0; c < ncl; c++) {
            const readiness *r = cl[c].h ? cl[c].h->ready : NULL;
            for (size_t i = 0; r && i < r->n; i++) {
                const ready_schedule *rs = &r->s[i];
                double v = 0;
                int known = 0;
                switch (f) {
                case 0:
                    v = floor(rs->age);
                    known = rs->known && rs->backup;
                    break;
                case 1:
                    v = rs->stale;
                    known = rs->known && rs->interval > 0;
                    break;
                case 2:
                    v = rs->bsl == RDY_YES;
                    known = rs->known && rs->backup && rs->bsl != RDY_UNKNOWN;
                    break;
                default:
                    known = rs->restores_known && mx_stamp(rs->last_restore, &v);
                    break;
                }
                if (!known) continue;
                int first = 1;
                mx_begin(w, fams[f].name);
                mx_cluster_labels(w, &first, &cl[c]);
                mx_label(w, &first, "schedule", rs->schedule);
                mx_value(w, v);
            }
        }
    }
}

/* ---- per volume of the runs in flight ---------------------------------------------------------
 */

static void mx_volumes(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    static const char *const fams[][2] = {
        {"veltop_volume_done_bytes", "Bytes a volume of a run in flight has moved (bytesDone)."},
        {"veltop_volume_expected_bytes",
         "Bytes that volume holds (totalBytes; absent until the volume is sized)."},
        {"veltop_volume_bytes_per_second",
         "Bytes per second that volume moves, as the run's ETA counts it (absent when unknown)."},
    };
    model_volume *vols[MX_VOLUMES_PER_RUN];
    for (size_t f = 0; f < 3; f++) {
        mx_family(w, fams[f][0], fams[f][1]);
        for (size_t c = 0; c < ncl; c++)
            for (size_t i = 0; cl[c].m && i < cl[c].n_runs; i++) {
                const run_answer *a = &cl[c].runs[i];
                if (!a->active || !a->run) continue;
                size_t n = model_run_volumes(cl[c].m, a->run, vols, MX_VOLUMES_PER_RUN);
                if (n > MX_VOLUMES_PER_RUN) n = MX_VOLUMES_PER_RUN;
                for (size_t k = 0; k < n; k++) {
                    const vl_volume *v = vols[k]->vol;
                    if (!v) continue;
                    double val = 0, eta;
                    int known = 1;
                    if (f == 0)
                        val = (double)v->bytes_done;
                    else if (f == 1) {
                        val = (double)v->bytes_total;
                        known = !model_volume_unsized(v);
                    } else {
                        runeta_volume(cl[c].m, vols[k], cl[c].now, cl[c].wall, &val, &eta);
                        known = val >= 0 && isfinite(val);
                    }
                    if (!known) continue;
                    char label[512];
                    runeta_vol_label(label, sizeof label, vols[k]);
                    int first = 1;
                    mx_begin(w, fams[f][0]);
                    mx_run_labels(w, &first, &cl[c], a);
                    mx_label(w, &first, "volume", label);
                    mx_value(w, val);
                }
            }
    }
}

/* ---- per async plugin operation of the runs waiting on them ---------------------------------- */

static void mx_itemops(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    static const char *const fams[][2] = {
        {"veltop_item_operation_progress_ratio",
         "nCompleted / nTotal of an async plugin operation a run in flight waits on (absent "
         "without nTotal)."},
        {"veltop_item_operation_completed",
         "nCompleted of that operation, in its operationUnits (BackupItemOperations / "
         "RestoreItemOperations)."},
        {"veltop_item_operation_total",
         "nTotal of that operation, in its operationUnits (absent when the plugin gives none)."},
    };
    for (size_t f = 0; f < 3; f++) {
        mx_family(w, fams[f][0], fams[f][1]);
        for (size_t c = 0; c < ncl; c++)
            for (size_t i = 0; i < cl[c].n_runs; i++) {
                const run_answer *a = &cl[c].runs[i];
                const itemops *io = a->active && a->run ? a->run->item_ops : NULL;
                if (!io || !io->known) continue;
                for (size_t k = 0; k < io->n && k < MX_OPS_PER_RUN; k++) {
                    const itemop *o = &io->ops[k];
                    if (f != 1 && !o->has_total) continue;
                    double v = f == 0   ? (double)o->done / (double)o->total
                               : f == 1 ? (double)o->done
                                        : (double)o->total;
                    int first = 1;
                    mx_begin(w, fams[f][0]);
                    mx_run_labels(w, &first, &cl[c], a);
                    mx_label(w, &first, "operation_id", o->id);
                    mx_label(w, &first, "plugin", o->plugin);
                    mx_label(w, &first, "units", o->units ? o->units : "");
                    mx_value(w, v);
                }
            }
    }
}

/* ---- per backup repository ------------------------------------------------------------------- */

static void mx_repos(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    static const struct {
        const char *name, *help;
    } fams[] = {
        {"veltop_repository_last_maintenance_age_seconds",
         "Seconds since the repository's last successful maintenance (status.lastMaintenanceTime; "
         "absent when it never succeeded)."},
        {"veltop_repository_maintenance_frequency_seconds",
         "The repository's spec.maintenanceFrequency (Velero's default, 7 days, when unset)."},
        {"veltop_repository_maintenance_overdue",
         "1 when the last successful maintenance is older than the frequency plus 5 minutes."},
        {"veltop_repository_maintenance_failure_streak",
         "Failed maintenances that end the repository's recent results (0: the newest "
         "succeeded); absent when it has no recent result. Velero keeps 25."},
        {"veltop_repository_phase",
         "1 for the repository's phase (New, Ready, NotReady, or as given)."},
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        mx_family(w, fams[f].name, fams[f].help);
        for (size_t c = 0; c < ncl; c++) {
            const repo_report *rp = cl[c].h ? cl[c].h->repos : NULL;
            if (!rp || rp->unread[0]) continue; /* unknown: no sample, not 0 */
            for (size_t i = 0; i < rp->n; i++) {
                const repo_row *rw = &rp->rows[i];
                const kc_repo *r = rw->r;
                double v = 0;
                int known = 1;
                switch (f) {
                case 0:
                    v = floor(rw->age);
                    known = rw->age >= 0;
                    break;
                case 1:
                    v = rw->frequency;
                    break;
                case 2:
                    v = rw->overdue ? 1 : 0;
                    known = rw->due > 0;
                    break;
                case 3:
                    v = rw->failed_streak;
                    known = r->n_recent > 0;
                    break;
                default:
                    v = 1;
                    break;
                }
                if (!known) continue;
                int first = 1;
                mx_begin(w, fams[f].name);
                mx_cluster_labels(w, &first, &cl[c]);
                mx_label(w, &first, "repository", r->name);
                mx_label(w, &first, "volume_namespace", r->volume_ns);
                mx_label(w, &first, "storage_location", r->bsl);
                mx_label(w, &first, "repository_type", r->type);
                if (f == 4) mx_label(w, &first, "phase", r->phase ? r->phase : "New");
                mx_value(w, v);
            }
        }
    }
}

/* ---- per cluster ----------------------------------------------------------------------------- */

static void mx_gauge(mx_w *w, const mx_cluster *c, const char *name, double v)
{
    int first = 1;
    mx_begin(w, name);
    mx_cluster_labels(w, &first, c);
    mx_value(w, v);
}

static void mx_clusters(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    mx_family(w, "veltop_cluster_reachable",
              "1 when the cluster's API server answered recently (within 10 s), else 0.");
    for (size_t c = 0; c < ncl; c++)
        mx_gauge(w, &cl[c], "veltop_cluster_reachable", cl[c].reachable ? 1 : 0);
    mx_family(w, "veltop_cluster_data_age_seconds",
              "Seconds since the watched data was last known current (0 while current); while "
              "not, the per-run series hold the answers of that time.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].data_age >= 0)
            mx_gauge(w, &cl[c], "veltop_cluster_data_age_seconds", floor(cl[c].data_age));
    mx_family(w, "veltop_cluster_clock_offset_seconds",
              "The cluster's clock minus ours (from the API server's Date headers), to a tenth "
              "of a second: the runs' own timestamps are on the cluster's clock.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].clock_offset_known)
            mx_gauge(w, &cl[c], "veltop_cluster_clock_offset_seconds",
                     round(cl[c].clock_offset * 10) / 10); /* as --once --json */
    mx_family(w, "veltop_cluster_runs_in_flight", "Backups and restores in flight.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].runs_known) {
            size_t n = 0;
            for (size_t i = 0; i < cl[c].n_runs; i++) n += cl[c].runs[i].active != 0;
            mx_gauge(w, &cl[c], "veltop_cluster_runs_in_flight", (double)n);
        }
    mx_family(
        w, "veltop_cluster_incomplete_info",
        "A list the answers or health need that could not be read, as --once --json's incomplete "
        "says it (\"pods forbidden\"): the figures that need it are absent, not 0.");
    for (size_t c = 0; c < ncl; c++)
        for (size_t i = 0; i < sizeof cl[c].incomplete / sizeof cl[c].incomplete[0]; i++) {
            if (!cl[c].incomplete[i][0]) continue;
            int first = 1;
            mx_begin(w, "veltop_cluster_incomplete_info");
            mx_cluster_labels(w, &first, &cl[c]);
            mx_label(w, &first, "what", cl[c].incomplete[i]);
            mx_value(w, 1);
        }
    mx_family(w, "veltop_cluster_velero_info",
              "The Velero server's version (its image tag), when its pod is visible.");
    for (size_t c = 0; c < ncl; c++) {
        const health *h = cl[c].h;
        if (!h || !h->pods_known || !h->server || !h->server->version) continue;
        int first = 1;
        mx_begin(w, "veltop_cluster_velero_info");
        mx_cluster_labels(w, &first, &cl[c]);
        mx_label(w, &first, "version", h->server->version);
        mx_value(w, 1);
    }
    mx_family(w, "veltop_cluster_node_agents_ready", "Node-agent pods ready.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].h && cl[c].h->pods_known)
            mx_gauge(w, &cl[c], "veltop_cluster_node_agents_ready",
                     (double)cl[c].h->n_agents_ready);
    mx_family(w, "veltop_cluster_node_agents", "Node-agent pods.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].h && cl[c].h->pods_known)
            mx_gauge(w, &cl[c], "veltop_cluster_node_agents", (double)cl[c].h->n_agents);
    mx_family(w, "veltop_cluster_storage_locations_available",
              "Backup storage locations whose phase is Available.");
    for (size_t c = 0; c < ncl; c++) {
        const health *h = cl[c].h;
        if (!h || !cl[c].bsls_known) continue;
        size_t av = 0;
        for (size_t i = 0; i < h->n_bsl; i++)
            if (h->bsl[i]->phase && !strcmp(h->bsl[i]->phase, "Available")) av++;
        mx_gauge(w, &cl[c], "veltop_cluster_storage_locations_available", (double)av);
    }
    mx_family(w, "veltop_cluster_storage_locations", "Backup storage locations.");
    for (size_t c = 0; c < ncl; c++)
        if (cl[c].h && cl[c].bsls_known)
            mx_gauge(w, &cl[c], "veltop_cluster_storage_locations", (double)cl[c].h->n_bsl);
}

/* ---- the backup queue (queue.h), per Velero namespace -----------------------------------------
 */

static void mx_queue(mx_w *w, const mx_cluster *cl, size_t ncl)
{
    mx_family(w, "veltop_backup_queue_length",
              "Backups waiting to start (New, Queued, ReadyToStart); absent while the backup "
              "list is not read.");
    for (size_t c = 0; c < ncl; c++) {
        if (!cl[c].runs_known) continue;
        size_t n = 0;
        for (size_t i = 0; i < cl[c].n_runs; i++) n += cl[c].runs[i].queue.waiting != 0;
        mx_gauge(w, &cl[c], "veltop_backup_queue_length", (double)n);
    }
    mx_family(w, "veltop_backup_queue_oldest_age_seconds",
              "Seconds since the oldest backup waiting to start was created; absent when none "
              "waits.");
    for (size_t c = 0; c < ncl; c++) {
        if (!cl[c].runs_known) continue;
        double oldest = -1;
        for (size_t i = 0; i < cl[c].n_runs; i++) {
            const queue_wait *q = &cl[c].runs[i].queue;
            if (q->waiting && q->waited > oldest) oldest = q->waited;
        }
        if (oldest >= 0)
            mx_gauge(w, &cl[c], "veltop_backup_queue_oldest_age_seconds", floor(oldest));
    }
}

void mx_render(kc_buf *out, const mx_cluster *cl, size_t n, mx_format f)
{
    mx_w w = {.b = out, .f = f};
    mx_clusters(&w, cl, n);
    mx_queue(&w, cl, n);
    mx_schedules(&w, cl, n);
    mx_readiness(&w, cl, n);
    mx_repos(&w, cl, n);
    mx_runs(&w, cl, n);
    mx_volumes(&w, cl, n);
    mx_itemops(&w, cl, n);
    mx_lasts(&w, cl, n);
    if (f == MX_OPENMETRICS) kc_buf_append(out, "# EOF\n", 6);
}

void mx_render_budget(kc_buf *out, size_t not_watched, long fd_limit, mx_format f)
{
    mx_w w = {.b = out, .f = f}; /* each family has its sample: headers at once */
    mx_header(&w, "veltop_contexts_not_watched",
              "Contexts asked for and not watched: veltop's open-file limit cannot hold their "
              "connections (raise it with ulimit -n).");
    kc_buf_printf(out, "veltop_contexts_not_watched %zu\n", not_watched);
    mx_header(&w, "veltop_build_info", "veltop's version, as veltop --version says it.");
    kc_buf_printf(out, "veltop_build_info{version=\"");
    mx_label_value(out, VELTOP_VERSION);
    kc_buf_printf(out, "\"} 1\n");
    if (fd_limit > 0) {
        mx_header(&w, "veltop_open_files_limit", "veltop's open-file limit (soft RLIMIT_NOFILE).");
        kc_buf_printf(out, "veltop_open_files_limit %ld\n", fd_limit);
    }
}

/* ---- content negotiation --------------------------------------------------------------------- */

mx_format mx_negotiate(const char *accept)
{
    double q_om = -1, q_text = -1;
    const char *p = accept ? accept : "";
    while (*p) {
        size_t len = strcspn(p, ",");
        char range[256];
        snprintf(range, sizeof range, "%.*s", (int)(len < 255 ? len : 255), p);
        p += len + (p[len] == ',');
        char *semi = strchr(range, ';');
        double q = 1;
        if (semi) {
            *semi = 0;
            const char *qs = strstr(semi + 1, "q=");
            if (qs) q = strtod(qs + 2, NULL);
        }
        char *t = range;
        while (*t == ' ' || *t == '\t') t++;
        size_t tl = strlen(t);
        while (tl && (t[tl - 1] == ' ' || t[tl - 1] == '\t')) t[--tl] = 0;
        if (!strcasecmp(t, "application/openmetrics-text")) {
            if (q > q_om) q_om = q;
        } else if (!strcasecmp(t, "text/plain") || !strcasecmp(t, "text/*") ||
                   !strcasecmp(t, "*/*")) {
            if (q > q_text) q_text = q;
        }
    }
    return q_om > 0 && q_om >= q_text ? MX_OPENMETRICS : MX_TEXT;
}
