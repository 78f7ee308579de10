/* test_download.c: the DownloadRequest flow against the in-process veltop-sim: a stored log and
 * resource list arrive whole and gunzipped, the request is deleted afterwards, a missing run times
 * out with Velero's hint; the Velero pod's log is followed from a start time. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/client.h"
#include "kubeclient/download.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/podlog.h"
#include "logprogress.h"
#include "testutil.h"
#include "vsim.h"

static tu_sim ts;
static const char *faults; /* for the sim: NULL = none */

static void setup(void)
{
    char *scen = xasprintf("%s/scenarios/basic.yaml", FIXTURES_DIR);
    tu_sim_start(&ts, (vsim_opts){.scenario = scen, .faults = faults});
    tu_sim_connect(&ts);
    free(scen);
}

static void teardown(void)
{
    tu_sim_stop(&ts);
}

typedef struct fetch {
    kc_buf data;
    int done;
    kc_err err;
    size_t chunks;
} fetch;

static void on_data(void *arg, const char *d, size_t n)
{
    fetch *f = arg;
    kc_buf_append(&f->data, d, n);
    f->chunks++;
}

static void on_done(void *arg, const kc_err *err)
{
    fetch *f = arg;
    f->done = 1;
    f->err = *err;
}

static int is_done(void *arg)
{
    return ((fetch *)arg)->done;
}

static kc_dl_state fetch_one(const char *kind, const char *target, long timeout_ms, fetch *f)
{
    memset(f, 0, sizeof *f);
    kc_download_opts o = {
        .ns = "velero", .kind = kind, .target = target, .url_timeout_ms = timeout_ms};
    kc_download *d = kc_download_start(ts.client, &o, on_data, on_done, f);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, is_done, f, 20000), 1);
    kc_dl_state st = kc_download_state(d);
    ck_assert_uint_eq(kc_download_bytes_out(d), f->data.len);
    if (st == KC_DL_DONE) ck_assert_uint_gt(kc_download_bytes_in(d), 0);
    kc_download_free(d);
    return st;
}

typedef struct listed {
    int done;
    long status;
    int items;
} listed;

static void on_list(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)err;
    listed *l = arg;
    l->done = 1;
    l->status = resp->status;
    cJSON *o = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
    l->items = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "items"));
    cJSON_Delete(o);
}

static int list_done(void *arg)
{
    return ((listed *)arg)->done;
}

static long stats_requests, stats_watches, stats_log_closes;

static void on_stats(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)err;
    listed *l = arg;
    l->done = 1;
    l->status = resp->status;
    cJSON *o = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
    stats_requests = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "requests"));
    stats_watches = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "watches"));
    const cJSON *fired = cJSON_GetObjectItemCaseSensitive(o, "faults");
    stats_log_closes =
        (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fired, "close-logs"));
    cJSON_Delete(o);
}

static int count_download_requests(void)
{
    listed l = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/downloadrequests"};
    kc_client_request(ts.client, &o, NULL, on_list, &l);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, list_done, &l, 10000), 1);
    ck_assert_int_eq(l.status, 200);
    return l.items;
}

START_TEST(stored_log_arrives_gunzipped_and_request_is_deleted)
{
    fetch f;
    ck_assert_int_eq(fetch_one("BackupLog", "backup-done", 0, &f), KC_DL_DONE);
    ck_assert_str_eq(f.err.msg, "");
    char *text = kc_buf_cstr(&f.data);
    ck_assert_msg(!strncmp(text, "time=\"", 6), "first bytes: %.40s", text);
    ck_assert_ptr_nonnull(
        strstr(text, "msg=\"Setting up backup temp file\" backup=velero/backup-done"));
    ck_assert_ptr_nonnull(strstr(text, "msg=\"Backed up a total of 55 items\""));
    ck_assert_int_eq(text[f.data.len - 1], '\n');
    ck_assert_int_eq(count_download_requests(), 0);
    kc_buf_free(&f.data);
}
END_TEST

START_TEST(resource_list_gives_the_runs_totals)
{
    fetch f;
    ck_assert_int_eq(fetch_one("BackupResourceList", "backup-done", 0, &f), KC_DL_DONE);
    vl_res_progress *r;
    size_t n;
    kc_err e = {0};
    ck_assert_int_eq(lprog_from_resource_list(f.data.data, f.data.len, &r, &n, &e), 0);
    /* basic.yaml backup-done: 8 resources, 55 items */
    ck_assert_uint_eq(n, 8);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += r[i].total;
    ck_assert_int_eq(sum, 55);
    ck_assert_str_eq(r[0].resource, "configmaps");
    ck_assert_int_eq(r[0].total, 10);
    ck_assert_str_eq(r[1].resource, "deployments.apps");
    ck_assert_int_eq(r[1].total, 5);
    lprog_res_free(r, n);
    kc_buf_free(&f.data);
}
END_TEST

START_TEST(missing_run_times_out_with_velero_hint)
{
    fetch f;
    ck_assert_int_eq(fetch_one("BackupLog", "no-such-backup", 1500, &f), KC_DL_FAILED);
    ck_assert_str_eq(f.err.msg, KC_DL_URL_TIMEOUT_MSG);
    ck_assert_uint_eq(f.data.len, 0);
    ck_assert_int_eq(count_download_requests(), 0);
    kc_buf_free(&f.data);
}
END_TEST

/* The sim's request and watch counters (GET /debug/stats). */
static void sim_stats(long *requests, long *watches)
{
    listed l = {0};
    kc_request_opts o = {.path = "/debug/stats"};
    kc_client_request(ts.client, &o, NULL, on_stats, &l);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, list_done, &l, 10000), 1);
    *requests = stats_requests;
    *watches = stats_watches;
}

START_TEST(request_is_named_after_the_run_and_watched_not_polled)
{
    long req0, w0, req1, w1;
    sim_stats(&req0, &w0);
    fetch f = {0};
    kc_download_opts o = {
        .ns = "velero", .kind = "BackupLog", .target = "no-such-backup", .url_timeout_ms = 2000};
    kc_download *d = kc_download_start(ts.client, &o, on_data, on_done, &f);
    /* <run>-<uuid v4>, as `velero backup logs` names it */
    const char *name = kc_download_name(d);
    ck_assert_uint_eq(strlen(name), strlen("no-such-backup-") + 36);
    ck_assert_int_eq(strncmp(name, "no-such-backup-", 15), 0);
    const char *u = name + 15;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            ck_assert_int_eq(u[i], '-');
        else
            ck_assert_msg(strchr("0123456789abcdef", u[i]) && u[i], "uuid %s", u);
    }
    ck_assert_int_eq(u[14], '4');                 /* version 4 */
    ck_assert_ptr_nonnull(strchr("89ab", u[19])); /* RFC 4122 variant */
    ck_assert_int_eq(kc_loop_run_until(ts.loop, is_done, &f, 20000), 1);
    ck_assert_str_eq(f.err.msg, KC_DL_URL_TIMEOUT_MSG);
    kc_download_free(d);
    sim_stats(&req1, &w1);
    /* 2 s of waiting: POST, one watch, DELETE (and our first stats GET); the CLI's 25 ms polling
     * would have made ~80 GETs */
    ck_assert_int_eq(w1 - w0, 1);
    ck_assert_int_le(req1 - req0, 5);
}
END_TEST

typedef struct follow {
    int lines, mine, processing;
} follow;

static void on_line(void *arg, const char *line, size_t n)
{
    follow *fl = arg;
    fl->lines++;
    if (memmem(line, n, "backup=velero/backup-inprogress", 31)) fl->mine++;
    if (memmem(line, n, "msg=\"Processing item\" backup=velero/backup-inprogress", 53))
        fl->processing++;
}

static int three_items(void *arg)
{
    return ((follow *)arg)->processing >= 3;
}

START_TEST(velero_pod_log_is_found_and_followed)
{
    follow fl = {0};
    kc_podlog_opts o = {.ns = "velero", .since = kc_wall_now() - 3600};
    kc_podlog *p = kc_podlog_start(ts.client, &o, on_line, NULL, &fl);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, three_items, &fl, 20000), 1);
    ck_assert_int_eq(kc_podlog_state(p), KC_PL_STREAMING);
    ck_assert_ptr_nonnull(kc_podlog_pod(p));
    ck_assert_int_eq(strncmp(kc_podlog_pod(p), "velero-", 7), 0);
    ck_assert_int_gt(fl.mine, fl.processing);
    ck_assert_uint_eq(kc_podlog_lines(p), (unsigned long)fl.lines);
    kc_podlog_free(p);
}
END_TEST

static int podlog_failed(void *arg)
{
    return kc_podlog_state(arg) == KC_PL_FAILED;
}

/* Names from the cluster never steer a request elsewhere: a pod name or a run name that is not
 * one path segment ("x/../../../api/...") is refused, nothing is requested with it. */
START_TEST(names_that_are_not_one_path_segment_are_refused)
{
    follow fl = {0};
    kc_podlog_opts o = {.ns = "velero", .pod = "x/../../../api/v1/namespaces/kube-system/secrets"};
    kc_podlog *p = kc_podlog_start(ts.client, &o, on_line, NULL, &fl);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, podlog_failed, p, 10000), 1);
    ck_assert_str_eq(kc_podlog_error(p), "the pod name \"x/../../../api/v1/namespaces/kube-system/"
                                         "secrets\" cannot be used in a request path");
    kc_podlog_free(p);
    fetch f;
    ck_assert_int_eq(fetch_one("BackupLog", "../../../../api/v1/secrets", 0, &f), KC_DL_FAILED);
    ck_assert_msg(strncmp(f.err.msg,
                          "the run name \"../../../../api/v1/secrets\" cannot be used "
                          "in a request path",
                          76) == 0,
                  "%s", f.err.msg);
    ck_assert_uint_eq(f.data.len, 0);
    kc_buf_free(&f.data);
    ck_assert_int_eq(count_download_requests(), 0);
}
END_TEST

static void setup_faults(void)
{
    faults = "bookmark-close,close-logs";
    setup();
    faults = NULL;
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

static void setup_429(void)
{
    faults = "error429=1,retry-after=2";
    setup();
    faults = NULL;
}

/* Every request answered 429 with Retry-After: 2: the log follower waits the 2 s the server asks
 * (it retried after its own 0.8-1.6 s before), so 1.7 s see one request, not two. */
START_TEST(log_follow_obeys_retry_after)
{
    long req0, w, req1;
    sim_stats(&req0, &w);
    follow fl = {0};
    kc_podlog_opts o = {.ns = "velero", .since = kc_wall_now() - 3600};
    kc_podlog *p = kc_podlog_start(ts.client, &o, on_line, NULL, &fl);
    kc_loop_run_until(ts.loop, never, NULL, 1700);
    ck_assert_int_eq(kc_podlog_state(p), KC_PL_RETRYING);
    ck_assert_msg(strstr(kc_podlog_error(p), "HTTP 429") != NULL, "%s", kc_podlog_error(p));
    sim_stats(&req1, &w);
    ck_assert_int_eq(req1 - req0 - 1, 1); /* minus the first stats GET */
    kc_podlog_free(p);
}
END_TEST

/* The DownloadRequest watch ended at once and was re-opened at once (8 865 requests): now each
 * re-open waits the backoff (0.8 s doubling): in 3 s of waiting for a URL that never comes, at
 * most 1 + 3 watches (0.8 + 1.6 + 3.2 > 3 even without jitter). */
START_TEST(download_watch_ending_at_once_is_not_a_flood)
{
    long req0, w0, req1, w1;
    sim_stats(&req0, &w0);
    fetch f = {0};
    kc_download_opts o = {
        .ns = "velero", .kind = "BackupLog", .target = "no-such-backup", .url_timeout_ms = 3000};
    kc_download *d = kc_download_start(ts.client, &o, on_data, on_done, &f);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, is_done, &f, 20000), 1);
    ck_assert_str_eq(f.err.msg, KC_DL_URL_TIMEOUT_MSG);
    kc_download_free(d);
    sim_stats(&req1, &w1);
    ck_assert_msg(w1 - w0 >= 2 && w1 - w0 <= 3, "%ld watches", w1 - w0);
}
END_TEST

/* A followed log that ends at once was re-opened every second for ever (the attempt count went
 * back to 0 with each opening): it now backs off as everything else, so in 4.5 s at most three
 * openings (at 0, >= 0.8 and >= 2.4 s), not five. */
START_TEST(log_follow_ending_at_once_backs_off)
{
    follow fl = {0};
    kc_podlog_opts o = {.ns = "velero", .since = kc_wall_now() - 3600};
    kc_podlog *p = kc_podlog_start(ts.client, &o, on_line, NULL, &fl);
    kc_loop_run_until(ts.loop, never, NULL, 4500);
    long req, w;
    sim_stats(&req, &w);
    ck_assert_msg(stats_log_closes >= 2 && stats_log_closes <= 3, "%ld log requests",
                  stats_log_closes);
    ck_assert_int_gt(fl.lines, 0);
    kc_podlog_free(p);
}
END_TEST

static int no_pending(void *arg)
{
    (void)arg;
    return kc_download_pending(ts.client) == 0;
}

static long dr_created(void)
{
    char *s = vsim_stats(ts.sim);
    cJSON *o = cJSON_Parse(s);
    free(s);
    long n =
        (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "downloadRequestsCreated"));
    cJSON_Delete(o);
    return n;
}

static int is_fetching(void *arg)
{
    return kc_download_state(arg) == KC_DL_FETCHING;
}

/* Let go at any step (the create on its way, the download hanging: dl-hang), a DownloadRequest is
 * still deleted: it goes on alone until the DELETE is answered, counted by kc_download_pending. */
START_TEST(freed_download_still_deletes_its_request)
{
    fetch f = {0};
    kc_download_opts o = {.ns = "velero", .kind = "BackupLog", .target = "backup-done"};
    for (int when = 0; when < 2; when++) {
        kc_download *d = kc_download_start(ts.client, &o, on_data, on_done, &f);
        if (when == 1) /* the object store answered and sends nothing */
            ck_assert_int_eq(kc_loop_run_until(ts.loop, is_fetching, d, 20000), 1);
        ck_assert_int_eq(kc_download_pending(ts.client), 0);
        kc_download_free(d);
        ck_assert_int_eq(kc_download_pending(ts.client), 1);
        ck_assert_int_eq(kc_loop_run_until(ts.loop, no_pending, NULL, 10000), 1);
        ck_assert_int_eq(count_download_requests(), 0);
        ck_assert_int_eq(f.done, 0); /* no callback after the free */
    }
    ck_assert_int_eq(dr_created(), 2);
}
END_TEST

/* S3's 403 "Request has expired": one new DownloadRequest, and the log arrives (dl-expired=1). */
START_TEST(expired_link_is_renewed_once)
{
    fetch f;
    ck_assert_int_eq(fetch_one("BackupLog", "backup-done", 0, &f), KC_DL_DONE);
    ck_assert_str_eq(f.err.msg, "");
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&f.data), "Backed up a total of 55 items"));
    ck_assert_int_eq(dr_created(), 2);
    ck_assert_int_eq(count_download_requests(), 0);
    kc_buf_free(&f.data);
    /* the store answered so once: the next download needs one request */
    ck_assert_int_eq(fetch_one("BackupLog", "backup-done", 0, &f), KC_DL_DONE);
    ck_assert_int_eq(dr_created(), 3);
    kc_buf_free(&f.data);
}
END_TEST

START_TEST(expired_twice_says_so)
{
    fetch f;
    ck_assert_int_eq(fetch_one("BackupLog", "backup-done", 0, &f), KC_DL_FAILED);
    ck_assert_str_eq(f.err.msg, "downloading BackupLog: the download link expired before it was "
                                "used, twice (the object store answered 403 \"Request has "
                                "expired\"; is its clock or Velero's off?)");
    ck_assert_int_eq(dr_created(), 2);
    ck_assert_int_eq(count_download_requests(), 0);
    kc_buf_free(&f.data);
}
END_TEST

static void setup_with(const char *fl)
{
    faults = fl;
    setup();
    faults = NULL;
}
static void setup_hang(void)
{
    setup_with("dl-hang");
}
static void setup_expired(void)
{
    setup_with("dl-expired=1");
}
static void setup_expired_always(void)
{
    setup_with("dl-expired=100");
}

int main(void)
{
    Suite *s = suite_create("download");
    TCase *tc = tcase_create("download");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, stored_log_arrives_gunzipped_and_request_is_deleted);
    tcase_add_test(tc, resource_list_gives_the_runs_totals);
    tcase_add_test(tc, missing_run_times_out_with_velero_hint);
    tcase_add_test(tc, request_is_named_after_the_run_and_watched_not_polled);
    tcase_add_test(tc, velero_pod_log_is_found_and_followed);
    tcase_add_test(tc, names_that_are_not_one_path_segment_are_refused);
    suite_add_tcase(s, tc);
    TCase *tf = tcase_create("faults");
    tcase_set_timeout(tf, 60);
    tcase_add_checked_fixture(tf, setup_faults, teardown);
    tcase_add_test(tf, download_watch_ending_at_once_is_not_a_flood);
    tcase_add_test(tf, log_follow_ending_at_once_backs_off);
    suite_add_tcase(s, tf);
    TCase *t4 = tcase_create("429");
    tcase_set_timeout(t4, 60);
    tcase_add_checked_fixture(t4, setup_429, teardown);
    tcase_add_test(t4, log_follow_obeys_retry_after);
    suite_add_tcase(s, t4);
    TCase *th = tcase_create("objstore");
    tcase_set_timeout(th, 60);
    tcase_add_checked_fixture(th, setup_hang, teardown);
    tcase_add_test(th, freed_download_still_deletes_its_request);
    suite_add_tcase(s, th);
    TCase *te = tcase_create("expired");
    tcase_set_timeout(te, 60);
    tcase_add_checked_fixture(te, setup_expired, teardown);
    tcase_add_test(te, expired_link_is_renewed_once);
    suite_add_tcase(s, te);
    TCase *tx = tcase_create("expired-always");
    tcase_set_timeout(tx, 60);
    tcase_add_checked_fixture(tx, setup_expired_always, teardown);
    tcase_add_test(tx, expired_twice_says_so);
    suite_add_tcase(s, tx);
    return tu_run_suite(s);
}
