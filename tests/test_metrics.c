/* test_metrics.c: the Prometheus exposition of the answers (cli/metrics.c): label values escaped
 * and made valid UTF-8, unknown figures absent (never 0), every family with its HELP and TYPE,
 * OpenMetrics' info type, units and "# EOF", the last finished run per schedule, and the Accept
 * negotiation. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
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
    a.started = 0;
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

/* A schedule whose backups cannot be read (health's runs_unknown) has no overdue sample: not a
 * confident 0 (nor the 1 health used to give it, "none yet"); what its own object says stays. */
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

START_TEST(every_family_has_help_and_type_once)
{
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 1, .runs_known = 1};
    char *t = render(&c, 1, MX_TEXT);
    static const char *fam[] = {"veltop_cluster_reachable",
                                "veltop_cluster_data_age_seconds",
                                "veltop_cluster_runs_in_flight",
                                "veltop_cluster_velero_info",
                                "veltop_cluster_node_agents_ready",
                                "veltop_cluster_node_agents",
                                "veltop_cluster_storage_locations_available",
                                "veltop_cluster_storage_locations",
                                "veltop_schedule_paused",
                                "veltop_schedule_next_run_timestamp_seconds",
                                "veltop_schedule_interval_seconds",
                                "veltop_schedule_last_success_timestamp_seconds",
                                "veltop_schedule_overdue",
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
                                "veltop_last_run_done_bytes"};
    size_t types = 0;
    for (const char *p = t; (p = strstr(p, "# TYPE ")); p++) types++;
    ck_assert_uint_eq(types, sizeof fam / sizeof fam[0]);
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        char *want = xasprintf("# TYPE %s gauge", fam[i]);
        ck_assert_msg(has_line(t, want), "missing '%s'", want);
        free(want);
        want = xasprintf("# HELP %s ", fam[i]);
        ck_assert_msg(strstr(t, want), "missing '%s'", want);
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
    ck_assert(has_line(t, "# TYPE veltop_cluster_velero info"));
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
    tcase_add_test(tc, schedule_overdue_is_absent_while_its_backups_are_unknown);
    tcase_add_test(tc, every_family_has_help_and_type_once);
    tcase_add_test(tc, openmetrics_has_info_units_and_eof);
    tcase_add_test(tc, cluster_names_in_labels_are_escaped);
    tcase_add_test(tc, the_last_finished_run_per_schedule);
    tcase_add_test(tc, accept_negotiates_the_format);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
