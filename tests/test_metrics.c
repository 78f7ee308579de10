/* test_metrics.c: the Prometheus exposition of the answers (cli/metrics.c): label values escaped
 * and made valid UTF-8, unknown figures absent (never 0), every family with its HELP and TYPE and
 * no family without a sample, OpenMetrics' info type, units and "# EOF", the last finished run
 * per schedule, the findings of runs not in flight, one model rendered by the exporter and by
 * --once --json saying the same, and the Accept negotiation. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "runeta.h"
#include "snapshot.h"
#include "testutil.h"

#define T0 1704626400.0

static char *label(const char *s)
{
    kc_buf b = {0};
    mx_label_value(&b, s);
    char *out = xasprintf("%s", kc_buf_cstr(&b));
    kc_buf_free(&b);
    return out;
}

START_TEST(label_values_are_escaped)
{
    char *l = label("a\"b\\c\nd");
    ck_assert_str_eq(l, "a\\\"b\\\\c\\nd");
    free(l);
    l = label("");
    ck_assert_str_eq(l, "");
    free(l);
    /* valid UTF-8 is kept as is, tabs and other controls too (label values may hold them) */
    l = label("pr\xc3\xbc"
              "f\xe2\x82\xac\xf0\x9f\x98\x80\t");
    ck_assert_str_eq(l, "pr\xc3\xbc"
                        "f\xe2\x82\xac\xf0\x9f\x98\x80\t");
    free(l);
}
END_TEST

START_TEST(invalid_utf8_becomes_replacement_characters)
{
    /* a lone continuation byte, a byte that starts nothing, a cut sequence, an overlong slash,
     * a surrogate and a code point past U+10FFFF: each byte of no valid sequence is one U+FFFD */
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"a\x80z", "a\xef\xbf\xbdz"},
        {"\xff", "\xef\xbf\xbd"},
        {"x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xfe\"", "\xef\xbf\xbd\\\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *l = label(cases[i].in);
        ck_assert_msg(!strcmp(l, cases[i].want), "case %zu: got '%s'", i, l);
        free(l);
    }
}
END_TEST

/* A run in flight with every figure known. */
static void full_answer(run_answer *a, model_run *mr, vl_run *x)
{
    memset(x, 0, sizeof *x);
    memset(mr, 0, sizeof *mr);
    memset(a, 0, sizeof *a);
    x->kind = VL_BACKUP;
    x->meta.name = (char *)"nightly-1";
    x->phase = (char *)"InProgress";
    x->phase_id = VL_PH_IN_PROGRESS;
    x->schedule = (char *)"nightly";
    x->started = T0; /* the object's startTimestamp (the cluster's clock) */
    mr->kind = VL_BACKUP;
    mr->name = (char *)"nightly-1";
    mr->run = x;
    a->run = mr;
    a->kind = VL_BACKUP;
    a->phase = VL_PH_IN_PROGRESS;
    a->active = 1;
    a->started = T0;
    a->items_known = 1;
    a->items_done = 40;
    a->items_total = 100;
    a->items_estimated = 1;
    a->items_rate = 0.5;
    a->bytes_known = a->bytes_total_known = 1;
    a->bytes_done = 5000000000LL;
    a->bytes_total = 10000000000LL;
    a->bytes_rate = 1048576;
    a->eta_kind = ANS_ETA_BOUND;
    a->eta = 119.2;
    a->eta_end = T0 + 180.25;
    a->stalled = ANS_NO;
    a->last_progress = T0 + 58;
    a->waiting = RE_PODVOLS;
    a->n_diag = 1;
    a->diag[0].code = "bsl-unavailable";
}

static char *render(const mx_cluster *c, size_t n, mx_format f)
{
    kc_buf b = {0};
    mx_render(&b, c, n, f);
    char *s = xasprintf("%s", kc_buf_cstr(&b));
    kc_buf_free(&b);
    return s;
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n') return 1;
    return 0;
}

/* 1 when a line of text starts with prefix */
static int has_sample(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, n)) return 1;
    return 0;
}

#define LBL                                                                                        \
    "context=\"prod\",namespace=\"velero\",kind=\"Backup\",name=\"nightly-1\",schedule="           \
    "\"nightly\""

START_TEST(known_figures_have_exact_samples)
{
    run_answer a;
    model_run mr;
    vl_run x;
    full_answer(&a, &mr, &x);
    mx_cluster c = {.context = "prod",
                    .ns = "velero",
                    .reachable = 1,
                    .data_age = 0,
                    .runs_known = 1,
                    .runs = &a,
                    .n_runs = 1};
    char *t = render(&c, 1, MX_TEXT);
    static const char *want[] = {
        "veltop_cluster_reachable{context=\"prod\",namespace=\"velero\"} 1",
        "veltop_cluster_data_age_seconds{context=\"prod\",namespace=\"velero\"} 0",
        "veltop_cluster_runs_in_flight{context=\"prod\",namespace=\"velero\"} 1",
        "veltop_run_info{" LBL ",phase=\"InProgress\"} 1",
        "veltop_run_start_timestamp_seconds{" LBL "} 1704626400",
        "veltop_run_items_done{" LBL "} 40",
        "veltop_run_items_expected{" LBL "} 100",
        "veltop_run_items_expected_estimated{" LBL "} 1",
        "veltop_run_done_bytes{" LBL "} 5000000000",
        "veltop_run_expected_bytes{" LBL "} 10000000000",
        "veltop_run_items_per_second{" LBL "} 0.5",
        "veltop_run_bytes_per_second{" LBL "} 1048576",
        "veltop_run_eta_seconds{" LBL "} 120",
        "veltop_run_eta_timestamp_seconds{" LBL "} 1704626580.25",
        "veltop_run_eta_lower_bound{" LBL "} 1",
        "veltop_run_stalled{" LBL "} 0",
        "veltop_run_stalled_seconds{" LBL "} 0",
        "veltop_run_last_progress_timestamp_seconds{" LBL "} 1704626458",
        "veltop_run_waiting_info{" LBL ",part=\"podVolumes\",volume=\"\"} 1",
        "veltop_run_diagnosis_info{" LBL ",rule=\"bsl-unavailable\"} 1",
        "# TYPE veltop_run_waiting_info gauge",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(has_line(t, want[i]), "missing '%s' in:\n%s", want[i], t);
    /* a stalled run: 1 and for how long */
    a.stalled = ANS_YES;
    a.stalled_for = 600.7;
    free(t);
    t = render(&c, 1, MX_TEXT);
    ck_assert(has_line(t, "veltop_run_stalled{" LBL "} 1"));
    ck_assert(has_line(t, "veltop_run_stalled_seconds{" LBL "} 600"));
    free(t);
    /* absurd cluster numbers stay numbers the parsers take */
    a.bytes_done = INT64_MAX;
    a.items_rate = 1.0 / 0.0;
    t = render(&c, 1, MX_TEXT);
    ck_assert(has_line(t, "veltop_run_done_bytes{" LBL "} 9.22337203685478e+18"));
    ck_assert(!has_sample(t, "veltop_run_items_per_second{"));
    free(t);
}
END_TEST

START_TEST(unknown_figures_are_absent_not_zero)
{
    run_answer a;
    model_run mr;
    vl_run x;
    full_answer(&a, &mr, &x);
    a.started = x.started = 0;
    a.items_known = 0;
    a.bytes_known = a.bytes_total_known = 0;
    a.items_rate = a.bytes_rate = -1;
    a.eta_kind = ANS_ETA_NONE;
    a.eta = a.eta_end = -1;
    a.eta_why = ANS_WHY_STALE;
    a.stalled = ANS_UNKNOWN;
    a.last_progress = 0;
    a.n_diag = 0;
    /* nothing listed yet: no run count, no data age; pods and locations unknown (no health) */
    mx_cluster c = {
        .context = "prod", .ns = "velero", .reachable = 0, .data_age = -1, .runs = &a, .n_runs = 1};
    char *t = render(&c, 1, MX_TEXT);
    ck_assert(has_line(t, "veltop_cluster_reachable{context=\"prod\",namespace=\"velero\"} 0"));
    static const char *absent[] = {"veltop_cluster_data_age_seconds{",
                                   "veltop_cluster_runs_in_flight{",
                                   "veltop_cluster_velero_info{",
                                   "veltop_cluster_node_agents{",
                                   "veltop_cluster_node_agents_ready{",
                                   "veltop_cluster_storage_locations{",
                                   "veltop_run_start_timestamp_seconds{",
                                   "veltop_run_items_done{",
                                   "veltop_run_items_expected{",
                                   "veltop_run_items_expected_estimated{",
                                   "veltop_run_done_bytes{",
                                   "veltop_run_expected_bytes{",
                                   "veltop_run_items_per_second{",
                                   "veltop_run_bytes_per_second{",
                                   "veltop_run_eta_seconds{",
                                   "veltop_run_eta_timestamp_seconds{",
                                   "veltop_run_eta_lower_bound{",
                                   "veltop_run_stalled{",
                                   "veltop_run_stalled_seconds{",
                                   "veltop_run_last_progress_timestamp_seconds{",
                                   "veltop_run_diagnosis_info{",
                                   "veltop_schedule_",
                                   "veltop_last_run_info{"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        ck_assert_msg(!has_sample(t, absent[i]), "'%s' has a sample:\n%s", absent[i], t);
    /* the run is still there, with what it waits on */
    ck_assert(has_line(t, "veltop_run_info{" LBL ",phase=\"InProgress\"} 1"));
    /* bytes done known, total not (a volume not sized yet) */
    a.bytes_known = 1;
    a.bytes_done = 0;
    free(t);
    t = render(&c, 1, MX_TEXT);
    ck_assert(has_line(t, "veltop_run_done_bytes{" LBL "} 0"));
    ck_assert(!has_sample(t, "veltop_run_expected_bytes{"));
    free(t);
}
END_TEST

/* Every family in t has its HELP and TYPE once, right before its samples, and at least one
 * sample: a family nobody has a figure for is not printed at all. Returns the families seen. */
static size_t families_have_samples(const char *t, mx_format f)
{
    size_t fams = 0;
    for (const char *p = t; (p = strstr(p, "# TYPE ")); p++) {
        if (p != t && p[-1] != '\n') continue;
        char name[128], type[16];
        ck_assert(sscanf(p, "# TYPE %127s %15s", name, type) == 2);
        fams++;
        char *once = xasprintf("\n# TYPE %s ", name);
        const char *first = strstr(t, once);
        ck_assert_msg(first && !strstr(first + 1, once), "'%s' twice or not on a line", name);
        free(once);
        char *help = xasprintf("# HELP %s ", name);
        ck_assert_msg(strstr(t, help), "no HELP for %s", name);
        free(help);
        /* the line after the header (and the UNIT) is a sample of the family */
        const char *q = strchr(p, '\n') + 1;
        while (!strncmp(q, "# UNIT ", 7)) q = strchr(q, '\n') + 1;
        char *sample =
            xasprintf("%s%s{", name, f == MX_OPENMETRICS && !strcmp(type, "info") ? "_info" : "");
        ck_assert_msg(!strncmp(q, sample, strlen(sample)), "family %s has no sample", name);
        free(sample);
    }
    return fams;
}

START_TEST(a_family_without_samples_is_not_printed)
{
    /* a cluster that answered nothing yet: one figure known (it is not reachable), one family.
     * (Before, every one of the 34 families was printed with HELP and TYPE and no sample.) */
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 0, .data_age = -1};
    for (int f = MX_TEXT; f <= MX_OPENMETRICS; f++) {
        char *t = render(&c, 1, (mx_format)f);
        ck_assert_uint_eq(families_have_samples(t, (mx_format)f), 1);
        ck_assert(has_line(t, "# TYPE veltop_cluster_reachable gauge"));
        ck_assert(!strstr(t, "veltop_run_"));
        ck_assert(!strstr(t, "veltop_last_run_"));
        ck_assert(!strstr(t, "veltop_schedule_"));
        free(t);
    }
    /* no run in flight, no finished run: the run families are absent, the count is there */
    c.reachable = 1;
    c.runs_known = 1;
    c.data_age = 0;
    char *t = render(&c, 1, MX_TEXT);
    ck_assert_uint_eq(families_have_samples(t, MX_TEXT), 4);
    ck_assert(
        has_line(t, "veltop_cluster_runs_in_flight{context=\"prod\",namespace=\"velero\"} 0"));
    /* the queue is read and empty: its length 0, no oldest age */
    ck_assert(has_line(t, "veltop_backup_queue_length{context=\"prod\",namespace=\"velero\"} 0"));
    ck_assert(!strstr(t, "veltop_backup_queue_oldest_age_seconds"));
    free(t);
    /* a run whose figures are unknown: its info and waiting series, not the families of the
     * figures nobody knows */
    run_answer a;
    model_run mr;
    vl_run x;
    full_answer(&a, &mr, &x);
    a.started = x.started = 0;
    a.items_known = a.bytes_known = a.bytes_total_known = 0;
    a.items_rate = a.bytes_rate = -1;
    a.eta_kind = ANS_ETA_NONE;
    a.stalled = ANS_UNKNOWN;
    a.last_progress = 0;
    a.n_diag = 0;
    c.runs = &a;
    c.n_runs = 1;
    for (int f = MX_TEXT; f <= MX_OPENMETRICS; f++) {
        t = render(&c, 1, (mx_format)f);
        ck_assert_uint_eq(families_have_samples(t, (mx_format)f), 6); /* with the queue's 0 */
        ck_assert(!strstr(t, "veltop_run_eta_seconds"));
        ck_assert(!strstr(t, "veltop_run_diagnosis"));
        free(t);
    }
}
END_TEST

/* A schedule whose backups cannot be read (health's runs_unknown) has no overdue sample: not a
 * confident 0 (nor the 1 health used to give it, "none yet"); what its own object says stays. */
/* An estimate's caveat is a series, in the answer's own words; a bound or no ETA has none. */
START_TEST(eta_caveat_is_a_series_of_the_estimate)
{
    run_answer a;
    model_run mr;
    vl_run x;
    full_answer(&a, &mr, &x);
    a.eta_kind = ANS_ETA_ESTIMATE;
    a.eta_caveat = "a volume is stalled";
    mx_cluster c = {.context = "prod",
                    .ns = "velero",
                    .reachable = 1,
                    .data_age = 0,
                    .runs_known = 1,
                    .runs = &a,
                    .n_runs = 1};
    char *t = render(&c, 1, MX_TEXT);
    ck_assert_msg(
        has_line(t, "veltop_run_eta_caveat_info{" LBL ",caveat=\"a volume is stalled\"} 1"), "%s",
        t);
    free(t);
    a.eta_kind = ANS_ETA_BOUND; /* a promise has no caveat */
    t = render(&c, 1, MX_TEXT);
    ck_assert_msg(!strstr(t, "veltop_run_eta_caveat_info"), "%s", t);
    free(t);
    a.eta_kind = ANS_ETA_ESTIMATE;
    a.eta_caveat = NULL;
    t = render(&c, 1, MX_TEXT);
    ck_assert_msg(!strstr(t, "veltop_run_eta_caveat_info"), "%s", t);
    free(t);
}
END_TEST

/* What --once --json calls incomplete is a series too, so that a figure left out is explained. */
START_TEST(lists_not_read_are_named)
{
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 1, .data_age = 0};
    char *t = render(&c, 1, MX_TEXT);
    ck_assert(!strstr(t, "veltop_cluster_incomplete_info"));
    free(t);
    snprintf(c.incomplete[4], sizeof c.incomplete[4], "pods forbidden");
    t = render(&c, 1, MX_TEXT);
    ck_assert_msg(has_line(t,
                           "veltop_cluster_incomplete_info{context=\"prod\",namespace=\"velero\","
                           "what=\"pods forbidden\"} 1"),
                  "%s", t);
    free(t);
}
END_TEST

START_TEST(schedule_overdue_is_absent_while_its_backups_are_unknown)
{
    vl_schedule sch = {0};
    sch.meta.name = (char *)"nightly";
    health_schedule hs = {0};
    hs.s = &sch;
    hs.cron_ok = 1;
    hs.due.interval = 86400;
    hs.runs_unknown = 1;
    health h = {0};
    h.sch = &hs;
    h.n_sch = 1;
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 1, .data_age = 0, .h = &h};
    char *t = render(&c, 1, MX_TEXT);
    ck_assert_msg(!has_sample(t, "veltop_schedule_overdue{"), "%s", t);
    ck_assert(has_line(t, "veltop_schedule_paused{context=\"prod\",namespace=\"velero\","
                          "schedule=\"nightly\"} 0"));
    free(t);
    hs.runs_unknown = 0; /* read: judged */
    t = render(&c, 1, MX_TEXT);
    ck_assert(has_line(t, "veltop_schedule_overdue{context=\"prod\",namespace=\"velero\","
                          "schedule=\"nightly\"} 0"));
    free(t);
}
END_TEST

/* Repositories: exact gauges of a judged repository; unknown (never succeeded, no result, the
 * list not read) is absent, never 0. */
START_TEST(repository_gauges_are_exact_and_absent_when_unknown)
{
    kc_repo r = {0}, never = {0};
    r.name = (char *)"app-default-kopia-x7k2p";
    r.volume_ns = (char *)"app";
    r.bsl = (char *)"default";
    r.type = (char *)"kopia";
    r.phase = (char *)"Ready";
    r.n_recent = 4;
    never.name = (char *)"logs";
    never.phase = (char *)"NotReady";
    repo_row rows[2] = {{.r = &r,
                         .frequency = 3600,
                         .age = 18000.4,
                         .due = T0 - 4 * 3600,
                         .overdue = 1,
                         .failed_streak = 3},
                        {.r = &never,
                         .frequency = 604800,
                         .age = -1,
                         .due = T0 - 86400,
                         .overdue = 1,
                         .not_ready = 1}};
    repo_report rp = {.rows = rows, .n = 2, .now = T0};
    health h = {0};
    h.repos = &rp;
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 1, .data_age = 0, .h = &h};
    char *t = render(&c, 1, MX_TEXT);
#define RL                                                                                         \
    "{context=\"prod\",namespace=\"velero\",repository=\"app-default-kopia-x7k2p\","               \
    "volume_namespace=\"app\",storage_location=\"default\",repository_type=\"kopia\""
    ck_assert_msg(has_line(t, "veltop_repository_last_maintenance_age_seconds" RL "} 18000"), "%s",
                  t);
    ck_assert(has_line(t, "veltop_repository_maintenance_frequency_seconds" RL "} 3600"));
    ck_assert(has_line(t, "veltop_repository_maintenance_overdue" RL "} 1"));
    ck_assert(has_line(t, "veltop_repository_maintenance_failure_streak" RL "} 3"));
    ck_assert(has_line(t, "veltop_repository_phase" RL ",phase=\"Ready\"} 1"));
#undef RL
    /* never succeeded, no result: no age, no streak; its phase and frequency are known */
    ck_assert(!has_sample(t, "veltop_repository_last_maintenance_age_seconds{context=\"prod\","
                             "namespace=\"velero\",repository=\"logs\""));
    ck_assert(!has_sample(t, "veltop_repository_maintenance_failure_streak{context=\"prod\","
                             "namespace=\"velero\",repository=\"logs\""));
    ck_assert(has_line(t, "veltop_repository_phase{context=\"prod\",namespace=\"velero\","
                          "repository=\"logs\",volume_namespace=\"\",storage_location=\"\","
                          "repository_type=\"\",phase=\"NotReady\"} 1"));
    free(t);
    /* the list not read: no repository series at all */
    snprintf(rp.unread, sizeof rp.unread, "forbidden");
    t = render(&c, 1, MX_TEXT);
    ck_assert_msg(!strstr(t, "veltop_repository_"), "%s", t);
    free(t);
}
END_TEST

START_TEST(every_family_has_help_and_type_once)
{
    /* a run in flight with every figure known and the last run of a schedule: each run family
     * once, with its HELP and TYPE and its sample */
    run_answer a, last;
    model_run mr, lmr;
    vl_run x, lx;
    full_answer(&a, &mr, &x);
    full_answer(&last, &lmr, &lx);
    lx.phase = (char *)"Completed";
    lx.phase_id = VL_PH_COMPLETED;
    last.active = 0;
    last.ended = T0 - 60;
    lx.completed = T0 - 60;
    mx_cluster c = {.context = "prod",
                    .ns = "velero",
                    .reachable = 1,
                    .runs_known = 1,
                    .data_age = 0,
                    .runs = &a,
                    .n_runs = 1,
                    .last = &last,
                    .n_last = 1};
    char *t = render(&c, 1, MX_TEXT);
    static const char *fam[] = {"veltop_cluster_reachable",
                                "veltop_cluster_data_age_seconds",
                                "veltop_cluster_runs_in_flight",
                                "veltop_backup_queue_length",
                                "veltop_run_info",
                                "veltop_run_start_timestamp_seconds",
                                "veltop_run_items_done",
                                "veltop_run_items_expected",
                                "veltop_run_items_expected_estimated",
                                "veltop_run_done_bytes",
                                "veltop_run_expected_bytes",
                                "veltop_run_items_per_second",
                                "veltop_run_bytes_per_second",
                                "veltop_run_eta_seconds",
                                "veltop_run_eta_timestamp_seconds",
                                "veltop_run_eta_lower_bound",
                                "veltop_run_stalled",
                                "veltop_run_stalled_seconds",
                                "veltop_run_last_progress_timestamp_seconds",
                                "veltop_run_waiting_info",
                                "veltop_run_diagnosis_info",
                                "veltop_last_run_info",
                                "veltop_last_run_end_timestamp_seconds",
                                "veltop_last_run_items_done",
                                "veltop_last_run_done_bytes",
                                "veltop_last_run_errors",
                                "veltop_last_run_warnings",
                                "veltop_last_run_diagnosis_info"};
    ck_assert_uint_eq(families_have_samples(t, MX_TEXT), sizeof fam / sizeof fam[0]);
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        char *want = xasprintf("# TYPE %s gauge", fam[i]);
        ck_assert_msg(has_line(t, want), "missing '%s'", want);
        free(want);
    }
    ck_assert(!strstr(t, "# EOF"));
    ck_assert(!strstr(t, "# UNIT"));
    /* help texts are plain: OpenMetrics would need a quote or a backslash escaped */
    for (const char *p = t; (p = strstr(p, "# HELP ")); p++) {
        size_t n = strcspn(p, "\n");
        ck_assert_msg(!memchr(p, '"', n) && !memchr(p, '\\', n), "%.*s", (int)n, p);
    }
    free(t);
    t = render(&c, 1, MX_OPENMETRICS);
    ck_assert_uint_eq(families_have_samples(t, MX_OPENMETRICS), sizeof fam / sizeof fam[0]);
    free(t);
}
END_TEST

START_TEST(openmetrics_has_info_units_and_eof)
{
    run_answer a;
    model_run mr;
    vl_run x;
    full_answer(&a, &mr, &x);
    mx_cluster c = {.context = "prod",
                    .ns = "velero",
                    .reachable = 1,
                    .runs_known = 1,
                    .runs = &a,
                    .n_runs = 1};
    char *t = render(&c, 1, MX_OPENMETRICS);
    size_t n = strlen(t);
    ck_assert(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
    ck_assert(has_line(t, "# TYPE veltop_run_waiting info"));
    ck_assert(has_line(t, "# TYPE veltop_run_diagnosis info"));
    /* no server pod known: no velero family at all (not a header without a sample) */
    ck_assert(!strstr(t, "veltop_cluster_velero"));
    ck_assert(has_line(t, "veltop_run_waiting_info{" LBL ",part=\"podVolumes\",volume=\"\"} 1"));
    ck_assert(has_line(t, "# UNIT veltop_run_eta_seconds seconds"));
    ck_assert(has_line(t, "# UNIT veltop_run_done_bytes bytes"));
    ck_assert(has_line(t, "# TYPE veltop_run_eta_seconds gauge"));
    ck_assert(!strstr(t, "# UNIT veltop_run_bytes_per_second"));
    free(t);
}
END_TEST

START_TEST(cluster_names_in_labels_are_escaped)
{
    /* a context name with a quote, a backslash, a newline and a byte that is not UTF-8 */
    mx_cluster c[2] = {
        {.context = "we\"ird\\ctx\n\xff", .ns = "velero", .reachable = 1, .runs_known = 1},
        {.context = "second", .ns = "velero", .reachable = 0, .runs_known = 1, .data_age = 42.9},
    };
    char *t = render(c, 2, MX_TEXT);
    ck_assert_msg(has_line(t,
                           "veltop_cluster_reachable{context=\"we\\\"ird\\\\ctx\\n\xef\xbf\xbd\","
                           "namespace=\"velero\"} 1"),
                  "%s", t);
    /* a fleet: one series per context, in the same family */
    ck_assert(has_line(t, "veltop_cluster_reachable{context=\"second\",namespace=\"velero\"} 0"));
    ck_assert(
        has_line(t, "veltop_cluster_data_age_seconds{context=\"second\",namespace=\"velero\"} 42"));
    size_t types = 0;
    for (const char *p = t; (p = strstr(p, "# TYPE veltop_cluster_reachable ")); p++) types++;
    ck_assert_uint_eq(types, 1);
    free(t);
}
END_TEST

/* The volumes of a run in flight: bytes done, expected (absent while unsized) and the rate the
 * run's ETA counts (runeta_volume's), labelled with the run and the volume; a finished run has
 * none, and at most MX_VOLUMES_PER_RUN per run are served. */
START_TEST(volumes_of_runs_in_flight)
{
    model *m = model_new();
    vl_run r = {0}, f = {0};
    r.kind = f.kind = VL_BACKUP;
    r.meta.name = (char *)"b1";
    f.meta.name = (char *)"done";
    r.phase = (char *)"InProgress";
    r.phase_id = VL_PH_IN_PROGRESS;
    f.phase = (char *)"Completed";
    f.phase_id = VL_PH_COMPLETED;
    r.started = f.started = T0;
    f.completed = T0 + 10;
    vl_volume v[MX_VOLUMES_PER_RUN + 3];
    char names[MX_VOLUMES_PER_RUN + 3][16];
    memset(v, 0, sizeof v);
    for (int i = 0; i < MX_VOLUMES_PER_RUN + 3; i++) {
        snprintf(names[i], sizeof names[i], "b1-%03d", i);
        v[i].kind = VL_PVB;
        v[i].meta.name = names[i];
        v[i].run_name = (char *)(i == MX_VOLUMES_PER_RUN + 2 ? "done" : "b1");
        v[i].pod_ns = (char *)"shop";
        v[i].pod_name = (char *)"db-0";
        v[i].volume = names[i];
        v[i].phase = (char *)"InProgress";
        v[i].phase_id = VL_PH_IN_PROGRESS;
        v[i].started = T0;
        v[i].bytes_total = i == 1 ? 0 : 1000000; /* b1-001 not sized yet */
    }
    for (int t = 0; t <= 60; t++) {
        model_upsert_run(m, &r, t, T0 + t);
        model_upsert_run(m, &f, t, T0 + t);
        if (t % 10) continue;
        for (int i = 0; i < MX_VOLUMES_PER_RUN + 3; i++) {
            v[i].bytes_done = 1000 * t; /* 1 000 B/s */
            model_upsert_volume(m, &v[i], t);
        }
    }
    ans_ctx c = {.m = m, .now = 60, .wall = T0 + 60};
    size_t n;
    run_answer *live = mx_run_answers(&c, m, &n);
    ck_assert_uint_eq(n, 1);
    mx_cluster cl = {.context = "prod",
                     .ns = "velero",
                     .reachable = 1,
                     .runs_known = 1,
                     .runs = live,
                     .n_runs = n,
                     .m = m,
                     .now = 60,
                     .wall = T0 + 60};
    char *t = render(&cl, 1, MX_TEXT);
#define VL "context=\"prod\",namespace=\"velero\",kind=\"Backup\",name=\"b1\",schedule=\"\",volume="
    ck_assert_msg(has_line(t, "veltop_volume_done_bytes{" VL "\"shop/db-0:b1-000\"} 60000"), "%s",
                  t);
    ck_assert(has_line(t, "veltop_volume_expected_bytes{" VL "\"shop/db-0:b1-000\"} 1000000"));
    ck_assert(has_line(t, "veltop_volume_done_bytes{" VL "\"shop/db-0:b1-001\"} 60000"));
    ck_assert(!strstr(t, "veltop_volume_expected_bytes{" VL "\"shop/db-0:b1-001\"}"));
    double rate, eta;
    model_volume *mv[1];
    model_run_volumes(m, model_find_run(m, VL_BACKUP, "b1"), mv, 1);
    runeta_volume(m, mv[0], 60, T0 + 60, &rate, &eta);
    ck_assert_double_eq_tol(rate, 1000, 1);
    char *want = xasprintf("veltop_volume_bytes_per_second{" VL "\"%s\"} ", "shop/db-0:b1-000");
    const char *at = strstr(t, want);
    ck_assert_msg(at, "%s", t);
    ck_assert_double_eq_tol(strtod(at + strlen(want), NULL), rate, 1e-9 * rate);
    free(want);
#undef VL
    /* bounded: MX_VOLUMES_PER_RUN series per family for the run; none for the finished one */
    size_t k = 0;
    for (const char *q = t; (q = strstr(q, "\nveltop_volume_done_bytes{")); q++) k++;
    ck_assert_uint_eq(k, MX_VOLUMES_PER_RUN);
    ck_assert(!strstr(t, "name=\"done\""));
    free(t);
    free(live);
    model_free(m);
}
END_TEST

START_TEST(the_last_finished_run_per_schedule)
{
    model *m = model_new();
    vl_run r[5];
    const char *names[5] = {"nightly-a", "nightly-b", "manual", "weekly-a", "live"};
    const char *sched[5] = {"nightly", "nightly", NULL, "weekly", "nightly"};
    double done[5] = {T0 - 3000, T0 - 100, T0 - 50, T0 - 9000, 0};
    for (int i = 0; i < 5; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].kind = VL_BACKUP;
        r[i].meta.name = (char *)names[i];
        r[i].schedule = (char *)sched[i];
        r[i].phase = (char *)(i == 4 ? "InProgress" : i == 1 ? "PartiallyFailed" : "Completed");
        r[i].phase_id = i == 4   ? VL_PH_IN_PROGRESS
                        : i == 1 ? VL_PH_PARTIALLY_FAILED
                                 : VL_PH_COMPLETED;
        r[i].started = done[i] ? done[i] - 600 : T0 - 60;
        r[i].completed = done[i];
        r[i].has_progress = 1;
        r[i].items_done = r[i].items_total = 10 * (i + 1);
        model_upsert_run(m, &r[i], 0, T0);
    }
    r[1].errors = 3;
    r[1].warnings = 7;
    ans_ctx c = {.m = m, .now = 0, .wall = T0};
    size_t n;
    run_answer *last = mx_last_runs(&c, m, &n);
    ck_assert_uint_eq(n, 3);
    mx_cluster cl = {.context = "prod",
                     .ns = "velero",
                     .reachable = 1,
                     .runs_known = 1,
                     .last = last,
                     .n_last = n};
    char *t = render(&cl, 1, MX_TEXT);
    ck_assert_msg(has_line(t, "veltop_last_run_info{context=\"prod\",namespace=\"velero\",kind="
                              "\"Backup\",name=\"nightly-b\",schedule=\"nightly\",phase="
                              "\"PartiallyFailed\"} 1"),
                  "%s", t);
    ck_assert(has_line(t, "veltop_last_run_info{context=\"prod\",namespace=\"velero\",kind="
                          "\"Backup\",name=\"manual\",schedule=\"\",phase=\"Completed\"} 1"));
    ck_assert(has_line(t, "veltop_last_run_end_timestamp_seconds{context=\"prod\",namespace="
                          "\"velero\",kind=\"Backup\",name=\"weekly-a\",schedule=\"weekly\"} "
                          "1704617400"));
    ck_assert(has_line(t, "veltop_last_run_items_done{context=\"prod\",namespace=\"velero\",kind="
                          "\"Backup\",name=\"nightly-b\",schedule=\"nightly\"} 20"));
    /* its duration, errors and warnings: the object's own */
    ck_assert(has_line(t, "veltop_last_run_duration_seconds{context=\"prod\",namespace=\"velero\","
                          "kind=\"Backup\",name=\"nightly-b\",schedule=\"nightly\"} 600"));
    ck_assert(has_line(t, "veltop_last_run_errors{context=\"prod\",namespace=\"velero\",kind="
                          "\"Backup\",name=\"nightly-b\",schedule=\"nightly\"} 3"));
    ck_assert(has_line(t, "veltop_last_run_warnings{context=\"prod\",namespace=\"velero\",kind="
                          "\"Backup\",name=\"nightly-b\",schedule=\"nightly\"} 7"));
    ck_assert(has_line(t, "veltop_last_run_errors{context=\"prod\",namespace=\"velero\",kind="
                          "\"Backup\",name=\"manual\",schedule=\"\"} 0"));
    ck_assert(!strstr(t, "name=\"nightly-a\""));
    ck_assert(!strstr(t, "name=\"live\""));
    free(t);
    free(last);
    model_free(m);

    /* cardinality stays bounded: 1 005 schedules keep MX_LAST_MAX last runs, no more */
    m = model_new();
    enum { NS = MX_LAST_MAX + 5 };
    vl_run *many = calloc(NS, sizeof *many);
    char(*nm)[2][24] = calloc(NS, sizeof *nm);
    for (int i = 0; i < NS; i++) {
        snprintf(nm[i][0], sizeof nm[i][0], "s%d-1", i);
        snprintf(nm[i][1], sizeof nm[i][1], "s%d", i);
        many[i].kind = VL_BACKUP;
        many[i].meta.name = nm[i][0];
        many[i].schedule = nm[i][1];
        many[i].phase = (char *)"Completed";
        many[i].phase_id = VL_PH_COMPLETED;
        many[i].started = T0 - 600;
        many[i].completed = T0 - 60;
        model_upsert_run(m, &many[i], 0, T0);
    }
    c = (ans_ctx){.m = m, .now = 0, .wall = T0};
    last = mx_last_runs(&c, m, &n);
    ck_assert_uint_eq(n, MX_LAST_MAX);
    cl.last = last;
    cl.n_last = n;
    t = render(&cl, 1, MX_TEXT);
    size_t lines = 0;
    for (const char *q = t; (q = strstr(q, "\nveltop_last_run_info{")); q++) lines++;
    ck_assert_uint_eq(lines, MX_LAST_MAX);
    free(t);
    free(last);
    free(many);
    free(nm);
    model_free(m);
}
END_TEST

/* ---- one model, two renderers: the exposition says what --once --json says ------------------ */

static vl_run mixed_runs[8];
static vl_volume mixed_vol;

/* A cluster 0.3 s ahead of us (Date headers are whole seconds: the estimate is never 0): a
 * backup and a restore in flight, two backups Queued behind the first (a "queued" finding each),
 * the last Completed backup of "nightly", an older one, and a Failed backup of "weekly" orphaned
 * by a server restart (a "server-restarted" finding). */
static model *mixed_model(void)
{
    model *m = model_new();
    model_set_clock_offset(m, 0.3, 1);
    static const struct {
        const char *name, *sched, *phase;
        vl_kind kind;
        double created, started, completed;
        int64_t done, total;
    } r[] = {
        {"big", "nightly", "InProgress", VL_BACKUP, T0 - 700, T0 - 600, 0, 40, 100},
        {"q1", NULL, "Queued", VL_BACKUP, T0 - 120, 0, 0, 0, 0},
        {"q2", "nightly", "Queued", VL_BACKUP, T0 - 60, 0, 0, 0, 0},
        {"r1", NULL, "InProgress", VL_RESTORE, T0 - 300, T0 - 290, 0, 7, 20},
        {"nightly-new", "nightly", "Completed", VL_BACKUP, T0 - 90000, T0 - 87000, T0 - 86399, 50,
         50},
        {"nightly-old", "nightly", "Completed", VL_BACKUP, T0 - 200000, T0 - 190000, T0 - 180000,
         45, 45},
        {"crashed", "weekly", "Failed", VL_BACKUP, T0 - 4000, T0 - 3900, T0 - 300, 3, 90},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        vl_run *x = &mixed_runs[i];
        memset(x, 0, sizeof *x);
        x->kind = r[i].kind;
        x->meta.name = (char *)r[i].name;
        x->meta.created = r[i].created;
        x->schedule = (char *)r[i].sched;
        x->phase = (char *)r[i].phase;
        x->phase_id = vl_phase_parse(r[i].phase);
        x->started = r[i].started;
        x->completed = r[i].completed;
        x->has_progress = r[i].total > 0;
        x->items_done = r[i].done;
        x->items_total = r[i].total;
        if (!strcmp(r[i].name, "crashed"))
            x->failure_reason =
                (char *)"found a backup with status \"InProgress\" during the server "
                        "starting, mark it as \"Failed\"";
        model_upsert_run(m, x, 100, T0);
    }
    memset(&mixed_vol, 0, sizeof mixed_vol);
    mixed_vol.kind = VL_PVB;
    mixed_vol.meta.name = (char *)"big-a1";
    mixed_vol.run_name = (char *)"big";
    mixed_vol.node = (char *)"worker-1";
    mixed_vol.pod_ns = (char *)"shop";
    mixed_vol.pod_name = (char *)"db-0";
    mixed_vol.volume = (char *)"data";
    mixed_vol.uploader = (char *)"kopia";
    mixed_vol.phase = (char *)"InProgress";
    mixed_vol.phase_id = VL_PH_IN_PROGRESS;
    mixed_vol.started = T0 - 500;
    mixed_vol.bytes_done = 500000000;
    mixed_vol.bytes_total = 1000000000;
    mixed_vol.meta.status_time = T0 + 0.3 - 4;
    model_upsert_volume(m, &mixed_vol, 100);
    model_refresh_volumes(m);
    return m;
}

/* The value of the sample of fam whose labels (after context and namespace) start with
 * `kind="K",name="N",` and hold extra; NAN when there is none (asserted to be one at most). */
static double sample_of(const char *t, const char *fam, const char *kind, const char *name,
                        const char *extra)
{
    char *head = xasprintf("%s{context=\"prod\",namespace=\"velero\",kind=\"%s\",name=\"%s\",", fam,
                           kind, name);
    double v = NAN;
    int seen = 0;
    for (const char *p = t; (p = strstr(p, head)); p++) {
        if (p != t && p[-1] != '\n') continue;
        const char *close = strstr(p, "} ");
        size_t n = (size_t)(close - p);
        char *labels = xasprintf("%.*s", (int)n, p);
        if (!extra || strstr(labels, extra)) {
            ck_assert_msg(!seen++, "two samples of %s for %s", fam, name);
            v = strtod(close + 2, NULL);
        }
        free(labels);
    }
    free(head);
    return v;
}

static double json_time(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    if (cJSON_IsNull(v)) return NAN;
    ck_assert(cJSON_IsString(v));
    struct tm tm = {0};
    ck_assert(strptime(v->valuestring, "%Y-%m-%dT%H:%M:%SZ", &tm));
    return (double)timegm(&tm);
}

static double json_num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    if (cJSON_IsNull(v)) return NAN;
    ck_assert_msg(cJSON_IsNumber(v), "%s", k);
    return v->valuedouble;
}

/* a == b, both unknown (NAN) counting as equal */
#define ck_same(a, b, what, name)                                                                  \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        ck_assert_msg((isnan(a_) && isnan(b_)) || a_ == b_, "%s of %s: metrics %.17g, json %.17g", \
                      what, name, a_, b_);                                                         \
    } while (0)

START_TEST(runs_waiting_to_start_carry_their_findings)
{
    model *m = mixed_model();
    ans_ctx c = {.m = m, .now = 100, .wall = T0};
    size_t n, nl;
    run_answer *runs = mx_run_answers(&c, m, &n);
    run_answer *last = mx_last_runs(&c, m, &nl);
    ck_assert_uint_eq(n, 4); /* big, q1, q2, r1: not finished */
    mx_cluster cl = {.context = "prod",
                     .ns = "velero",
                     .reachable = 1,
                     .runs_known = 1,
                     .data_age = 0,
                     .runs = runs,
                     .n_runs = n,
                     .last = last,
                     .n_last = nl};
    char *t = render(&cl, 1, MX_TEXT);
    /* the two Queued runs: their "queued" finding, and no series of a run in flight */
    ck_assert_msg(has_line(t, "veltop_run_diagnosis_info{context=\"prod\",namespace=\"velero\","
                              "kind=\"Backup\",name=\"q1\",schedule=\"\",rule=\"queued\"} 1"),
                  "%s", t);
    ck_assert(has_line(t, "veltop_run_diagnosis_info{context=\"prod\",namespace=\"velero\","
                          "kind=\"Backup\",name=\"q2\",schedule=\"nightly\",rule=\"queued\"} 1"));
    ck_assert(isnan(sample_of(t, "veltop_run_info", "Backup", "q1", NULL)));
    ck_assert(isnan(sample_of(t, "veltop_run_waiting_info", "Backup", "q2", NULL)));
    ck_assert(
        has_line(t, "veltop_cluster_runs_in_flight{context=\"prod\",namespace=\"velero\"} 2"));
    /* the queue: q1 and q2, q1 created 120 s before now */
    ck_assert(has_line(t, "veltop_backup_queue_length{context=\"prod\",namespace=\"velero\"} 2"));
    ck_assert_msg(has_line(t, "veltop_backup_queue_oldest_age_seconds{context=\"prod\","
                              "namespace=\"velero\"} 120"),
                  "%s", t);
    /* a finished run's finding: on its schedule's last run */
    ck_assert(has_line(t, "veltop_last_run_diagnosis_info{context=\"prod\",namespace=\"velero\","
                          "kind=\"Backup\",name=\"crashed\",schedule=\"weekly\",rule=\"server-"
                          "restarted\"} 1"));
    free(t);
    free(runs);
    free(last);
    model_free(m);
}
END_TEST

START_TEST(metrics_and_once_json_agree_on_one_model)
{
    model *m = mixed_model();
    ans_ctx c = {.m = m, .now = 100, .wall = T0};
    size_t n, nl;
    run_answer *runs = mx_run_answers(&c, m, &n);
    run_answer *last = mx_last_runs(&c, m, &nl);
    mx_cluster cl = {.context = "prod",
                     .ns = "velero",
                     .reachable = 1,
                     .runs_known = 1,
                     .data_age = 0,
                     .runs = runs,
                     .n_runs = n,
                     .last = last,
                     .n_last = nl};
    cl.clock_offset = model_clock_offset(m, &cl.clock_offset_known);
    char *t = render(&cl, 1, MX_TEXT);
    char *js = snapshot_json(&c, "prod", "https://k", "velero");
    cJSON *doc = cJSON_Parse(js);
    ck_assert(doc);
    size_t in_flight = 0, finished_findings = 0, compared_last = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "runs"))
    {
        const char *kind = cJSON_GetObjectItem(r, "kind")->valuestring;
        const char *name = cJSON_GetObjectItem(r, "name")->valuestring;
        const char *phase = cJSON_GetObjectItem(r, "phase")->valuestring;
        vl_phase ph = vl_phase_parse(phase);
        /* the diagnosis: every finding JSON lists for a run not finished is a series */
        const cJSON *d;
        cJSON_ArrayForEach(d, cJSON_GetObjectItem(r, "diagnosis"))
        {
            char *rule = xasprintf("rule=\"%s\"", cJSON_GetObjectItem(d, "code")->valuestring);
            const char *fam = vl_phase_terminal(ph) ? "veltop_last_run_diagnosis_info"
                                                    : "veltop_run_diagnosis_info";
            finished_findings += vl_phase_terminal(ph);
            ck_assert_msg(sample_of(t, fam, kind, name, rule) == 1, "%s %s: no %s", name, fam,
                          rule);
            free(rule);
        }
        if (!vl_phase_active(ph)) continue;
        in_flight++;
        char *pl = xasprintf("phase=\"%s\"", phase);
        ck_assert_msg(sample_of(t, "veltop_run_info", kind, name, pl) == 1, "%s: phase", name);
        free(pl);
        ck_same(sample_of(t, "veltop_run_start_timestamp_seconds", kind, name, NULL),
                json_time(r, "started"), "start", name);
        ck_same(sample_of(t, "veltop_run_items_done", kind, name, NULL), json_num(r, "itemsDone"),
                "items done", name);
        ck_same(sample_of(t, "veltop_run_done_bytes", kind, name, NULL), json_num(r, "bytesDone"),
                "bytes done", name);
        ck_same(sample_of(t, "veltop_run_expected_bytes", kind, name, NULL),
                json_num(r, "bytesTotal"), "bytes total", name);
        /* the ETA: its value and whether it is a promise, absent where JSON says none */
        ck_same(sample_of(t, "veltop_run_eta_seconds", kind, name, NULL), json_num(r, "etaSeconds"),
                "ETA", name);
        const cJSON *lb = cJSON_GetObjectItem(r, "etaLowerBound");
        ck_same(sample_of(t, "veltop_run_eta_lower_bound", kind, name, NULL),
                cJSON_IsNull(lb) ? NAN : cJSON_IsTrue(lb), "ETA lower bound", name);
        ck_assert_str_eq(cJSON_GetObjectItem(r, "etaKind")->valuestring,
                         isnan(sample_of(t, "veltop_run_eta_seconds", kind, name, NULL)) ? "none"
                         : cJSON_IsTrue(lb) ? "lowerBound"
                                            : "estimate");
        /* stalled: true / false / null as 1 / 0 / absent, and for how long */
        const cJSON *st = cJSON_GetObjectItem(r, "stalled");
        ck_same(sample_of(t, "veltop_run_stalled", kind, name, NULL),
                cJSON_IsNull(st) ? NAN : cJSON_IsTrue(st), "stalled", name);
        if (cJSON_IsTrue(st))
            ck_same(sample_of(t, "veltop_run_stalled_seconds", kind, name, NULL),
                    json_num(r, "stalledSeconds"), "stalled for", name);
        /* last progress: JSON to the second */
        double lp = sample_of(t, "veltop_run_last_progress_timestamp_seconds", kind, name, NULL);
        double jlp = json_time(r, "lastProgress");
        ck_assert_msg((isnan(lp) && isnan(jlp)) || fabs(lp - jlp) < 1, "last progress of %s", name);
        /* what its end waits on: the part, and the volume by its pod and volume */
        const cJSON *w = cJSON_GetObjectItem(r, "waitingOn");
        const char *wk = cJSON_GetObjectItem(w, "kind")->valuestring;
        const char *part = !strcmp(wk, "Items")              ? "items"
                           : !strcmp(wk, "PodVolumes")       ? "podVolumes"
                           : !strcmp(wk, "PodVolumeBackup")  ? "podVolumes"
                           : !strcmp(wk, "PodVolumeRestore") ? "podVolumes"
                           : !strcmp(wk, "Finalizing")       ? "finalizing"
                                                             : "dataMover";
        char *pw = xasprintf("part=\"%s\",volume=\"%s\"", part,
                             cJSON_IsNull(cJSON_GetObjectItem(w, "name")) ? ""
                             : !strcmp(cJSON_GetObjectItem(w, "name")->valuestring, "big-a1")
                                 ? "shop/db-0:data"
                                 : "?");
        ck_assert_msg(sample_of(t, "veltop_run_waiting_info", kind, name, pw) == 1,
                      "%s: waiting on %s", name, pw);
        free(pw);
    }
    ck_assert_uint_eq(in_flight, 2);
    ck_assert_uint_eq(finished_findings, 1);
    ck_same(json_num(doc, "clusterClockOffsetSeconds"), 0.3, "clock offset", "the cluster");
    ck_assert(has_line(
        t, "veltop_cluster_clock_offset_seconds{context=\"prod\",namespace=\"velero\"} 0.3"));
    /* the last finished run of each kind and schedule: JSON's newest by completion, its phase,
     * end (the cluster's completionTimestamp, as JSON writes it), items and bytes */
    const char *sched[][2] = {{"nightly", "nightly-new"}, {"weekly", "crashed"}};
    for (size_t i = 0; i < 2; i++) {
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "runs"))
        {
            if (strcmp(cJSON_GetObjectItem(r, "name")->valuestring, sched[i][1])) continue;
            char *pl = xasprintf("schedule=\"%s\",phase=\"%s\"", sched[i][0],
                                 cJSON_GetObjectItem(r, "phase")->valuestring);
            ck_assert_msg(sample_of(t, "veltop_last_run_info", "Backup", sched[i][1], pl) == 1,
                          "%s", pl);
            free(pl);
            ck_same(
                sample_of(t, "veltop_last_run_end_timestamp_seconds", "Backup", sched[i][1], NULL),
                json_time(r, "completed"), "end", sched[i][1]);
            ck_same(sample_of(t, "veltop_last_run_items_done", "Backup", sched[i][1], NULL),
                    json_num(r, "itemsDone"), "items", sched[i][1]);
            ck_same(sample_of(t, "veltop_last_run_done_bytes", "Backup", sched[i][1], NULL),
                    json_num(r, "bytesDone"), "bytes", sched[i][1]);
            compared_last++;
        }
    }
    ck_assert_uint_eq(compared_last, 2);
    ck_assert_uint_eq(nl, 2);
    cJSON_Delete(doc);
    free(js);
    free(t);
    free(runs);
    free(last);
    model_free(m);
}
END_TEST

START_TEST(accept_negotiates_the_format)
{
    ck_assert_int_eq(mx_negotiate(NULL), MX_TEXT);
    ck_assert_int_eq(mx_negotiate(""), MX_TEXT);
    ck_assert_int_eq(mx_negotiate("*/*"), MX_TEXT);
    ck_assert_int_eq(mx_negotiate("text/plain;version=0.0.4"), MX_TEXT);
    /* what Prometheus 2.x sends */
    ck_assert_int_eq(mx_negotiate("application/openmetrics-text;version=1.0.0,application/"
                                  "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                                  "q=0.5,*/*;q=0.1"),
                     MX_OPENMETRICS);
    ck_assert_int_eq(mx_negotiate("text/plain;q=0.9, application/openmetrics-text;q=0.5"), MX_TEXT);
    ck_assert_int_eq(mx_negotiate("application/openmetrics-text;q=0"), MX_TEXT);
    ck_assert_int_eq(mx_negotiate(" Application/OpenMetrics-Text "), MX_OPENMETRICS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("metrics");
    tcase_add_test(tc, label_values_are_escaped);
    tcase_add_test(tc, invalid_utf8_becomes_replacement_characters);
    tcase_add_test(tc, known_figures_have_exact_samples);
    tcase_add_test(tc, unknown_figures_are_absent_not_zero);
    tcase_add_test(tc, a_family_without_samples_is_not_printed);
    tcase_add_test(tc, schedule_overdue_is_absent_while_its_backups_are_unknown);
    tcase_add_test(tc, eta_caveat_is_a_series_of_the_estimate);
    tcase_add_test(tc, lists_not_read_are_named);
    tcase_add_test(tc, every_family_has_help_and_type_once);
    tcase_add_test(tc, openmetrics_has_info_units_and_eof);
    tcase_add_test(tc, cluster_names_in_labels_are_escaped);
    tcase_add_test(tc, volumes_of_runs_in_flight);
    tcase_add_test(tc, the_last_finished_run_per_schedule);
    tcase_add_test(tc, runs_waiting_to_start_carry_their_findings);
    tcase_add_test(tc, metrics_and_once_json_agree_on_one_model);
    tcase_add_test(tc, accept_negotiates_the_format);
    tcase_add_test(tc, repository_gauges_are_exact_and_absent_when_unknown);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
