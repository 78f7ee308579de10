/* test_repo.c: repository maintenance (core/repo.h) judged from BackupRepositories: a real-shaped
 * object decodes to its spec and status; the repository whose last 3 maintenances failed (the
 * sim's repo_maintenance scenario, built by sim/simrepo.c) has a streak of 3, its last success 5h
 * ago against a 1h frequency (overdue by 4h) and the diagnosis naming the newest message; a
 * repository whose newest maintenance succeeded has no streak; a NotReady one says so; a kept
 * list that failed whole is "at least"; a list that cannot be read is unknown with why, and
 * health says unknown, never OK, and ATTENTION for a failing repository. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "kubeclient/backuprepo.h"
#include "kubeclient/util.h"
#include "repo.h"
#include "scenario.h"
#include "simrepo.h"
#include "testutil.h"

#define T_NOW 1780308000.0 /* 2026-06-01T10:00:00Z */

static const char *const real_repo =
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"BackupRepository\",\"metadata\":{\"name\":"
    "\"nginx-example-default-kopia-svlxh\",\"namespace\":\"velero\",\"creationTimestamp\":"
    "\"2026-05-01T10:00:00Z\",\"labels\":{\"velero.io/repository-type\":\"kopia\","
    "\"velero.io/storage-location\":\"default\",\"velero.io/volume-namespace\":"
    "\"nginx-example\"}},\"spec\":{\"backupStorageLocation\":\"default\","
    "\"maintenanceFrequency\":\"1h0m0s\",\"repositoryType\":\"kopia\",\"resticIdentifier\":"
    "\"\",\"volumeNamespace\":\"nginx-example\"},\"status\":{\"lastMaintenanceTime\":"
    "\"2026-06-01T07:30:00Z\",\"phase\":\"Ready\",\"recentMaintenance\":[{"
    "\"completeTimestamp\":\"2026-06-01T07:30:00Z\",\"result\":\"Succeeded\","
    "\"startTimestamp\":\"2026-06-01T07:29:10Z\"},{\"completeTimestamp\":"
    "\"2026-06-01T08:31:00Z\",\"message\":\"error to maintain repo: context deadline "
    "exceeded\",\"result\":\"Failed\",\"startTimestamp\":\"2026-06-01T08:30:00Z\"}]}}";

static kc_store *store_of(const char *const *json, size_t n)
{
    kc_store *s = kc_store_new(kc_repo_decode_any, kc_repo_release);
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_Parse(json[i]);
        ck_assert_ptr_nonnull(o);
        kc_store_upsert(s, o);
        cJSON_Delete(o);
    }
    return s;
}

START_TEST(a_real_repository_decodes)
{
    cJSON *o = cJSON_Parse(real_repo);
    kc_repo *r = kc_repo_decode(o);
    cJSON_Delete(o);
    ck_assert_str_eq(r->name, "nginx-example-default-kopia-svlxh");
    ck_assert_str_eq(r->volume_ns, "nginx-example");
    ck_assert_str_eq(r->bsl, "default");
    ck_assert_str_eq(r->type, "kopia");
    ck_assert_str_eq(r->frequency, "1h0m0s");
    ck_assert_str_eq(r->phase, "Ready");
    ck_assert_ptr_null(r->message);
    ck_assert_double_eq(r->last_maintenance, T_NOW - 2.5 * 3600);
    ck_assert_uint_eq(r->n_recent, 2);
    ck_assert_int_eq(r->recent[0].failed, 0);
    ck_assert_double_eq(r->recent[0].started, T_NOW - 2.5 * 3600 - 50);
    ck_assert_int_eq(r->recent[1].failed, 1);
    ck_assert_str_eq(r->recent[1].message, "error to maintain repo: context deadline exceeded");
    ck_assert_double_eq(r->recent[1].completed, T_NOW - 89 * 60);
    kc_repo_free(r);
    kc_repo_free(NULL);

    /* one failure after a success 2h30m ago, due every hour */
    kc_store *s = store_of(&real_repo, 1);
    repo_report *rp = repo_build(s, T_NOW);
    ck_assert_uint_eq(rp->n, 1);
    const repo_row *w = &rp->rows[0];
    ck_assert_double_eq(w->frequency, 3600);
    ck_assert_int_eq(w->frequency_default, 0);
    ck_assert_double_eq(w->age, 9000);
    ck_assert_double_eq(w->due, T_NOW - 1.5 * 3600);
    ck_assert_int_eq(w->overdue, 1);
    ck_assert_int_eq(w->failed_streak, 1);
    char buf[512];
    ck_assert_str_eq(repo_diagnose(w, buf, sizeof buf),
                     "repository nginx-example-default-kopia-svlxh: maintenance failed, last: "
                     "error to maintain repo: context deadline exceeded");
    ck_assert_str_eq(repo_summary(rp, buf, sizeof buf), "repositories 1 (1 failing, 1 overdue)");
    repo_report_free(rp);
    kc_store_free(s);
}
END_TEST

/* The sim's truth: scenario repo_maintenance.yaml, its objects as veltop-sim serves them. */
START_TEST(the_sims_failing_repository_is_judged_exactly)
{
    char err[256] = "";
    scenario *sc = scenario_load_at(FIXTURES_DIR "/scenarios/repo_maintenance.yaml", 1, T_NOW, err,
                                    sizeof err);
    ck_assert_msg(sc != NULL, "%s", err);
    ck_assert_uint_eq(sc->n_repos, 3);
    kc_store *s = kc_store_new(kc_repo_decode_any, kc_repo_release);
    for (size_t i = 0; i < sc->n_repos; i++) {
        cJSON *o = simrepo_object(&sc->repos[i], "velero", T_NOW);
        kc_store_upsert(s, o);
        cJSON_Delete(o);
    }
    repo_report *rp = repo_build(s, T_NOW);
    ck_assert_uint_eq(rp->n, 3);
    char buf[512];

    const repo_row *app = &rp->rows[0];
    ck_assert_str_eq(app->r->name, "app-default-kopia-x7k2p");
    ck_assert_str_eq(app->r->frequency, "1h0m0s");
    ck_assert_double_eq(app->age, 5 * 3600);
    ck_assert_double_eq(app->due, T_NOW - 4 * 3600);
    ck_assert_int_eq(app->overdue, 1);
    ck_assert_int_eq(app->failed_streak, 3);
    ck_assert_int_eq(app->streak_at_least, 0);
    ck_assert_str_eq(app->newest->result, "Failed");
    ck_assert_double_eq(app->newest->completed, T_NOW - 3600);
    ck_assert_double_eq(app->newest->started, T_NOW - 3660);
    ck_assert_str_eq(repo_diagnose(app, buf, sizeof buf),
                     "repository app-default-kopia-x7k2p: maintenance failed 3 times, last: repo "
                     "maintenance job failed: pod OOMKilled");

    const repo_row *db = &rp->rows[1];
    ck_assert_str_eq(db->r->name, "db-default-kopia-a1b2c");
    ck_assert_double_eq(db->age, 1800);
    ck_assert_int_eq(db->overdue, 0);
    ck_assert_int_eq(db->failed_streak, 0);
    ck_assert_str_eq(repo_diagnose(db, buf, sizeof buf), "");
    ck_assert_int_eq(repo_attention(db), 0);

    const repo_row *logs = &rp->rows[2];
    ck_assert_str_eq(logs->r->name, "logs-default-restic-q9w8e");
    ck_assert_str_eq(logs->r->type, "restic");
    ck_assert_double_eq(logs->age, -1); /* never: unknown, not 0 */
    ck_assert_double_eq(logs->frequency, 7 * 86400.0);
    ck_assert_int_eq(logs->not_ready, 1);
    ck_assert_ptr_null(logs->newest);
    ck_assert_str_eq(repo_diagnose(logs, buf, sizeof buf),
                     "repository logs-default-restic-q9w8e: NotReady: error to init backup "
                     "repository: repository not initialized");

    ck_assert_str_eq(repo_summary(rp, buf, sizeof buf),
                     "repositories 3 (1 failing, 2 overdue, 1 not ready)");
    repo_report_free(rp);
    kc_store_free(s);
    scenario_free(sc);
}
END_TEST

START_TEST(a_whole_failed_list_is_a_lower_bound_and_overdue_has_its_words)
{
    /* 25 failures (all Velero keeps): at least 25, not exactly */
    char *json =
        xstrdup("{\"metadata\":{\"name\":\"r\"},\"spec\":{\"maintenanceFrequency\":\"1h\"},"
                "\"status\":{\"lastMaintenanceTime\":\"2026-06-01T06:55:00Z\","
                "\"recentMaintenance\":[");
    for (int i = 0; i < 25; i++) {
        char *n =
            xasprintf("%s%s{\"result\":\"Failed\",\"message\":\"m%d\"}", json, i ? "," : "", i);
        free(json);
        json = n;
    }
    char *full = xasprintf("%s]}}", json);
    free(json);
    const char *one[] = {full};
    kc_store *s = store_of(one, 1);
    repo_report *rp = repo_build(s, T_NOW);
    char buf[512];
    ck_assert_int_eq(rp->rows[0].failed_streak, 25);
    ck_assert_int_eq(rp->rows[0].streak_at_least, 1);
    ck_assert_str_eq(repo_diagnose(&rp->rows[0], buf, sizeof buf),
                     "repository r: maintenance failed at least 25 times, last: m24");
    repo_report_free(rp);
    kc_store_free(s);
    free(full);

    /* no result yet, last success 3h05m ago, every hour: overdue by 2h05m */
    const char *quiet[] = {"{\"metadata\":{\"name\":\"q\"},\"spec\":{\"maintenanceFrequency\":"
                           "\"1h\"},\"status\":{\"phase\":\"Ready\",\"lastMaintenanceTime\":"
                           "\"2026-06-01T06:55:00Z\"}}",
                           "{\"metadata\":{\"name\":\"d\"},\"spec\":{},\"status\":{\"phase\":"
                           "\"Ready\",\"lastMaintenanceTime\":\"2026-05-30T10:00:00Z\"}}"};
    s = store_of(quiet, 2);
    rp = repo_build(s, T_NOW);
    /* sorted by name: d, q */
    ck_assert_int_eq(rp->rows[0].frequency_default, 1);
    ck_assert_double_eq(rp->rows[0].frequency, 7 * 86400.0);
    ck_assert_int_eq(rp->rows[0].overdue, 0);
    ck_assert_int_eq(rp->rows[1].failed_streak, 0);
    ck_assert_int_eq(rp->rows[1].overdue, 1);
    ck_assert_str_eq(repo_diagnose(&rp->rows[1], buf, sizeof buf),
                     "repository q: maintenance overdue by 2h05m (last 3h05m ago, every 1h00m)");
    ck_assert_str_eq(repo_summary(rp, buf, sizeof buf), "repositories 2 (1 overdue)");
    repo_report_free(rp);
    kc_store_free(s);
}
END_TEST

START_TEST(unread_repositories_are_unknown_not_none)
{
    kc_store *s = store_of(&real_repo, 1);
    /* nothing else needs attention; the pods are not listed (unknown) */
    health *h = health_build(NULL, NULL, NULL, NULL, NULL, 0, T_NOW);
    h->repos = repo_build(s, T_NOW);
    char buf[1024];
    /* a failing repository: attention, and the summary says so */
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_ATTENTION);
    ck_assert_ptr_nonnull(strstr(buf, "  repositories 1 (1 failing, 1 overdue)"));
    /* forbidden: no row, no count; health unknown with why */
    health_set_unread(h, HEALTH_IN_REPOS, "forbidden");
    ck_assert_uint_eq(h->repos->n, 0);
    ck_assert_int_eq(h->repos->n_failing, 0);
    ck_assert_str_eq(repo_summary(h->repos, buf, sizeof buf),
                     "repositories: unknown (cannot read backuprepositories: forbidden)");
    ck_assert_str_eq(repo_unknown(h->repos, buf, sizeof buf),
                     "cannot read backuprepositories: forbidden");
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_UNKNOWN);
    ck_assert_ptr_null(strstr(buf, "repositories"));
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf),
                     "cannot read pods: not listed; cannot read backuprepositories: forbidden");
    health_free(h);
    kc_store_free(s);
}
END_TEST

/* Maintenance Jobs: decoded from batch/v1 as the Job controller writes them, joined to their
 * repository by Velero's label (the SHA3-224 of a name over 63 characters), said in one line;
 * a list that cannot be read is unknown, never none. */
static const char *job_json(const char *name, const char *label, const char *status)
{
    static char bufs[4][1024]; /* one per job of the test's array */
    static int k;
    char *buf = bufs[k++ % 4];
    snprintf(buf, sizeof bufs[0],
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"velero\",\"labels\":{"
             "\"velero.io/repo-name\":\"%s\"}},\"status\":%s}",
             name, label, status);
    return buf;
}

START_TEST(maintenance_jobs_join_by_label_and_say_so)
{
    char label[80];
    const char *long_name = "long-namespace-name-for-a-repository-default-kopia-abcdefghijklmn";
    ck_assert_str_eq(kc_job_repo_label("app-default-kopia-x7k2p", label, sizeof label),
                     "app-default-kopia-x7k2p");
    ck_assert_str_eq(kc_job_repo_label(long_name, label, sizeof label),
                     "a0035e190643c94afc95a66dc3f0a0f4d446d61f9990339f6b8dc8ed");
    const char *repos[] = {
        "{\"metadata\":{\"name\":\"app-default-kopia-x7k2p\",\"namespace\":\"velero\"},"
        "\"spec\":{\"volumeNamespace\":\"app\",\"maintenanceFrequency\":\"1h0m0s\"}}",
        "{\"metadata\":{\"name\":\"long-namespace-name-for-a-repository-default-kopia-"
        "abcdefghijklmn\",\"namespace\":\"velero\"},\"spec\":{\"volumeNamespace\":\"logs\"}}",
        "{\"metadata\":{\"name\":\"db-default-kopia-a1b2c\",\"namespace\":\"velero\"},"
        "\"spec\":{\"volumeNamespace\":\"db\"}}"};
    kc_store *rs = store_of(repos, 3);
    kc_store *js = kc_store_new(kc_job_decode_any, kc_job_release);
    const char *jobs[] = {
        job_json("app-maintain-job-1", "app-default-kopia-x7k2p",
                 "{\"startTime\":\"2026-06-01T07:00:00Z\",\"failed\":1,\"conditions\":[{"
                 "\"type\":\"Failed\",\"status\":\"True\",\"lastTransitionTime\":"
                 "\"2026-06-01T07:00:40Z\",\"reason\":\"BackoffLimitExceeded\",\"message\":"
                 "\"Job has reached the specified backoff limit\"}]}"),
        job_json("app-maintain-job-2", "app-default-kopia-x7k2p",
                 "{\"startTime\":\"2026-06-01T09:58:00Z\",\"active\":1}"),
        job_json("app-maintain-job-0", "app-default-kopia-x7k2p",
                 "{\"startTime\":\"2026-06-01T06:00:00Z\",\"succeeded\":1,\"completionTime\":"
                 "\"2026-06-01T06:00:45Z\",\"conditions\":[{\"type\":\"Complete\",\"status\":"
                 "\"True\"}]}"),
        job_json("repo-maintain-job-9", "a0035e190643c94afc95a66dc3f0a0f4d446d61f9990339f6b8dc8ed",
                 "{\"startTime\":\"2026-06-01T09:40:00Z\",\"succeeded\":1,\"completionTime\":"
                 "\"2026-06-01T09:40:30Z\"}"),
    };
    for (size_t i = 0; i < 4; i++) {
        cJSON *o = cJSON_Parse(jobs[i]);
        ck_assert_ptr_nonnull(o);
        kc_store_upsert(js, o);
        cJSON_Delete(o);
    }
    repo_report *rp = repo_build(rs, T_NOW);
    repo_add_jobs(rp, js, 1, "", NULL);
    char buf[1024];
    ck_assert_str_eq(rp->rows[0].r->name, "app-default-kopia-x7k2p");
    ck_assert_uint_eq(rp->rows[0].n_jobs, 3);
    ck_assert_uint_eq(rp->rows[0].n_running, 1);
    ck_assert_str_eq(
        repo_jobs_line(rp, &rp->rows[0], buf, sizeof buf),
        "maintenance jobs: running app-maintain-job-2 (started 2m00s ago); last: failed "
        "2h59m ago (took 40s): Job has reached the specified backoff limit, succeeded "
        "3h59m ago (took 45s)");
    ck_assert_str_eq(repo_jobs_line(rp, &rp->rows[1], buf, sizeof buf), "maintenance jobs: none");
    ck_assert_str_eq(rp->rows[2].r->name, long_name);
    ck_assert_str_eq(repo_jobs_line(rp, &rp->rows[2], buf, sizeof buf),
                     "maintenance jobs: last: succeeded 19m30s ago (took 30s)");
    repo_report_free(rp);
    /* the jobs cannot be listed: unknown, with why, on every row */
    rp = repo_build(rs, T_NOW);
    repo_add_jobs(rp, NULL, 0, "forbidden", NULL);
    for (size_t i = 0; i < rp->n; i++)
        ck_assert_str_eq(repo_jobs_line(rp, &rp->rows[i], buf, sizeof buf),
                         "maintenance jobs: unknown (forbidden)");
    repo_report_free(rp);
    kc_store_free(js);
    kc_store_free(rs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("repo");
    TCase *tc = tcase_create("repo");
    tcase_add_test(tc, a_real_repository_decodes);
    tcase_add_test(tc, the_sims_failing_repository_is_judged_exactly);
    tcase_add_test(tc, a_whole_failed_list_is_a_lower_bound_and_overdue_has_its_words);
    tcase_add_test(tc, unread_repositories_are_unknown_not_none);
    tcase_add_test(tc, maintenance_jobs_join_by_label_and_say_so);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
