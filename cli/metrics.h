/* metrics.h: veltop's answers in the Prometheus exposition formats (text 0.0.4 and OpenMetrics
 * 1.0): per run in flight, per schedule, per cluster. A renderer of answers (answer.h) and of the
 * health picture (health.h): it computes nothing about a run of its own. No curses, no HTTP: the
 * server (serve.h) hands out what this writes.
 *
 * Conventions: base units (seconds, bytes), unix timestamps as *_timestamp_seconds, 0/1 gauges
 * for yes/no, *_info gauges (value 1) carrying text as labels. Unknown is absent, never 0: a
 * figure nobody knows has no sample, and a family with no sample is not printed (no HELP/TYPE
 * without a sample). Every series carries `context` (the kubeconfig context, so a fleet of
 * contexts shares one exposition) and `namespace` (Velero's namespace). Label values are the
 * cluster's exact text, escaped (\\ \" \n) and made valid UTF-8: each byte that is not part of a
 * valid UTF-8 sequence becomes U+FFFD (Prometheus rejects invalid UTF-8).
 *
 * Cardinality: only runs in flight have per-run series (runs waiting to start only their
 * diagnosis findings); a finished run leaves them and is then the last run of its schedule
 * (veltop_last_run_*, with its findings, one per kind and schedule, "" for runs of no schedule),
 * so 10 000 finished runs cost nothing but their schedules' series. The runs' own timestamps
 * (start, end) are the objects', on the cluster's clock, as --once --json writes them. */
#pragma once
#include <stddef.h>

#include "answer.h"
#include "health.h"
#include "kubeclient/util.h"

typedef enum { MX_TEXT, MX_OPENMETRICS } mx_format;

#define MX_CONTENT_TYPE_TEXT        "text/plain; version=0.0.4; charset=utf-8"
#define MX_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define MX_LAST_MAX                 1000 /* last-run series kept per cluster (schedules) */
#define MX_VOLUMES_PER_RUN          64   /* volume series per run in flight, at most */
#define MX_OPS_PER_RUN              32   /* plugin operations per run in flight, at most */

/* One context's picture. Every pointer may be NULL / count 0 where nothing is known. */
typedef struct mx_cluster {
    const char *context; /* label context */
    const char *ns;      /* Velero's namespace (label namespace) */
    int reachable;       /* the API server answered recently */
    double data_age;     /* seconds since the data was last current (0 current); < 0 unknown */
    const health *h;     /* schedules, locations, pods; NULL: none known */
    double clock_offset; /* the cluster's clock minus ours, seconds */
    int clock_offset_known;
    int bsls_known;         /* the storage location list is in */
    int runs_known;         /* the backup and restore lists are in (else no run count) */
    const run_answer *runs; /* answers of the runs not finished (mx_run_answers): those in
                               flight have the per-run series, the others (New, Queued,
                               ReadyToStart, Deleting...) only their diagnosis findings */
    size_t n_runs;
    const run_answer *last; /* answers of the newest finished run per (kind, schedule) */
    size_t n_last;
    /* what could not be read, as --once --json's top-level "incomplete" says it: ans_ctx's
     * missing_why ("pods forbidden"), then each list health is made of that was not read
     * (health_incomplete: "jobs forbidden"); "" entries are none */
    char incomplete[5 + HEALTH_NIN][128];
    /* the model and the instant the answers were judged at (ans_ctx's now and wall): the
     * volumes of the runs in flight (veltop_volume_*); m NULL: no volume series */
    const model *m;
    double now, wall;
} mx_cluster;

/* Appends the exposition of n clusters to out, in format f (OpenMetrics ends in "# EOF"). */
void mx_render(kc_buf *out, const mx_cluster *cl, size_t n, mx_format f);

/* The answers of every run of model m that has not finished (no terminal phase), in context c:
 * malloc'd, *n of them. O(runs). */
run_answer *mx_run_answers(const ans_ctx *c, const model *m, size_t *n);

/* veltop's own figures, before mx_render's: the contexts asked for and not watched because the
 * open-file limit (fd_limit, 0 unknown) cannot hold them (kubeclient/fdbudget.h). */
void mx_render_budget(kc_buf *out, size_t not_watched, long fd_limit, mx_format f);

/* The answers of the newest finished run of each (kind, schedule) of model m, in context c, up to
 * MX_LAST_MAX of them: malloc'd, *n of them. O(runs). */
run_answer *mx_last_runs(const ans_ctx *c, const model *m, size_t *n);

/* Appends s as a label value (escaped, valid UTF-8) to b: for the tests. */
void mx_label_value(kc_buf *b, const char *s);

/* The format a scraper's Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text (with a q above 0), else the text format. */
mx_format mx_negotiate(const char *accept);
