/* test_queue.c: why a backup is not running (core/queue.c): its position, the runs ahead of it,
 * the concurrency limit from the server pod's args (unknown with its reason when the pod cannot
 * be read), the overlapping backup named, the estimated start from the ETAs of the runs ahead,
 * the dead queue and a stuck ReadyToStart. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "kubeclient/pod.h"
#include "queue.h"
#include "testutil.h"

#define T0 1780308000.0 /* 2026-06-01T10:00:00Z: the runs in flight start here */

static char *ns_app1[] = {"app1"}, *ns_app2[] = {"app2"}, *ns_app3[] = {"app3"},
            *ns_34[] = {"app3", "app4"}, *ns_star[] = {"*"}, *ns_app_glob[] = {"app*"};

static void set_run(vl_run *r, const char *name, const char *phase, char **ns, size_t nns)
{
    memset(r, 0, sizeof *r);
    r->kind = VL_BACKUP;
    r->meta.name = (char *)name;
    r->meta.ns = (char *)"velero";
    r->phase = (char *)phase;
    r->phase_id = vl_phase_parse(phase);
    r->included_ns = ns;
    r->n_included_ns = nns;
}

/* A backup in flight of total items from T0, one more a second up to upto (rate 1/s). */
static model_run *moving(model *m, vl_run *r, const char *name, char **ns, int64_t total, int upto)
{
    set_run(r, name, "InProgress", ns, 1);
    r->started = T0;
    r->meta.created = T0 - 1;
    r->has_progress = 1;
    r->items_total = total;
    model_run *mr = model_upsert_run(m, r, 0, T0);
    for (int t = 1; t <= upto; t++) {
        r->items_done = t;
        model_upsert_run(m, r, t, T0 + t);
    }
    return mr;
}

static model_run *waiting(model *m, vl_run *r, const char *name, const char *phase, int64_t pos,
                          char **ns, size_t nns, double created)
{
    set_run(r, name, phase, ns, nns);
    r->queue_position = pos;
    r->meta.created = created;
    return model_upsert_run(m, r, 0, T0);
}

typedef struct fx {
    kc_store *pods;
    health *h;
} fx;

static const char *server_pod(const char *args)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"metadata\":{\"name\":\"velero-1\",\"namespace\":\"velero\",\"labels\":{\"deploy\":"
             "\"velero\"}},\"spec\":{\"containers\":[{\"name\":\"velero\",\"image\":\"velero/"
             "velero:v1.18.0\",\"args\":[%s]}]},\"status\":{\"phase\":\"Running\",\"conditions\":"
             "[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
             args);
    return buf;
}

static void fx_health(fx *f, model *m, const char *pod_json, int pods_known)
{
    f->pods = kc_store_new(kc_pod_decode_any, kc_pod_release);
    if (pod_json) {
        cJSON *o = cJSON_Parse(pod_json);
        ck_assert_ptr_nonnull(o);
        kc_store_upsert(f->pods, o);
        cJSON_Delete(o);
    }
    f->h = health_build(m, NULL, NULL, NULL, f->pods, pods_known, T0 + 60);
}

static void fx_free(fx *f)
{
    health_free(f->h);
    kc_store_free(f->pods);
}

static ans_ctx at(const model *m, const health *h, double now)
{
    ans_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.h = h;
    c.now = now;
    c.wall = T0 + now;
    return c;
}

START_TEST(server_args_give_the_limit)
{
    const char *cases[][2] = {{"\"server\",\"--concurrent-backups=2\"", "2"},
                              {"\"server\",\"--concurrent-backups\",\"3\"", "3"},
                              {"\"server\",\"--uploader-type=kopia\"", "0"},
                              {"\"server\",\"--concurrent-backups=x\"", "0"}};
    for (size_t i = 0; i < 4; i++) {
        cJSON *o = cJSON_Parse(server_pod(cases[i][0]));
        kc_pod *p = kc_pod_decode(o);
        ck_assert_int_eq(p->concurrent_backups, atoi(cases[i][1]));
        kc_pod_free(p);
        cJSON_Delete(o);
    }
}
END_TEST

/* The truth of the sim's queue scenario: limit 2, b1 (app1) and b2 (app2) in flight, ending in
 * 40 s and 70 s (1 item/s); q3 (app3) first, q4 (app1: overlaps b1), q5 (app3, app4: overlaps
 * q3) behind. */
START_TEST(queue_of_five_with_limit_two)
{
    model *m = model_new();
    vl_run b1, b2, q3, q4, q5;
    moving(m, &b1, "b1", ns_app1, 100, 60);
    moving(m, &b2, "b2", ns_app2, 130, 60);
    model_run *r3 = waiting(m, &q3, "q3", "Queued", 1, ns_app3, 1, T0 + 10);
    model_run *r4 = waiting(m, &q4, "q4", "Queued", 2, ns_app1, 1, T0 + 20);
    model_run *r5 = waiting(m, &q5, "q5", "Queued", 3, ns_34, 2, T0 + 30);
    fx f;
    fx_health(&f, m, server_pod("\"server\",\"--concurrent-backups=2\""), 1);
    ans_ctx c = at(m, f.h, 60);
    run_answer a;
    char buf[512];

    answer_run(&c, r3, &a);
    ck_assert(a.queue.waiting);
    ck_assert_int_eq(a.queue.position, 1);
    ck_assert_int_eq(a.queue.position_ours, 0);
    ck_assert_uint_eq(a.queue.n_ahead, 2);
    ck_assert_uint_eq(a.queue.n_ahead_running, 2);
    ck_assert_double_eq(a.queue.waited, 50); /* created T0+10, now T0+60 */
    ck_assert(a.queue.limit_known && a.queue.limit == 2 && !a.queue.limit_default);
    ck_assert_int_eq(a.queue.why, QUEUE_WHY_LIMIT);
    ck_assert_ptr_null(a.queue.overlap);
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue),
                     "the concurrency limit is full: 2 of 2 backups running "
                     "(--concurrent-backups=2)");
    ck_assert(a.queue.start_known);
    /* b1 ends first: the start is its ETA's end, as the run answer says it (100 s and the
     * final phases' second) */
    run_answer e1, e2;
    answer_run(&c, model_find_run(m, VL_BACKUP, "b1"), &e1);
    answer_run(&c, model_find_run(m, VL_BACKUP, "b2"), &e2);
    ck_assert_double_eq_tol(e1.eta_end, T0 + 101, 0.5);
    ck_assert_double_eq_tol(e2.eta_end, T0 + 131, 0.5);
    ck_assert_double_eq(a.queue.start, e1.eta_end);
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#1, limit 2 full");

    answer_run(&c, r4, &a);
    ck_assert_int_eq(a.queue.position, 2);
    ck_assert_uint_eq(a.queue.n_ahead, 3);
    ck_assert_uint_eq(a.queue.n_ahead_queued, 1);
    ck_assert_int_eq(a.queue.why, QUEUE_WHY_LIMIT);
    ck_assert_ptr_eq(a.queue.overlap, model_find_run(m, VL_BACKUP, "b1"));
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue),
                     "the concurrency limit is full: 2 of 2 backups running "
                     "(--concurrent-backups=2); its namespaces overlap backup b1 (InProgress)");
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#2, limit 2 full, overlaps b1");
    ck_assert(a.queue.start_known); /* the second slot to free (q3 takes the first): b2's end */
    ck_assert_double_eq(a.queue.start, e2.eta_end);

    answer_run(&c, r5, &a);
    ck_assert_int_eq(a.queue.position, 3);
    ck_assert_ptr_eq(a.queue.overlap, r3);
    ck_assert(!a.queue.start_known);
    ck_assert_str_eq(a.queue.start_why,
                     "the overlapping backup has not started: its length is unknown");

    /* b1 done: one slot free; q3 is not held by the limit any more (nothing holds it) */
    b1.phase = (char *)"Completed";
    b1.phase_id = VL_PH_COMPLETED;
    b1.completed = T0 + 100;
    model_upsert_run(m, &b1, 100, T0 + 100);
    c = at(m, f.h, 100);
    answer_run(&c, r3, &a);
    ck_assert_int_eq(a.queue.why, QUEUE_WHY_NONE);
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue),
                     "nothing Velero waits on holds it: 1 of 2 running, no overlap");
    ck_assert(a.queue.start_known);
    ck_assert_double_eq(a.queue.start, T0 + 100); /* now */
    answer_run(&c, r4, &a);                       /* q3 ahead, and no overlap with b1 any more */
    ck_assert_int_eq(a.queue.why, QUEUE_WHY_AHEAD);
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue), "1 earlier backup is queued ahead");
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#2, 1 queued ahead");
    answer_run(&c, r3, &a);
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#1, nothing holds it");
    /* the health screen's queue line: 3 waiting, the oldest q3 (created T0+10) */
    queue_summary qs;
    queue_summarise(m, T0 + 100, &qs);
    ck_assert(qs.known);
    ck_assert_uint_eq(qs.n_waiting, 3);
    ck_assert_uint_eq(qs.n_running, 1);
    ck_assert_ptr_eq(qs.oldest, r3);
    ck_assert_ptr_null(qs.dead_head);
    ck_assert_str_eq(queue_summary_line(&qs, T0 + 100, buf, sizeof buf),
                     "3 waiting (oldest q3, 1m30s), 1 in progress");
    queue_summary_unread(&qs, "forbidden");
    ck_assert_str_eq(queue_summary_line(&qs, T0 + 100, buf, sizeof buf),
                     "unknown: cannot read backups: forbidden");
    fx_free(&f);
    model_free(m);
}
END_TEST

START_TEST(limit_unknown_says_why)
{
    model *m = model_new();
    vl_run b1, q;
    moving(m, &b1, "b1", ns_app1, 100, 60);
    model_run *r = waiting(m, &q, "q", "Queued", 1, ns_app2, 1, T0 + 10);
    char buf[512];
    run_answer a;
    /* the pods not read */
    fx f;
    fx_health(&f, m, NULL, 0);
    health_set_unread(f.h, HEALTH_IN_PODS, "forbidden");
    ans_ctx c = at(m, f.h, 60);
    answer_run(&c, r, &a);
    ck_assert(!a.queue.limit_known);
    ck_assert_str_eq(a.queue.limit_why, "the Velero server pod is not read: forbidden");
    ck_assert_int_eq(a.queue.why, QUEUE_WHY_UNKNOWN);
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#1, limit unknown");
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue),
                     "unknown: 1 running, the concurrency limit is unknown (the Velero server pod "
                     "is not read: forbidden)");
    ck_assert(!a.queue.start_known);
    ck_assert_str_eq(a.queue.start_why, "the concurrency limit is unknown");
    fx_free(&f);
    /* read, but no server pod */
    fx_health(&f, m, NULL, 1);
    c = at(m, f.h, 60);
    answer_run(&c, r, &a);
    ck_assert_str_eq(a.queue.limit_why, "no Velero server pod");
    fx_free(&f);
    /* a server without the flag: Velero's default, 1 */
    fx_health(&f, m, server_pod("\"server\""), 1);
    c = at(m, f.h, 60);
    answer_run(&c, r, &a);
    ck_assert(a.queue.limit_known && a.queue.limit == 1 && a.queue.limit_default);
    ck_assert_str_eq(queue_why_text(buf, sizeof buf, &a.queue),
                     "the concurrency limit is full: 1 of 1 backup running "
                     "(--concurrent-backups default 1)");
    ck_assert_str_eq(queue_why_short(buf, sizeof buf, &a.queue), "#1, limit 1 full");
    fx_free(&f);
    model_free(m);
}
END_TEST

START_TEST(namespaces_overlap)
{
    vl_run a, b;
    set_run(&a, "a", "Queued", NULL, 0); /* every namespace */
    set_run(&b, "b", "Queued", ns_app1, 1);
    ck_assert(queue_ns_overlap(&a, &b));
    char *ex[] = {"app1"};
    a.excluded_ns = ex;
    a.n_excluded_ns = 1;
    ck_assert(!queue_ns_overlap(&a, &b)); /* all but app1 */
    set_run(&a, "a", "Queued", ns_star, 1);
    ck_assert(queue_ns_overlap(&a, &b));
    set_run(&a, "a", "Queued", ns_app_glob, 1);
    ck_assert(queue_ns_overlap(&a, &b));
    set_run(&a, "a", "Queued", ns_app2, 1);
    ck_assert(!queue_ns_overlap(&a, &b));
    ck_assert(!queue_ns_overlap(&b, &a));
}
END_TEST

START_TEST(dead_queue_and_ready_to_start_stuck)
{
    model *m = model_new();
    vl_run done, q1, q2;
    set_run(&done, "done", "Completed", ns_app1, 1);
    done.meta.created = T0 - 2000;
    done.started = T0 - 1900;
    done.completed = T0 - 900;
    model_upsert_run(m, &done, 0, T0);
    model_run *r1 = waiting(m, &q1, "q1", "Queued", 1, ns_app1, 1, T0 - 400);
    model_run *r2 = waiting(m, &q2, "q2", "Queued", 2, ns_app2, 1, T0 - 100);
    const model_run *head;
    double since;
    ck_assert(queue_dead(m, r2, T0, &head, &since));
    ck_assert_ptr_eq(head, r1);
    ck_assert_double_eq(since, T0 - 400);
    ck_assert(!queue_dead(m, r2, T0 - 150, &head, &since)); /* 4m10s: not yet */
    /* a run in flight: not dead */
    vl_run b;
    set_run(&b, "b", "InProgress", ns_app2, 1);
    b.started = T0 - 10;
    model_upsert_run(m, &b, 0, T0);
    ck_assert(!queue_dead(m, r1, T0, &head, &since));
    model_remove_run(m, VL_BACKUP, "b");
    /* the diagnosis, as every surface shows it */
    diag d[DIAG_MAX];
    size_t n = diag_run(&(diag_ctx){m, NULL, 0, T0}, r2, NULL, d, DIAG_MAX);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(d[0].code, "queue-dead");
    ck_assert_str_eq(d[0].message, "the backup queue is dead: nothing in progress for 6m40s "
                                   "while q1 Queued waits at its head");
    /* ReadyToStart for 6 minutes */
    q1.phase = (char *)"ReadyToStart";
    q1.phase_id = VL_PH_READY_TO_START;
    q1.queue_position = 0;
    q1.meta.status_time = T0 - 360;
    model_upsert_run(m, &q1, 0, T0);
    double s2;
    ck_assert(queue_ready_stuck(r1, T0, &s2));
    ck_assert_double_eq(s2, T0 - 360);
    n = diag_run(&(diag_ctx){m, NULL, 0, T0}, r1, NULL, d, DIAG_MAX);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(d[0].message, "the backup queue is dead: nothing in progress for 6m40s "
                                   "while this backup ReadyToStart waits at its head");
    ck_assert_str_eq(d[1].code, "ready-to-start-stuck");
    /* the health screen's line: the dead queue and the stuck ReadyToStart, said once each */
    queue_summary qs;
    char buf[512];
    queue_summarise(m, T0, &qs);
    ck_assert_str_eq(queue_summary_line(&qs, T0, buf, sizeof buf),
                     "2 waiting (oldest q1, 6m40s), 0 in progress; dead: nothing in progress for "
                     "6m40s while q1 (ReadyToStart) waits at its head; ReadyToStart stuck: q1 for "
                     "6m00s");
    ck_assert_str_eq(d[1].message,
                     "ReadyToStart for 6m00s: the backup controller has not started it");
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("queue");
    TCase *tc = tcase_create("queue");
    tcase_add_test(tc, server_args_give_the_limit);
    tcase_add_test(tc, queue_of_five_with_limit_two);
    tcase_add_test(tc, limit_unknown_says_why);
    tcase_add_test(tc, namespaces_overlap);
    tcase_add_test(tc, dead_queue_and_ready_to_start_stuck);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
