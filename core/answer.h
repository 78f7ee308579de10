/* answer.h: the one judgement of a run (design.md "One answer per run"): computed here, from the
 * model and the evidence, and rendered by every surface (list, detail, volumes, --once, --wait,
 * alerts, the health summary, metrics) without computing anything of its own. Unknown is a value:
 * every figure says whether it is known, and when it is not, why.
 *
 * The critical-path arithmetic is runeta.h's; this adds what a surface must not decide for
 * itself: whether the ETA is an estimate, a promise (a true lower bound) or none and why; last
 * progress with its evidence (a change veltop saw, the API server's managedFields time, a log
 * line's time) rather than the time veltop attached; stalled as yes / no / unknown; the data's
 * freshness (while stale every answer is frozen as of the last fresh data); what the answer is
 * missing (a forbidden or failing list); and the diagnosis. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "diagnose.h"
#include "health.h"
#include "queue.h"
#include "runeta.h"

typedef enum { ANS_NO = 0, ANS_YES = 1, ANS_UNKNOWN = -1 } ans_tri;

typedef enum {
    ANS_ETA_NONE,     /* no ETA: eta_why says why */
    ANS_ETA_ESTIMATE, /* eta seconds: a projection (eta_caveat: it may grow) */
    ANS_ETA_BOUND     /* eta seconds: a promise, the run will not end sooner */
} ans_eta_kind;

/* Why a figure is missing (an ETA none, stalled unknown). */
typedef enum {
    ANS_WHY_NONE,        /* the figure is there */
    ANS_WHY_NOT_RUNNING, /* finished, or not started: nothing to predict */
    ANS_WHY_STALLED,     /* nothing it waits on moves: no end can be predicted */
    ANS_WHY_NO_RATE,     /* it waits on something whose progress is not visible (plugin
                            operations, a phase change that is overdue) */
    ANS_WHY_NO_EVIDENCE, /* nothing says yet (no rate, no timestamps to judge by) */
    ANS_WHY_STALE,       /* the cluster's data is not current: frozen, no judgement */
    ANS_WHY_INCOMPLETE,  /* a list it needs is not visible (forbidden, failing) */
    ANS_WHY_LOADING,     /* the volume lists are still arriving: nothing judged on half of them */
    ANS_WHY_UNSIZED      /* all that is left is volumes not sized yet (no totalBytes): nothing
                            says how much they still have to move */
} ans_why;

/* Where "last progress" comes from. */
typedef enum {
    ANS_EV_NONE,           /* no evidence: unknown */
    ANS_EV_WATCHED,        /* veltop saw a counter change */
    ANS_EV_MANAGED_FIELDS, /* the API server's managedFields time of the last status write */
    ANS_EV_LOG,            /* a log line's own time */
    ANS_EV_TIMESTAMP       /* an object's own timestamp (a volume's completion) */
} ans_evidence;

/* Lists a run's answer may need: a bit each (ans_missing). */
enum {
    ANS_MISS_PVB = 1u << 0,
    ANS_MISS_PVR = 1u << 1,
    ANS_MISS_DU = 1u << 2,
    ANS_MISS_DD = 1u << 3,
    ANS_MISS_PODS = 1u << 4 /* the server pod and node-agents (health, diagnosis) */
};

typedef struct run_answer {
    const model_run *run;
    vl_kind kind;
    vl_phase phase;
    int active; /* in flight (New/Queued are not; InProgress ... Finalizing are) */
    /* startTimestamp and completionTimestamp (a finished run's) as local unix seconds; 0 none */
    double started, ended;

    /* items: done / total (known: the server said), an estimate while it may still change */
    int64_t items_done, items_total;
    int items_known, items_estimated;
    double items_rate; /* items/s: live rate in flight, whole-run average finished; < 0 unknown */

    /* bytes over the run's volumes: bytes_total is known only while every volume is sized */
    int64_t bytes_done, bytes_total;
    int n_volumes, n_unsized;
    int bytes_known, bytes_total_known;
    double bytes_rate; /* bytes/s; < 0 unknown */

    /* the critical path's parts (runeta.h) */
    re_stage part[RE_NPARTS];

    /* the ETA: seconds from `at` (the data's time), and the end as a unix time */
    ans_eta_kind eta_kind;
    double eta, eta_end;
    ans_why eta_why;
    /* an estimate that may grow, said from the same facts as the byte figures ("volumes not
     * sized yet" only while n_unsized > 0): "volumes may still come"; NULL none */
    const char *eta_caveat;
    int from_history; /* the estimate leans on the schedule's history */

    /* last progress: unix seconds (local clock) of the newest change of anything it waits on */
    double last_progress;
    ans_evidence last_progress_ev;

    /* stalled: yes / no / unknown (stalled_why) */
    ans_tri stalled;
    ans_why stalled_why;
    double stalled_for;              /* seconds, when yes */
    re_part stalled_part;            /* what stalled */
    const model_volume *stalled_vol; /* ... and the volume, when it is one */
    int part_stalled;                /* a part stalled while others move: not a stalled run */

    /* what the end waits on now; waiting_unknown: its items are done and the lists of what
     * comes after them cannot be read (missing), so it is not known (waiting is then no answer) */
    int waiting_unknown;
    re_part waiting;
    const model_volume *waiting_vol;
    int64_t waiting_left;
    double waiting_rate;

    /* what the answer lacks: ANS_MISS_* of the lists it needs that are not visible, and the
     * sentence ("pod volumes not visible: podvolumebackups forbidden"); "" when complete */
    unsigned missing;
    char missing_text[256];

    /* freshness: stale while the cluster's data is not current; `at` the data's time */
    int stale;
    double at;      /* unix seconds the answer holds for (the last fresh data while stale) */
    double at_mono; /* the same, monotonic */

    /* "why is it stuck?" */
    diag diag[DIAG_MAX];
    size_t n_diag;

    /* the schedule's history: the run's duration against its usual (vs_usual = this / usual,
     * 0 when there is nothing to compare: no history, or the run failed) */
    re_history hist;
    double vs_usual;

    /* a waiting backup (New, Queued, ReadyToStart): why it is not running (queue.h) */
    queue_wait queue;

    /* WaitingForPluginOperations: the plugin operations read (itemops.h) that no data mover
     * counts, not finished (ops_left), and whether their progress is what the ETA is based on
     * (eta_from_ops: their nCompleted of nTotal at their rate) */
    int ops_left;
    int eta_from_ops;
} run_answer;

/* What an answer is computed against: the model at a data time, the health picture, freshness,
 * the lists not visible, and the log evidence. Built from an app (answer_ctx_of_app) or by hand in
 * tests. */
typedef struct ans_ctx {
    const model *m;
    const health *h;  /* may be NULL */
    double now, wall; /* monotonic and unix seconds of the data (frozen while stale) */
    int stale;
    double stale_for;      /* seconds the data has not been current */
    unsigned missing;      /* ANS_MISS_* lists not visible */
    int loading;           /* the volume lists have not all arrived yet (app_volumes_listed); a run
                              whose own volumes are in (app_run_volumes_listed) is not loading */
    const struct app *app; /* the app of answer_ctx_of_app, NULL for a model built by hand */
    char missing_why[5][128];
    const struct logderive *derive; /* live log evidence, may be NULL */
} ans_ctx;

/* The context of app a at monotonic now and unix wall (this instant): freshness from
 * app_connection (while stale, now and wall go back to when the data was last current), the
 * lists not visible from the reflectors. h may be NULL. */
void answer_ctx_of_app(const app *a, const health *h, double now, double wall, ans_ctx *out);
/* The answer for run r. */
void answer_run(const ans_ctx *c, const model_run *r, run_answer *out);

/* Words for the surfaces, so that each says the same: */
const char *answer_why_text(ans_why w); /* "stalled", "no evidence yet", "data stale"... */
const char *answer_eta_kind_name(ans_eta_kind k); /* "estimate", "lowerBound", "none" */
const char *answer_evidence_name(ans_evidence e); /* "watched", "managedFields", "log", ... */
/* The list's ETA cell: "3m12s", "3d04h+" (it may grow), "≈41m" (utf8) / "~41m" (from_history:
 * it leans on the schedule's history), "≥ 3m" (utf8) / ">=3m", "stall", "stale", "?" ... into
 * buf. Every ETA is its real projection, however long (fmt_eta). */
char *answer_eta_cell(char *buf, size_t n, const run_answer *a, int utf8);
/* The ETA as a phrase: "done in ~3m12s (at 21:25:22)" (a finish time not on the day of the
 * data carries its date: "(at 2026-12-08 17:05:02)", fmt_clock_since), "... , volumes not sized
 * yet", "done in
 * ≥ 3m", "none" (stalled: the surface says the stall beside it), "unknown: no current data since
 * 21:24:34", "unknown: waiting on data mover, nothing to measure", "unknown: volumes not sized
 * yet", "unknown: no rate yet" */
char *answer_eta_line(char *buf, size_t n, const run_answer *a, int utc);
