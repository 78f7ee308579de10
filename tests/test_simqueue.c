/* test_simqueue.c: the sim's backup queue (velero.concurrent_backups, scenario queue.yaml) is
 * Velero's: the server pod's args carry --concurrent-backups=2; second by second, at most 2
 * backups are in flight and never two whose namespaces overlap; the Queued ones are numbered
 * 1..n in creation order, renumbered as one leaves; each starts at the first moment the queue
 * allows (q1 when running-a ends, q2 and q3 only after q1); all of them end Completed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

#define SCN(f) FIXTURES_DIR "/scenarios/" f
#define NB     7

static const char *names[NB] = {"running-a", "running-b", "q1", "q2", "q3", "q4", "q5"};

static int in_flight(const char *ph)
{
    return !strcmp(ph, "InProgress") || !strncmp(ph, "WaitingForPluginOperations", 26) ||
           !strncmp(ph, "Finalizing", 10);
}

static int overlap(const cJSON *a, const cJSON *b)
{
    const cJSON *x, *y;
    cJSON_ArrayForEach(x, a)
        cJSON_ArrayForEach(y, b) if (!strcmp(x->valuestring, y->valuestring)) return 1;
    return 0;
}

START_TEST(queue_of_five_with_limit_two)
{
    simstore *s = simstore_new(100000);
    simctl_opts o = {.scenario = SCN("queue.yaml"),
                     .speed = 1,
                     .seed = 7,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1,
                     .manual = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    double e = simctl_epoch(c);
    simctl_advance(c, e);
    /* the server's args */
    cJSON *pods = simstore_list(s, "pods", "velero", "deploy=velero", NULL, NULL, NULL, NULL);
    cJSON *args = cJSON_GetObjectItem(
        cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(pods, 0), "spec"),
                                "containers"),
            0),
        "args");
    char *as = cJSON_PrintUnformatted(args);
    ck_assert_str_eq(as, "[\"server\",\"--concurrent-backups=2\"]");
    free(as);
    cJSON_Delete(pods);

    double started[NB] = {0}, ended[NB] = {0};
    int max_flight = 0;
    for (double t = e; t <= e + 1500; t += 1) {
        simctl_advance(c, t);
        cJSON *b[NB];
        const char *ph[NB];
        for (int i = 0; i < NB; i++) {
            b[i] = simstore_get(s, "backups", "velero", names[i]);
            ck_assert_ptr_nonnull(b[i]);
            const char *p = cJSON_GetStringValue(
                cJSON_GetObjectItem(cJSON_GetObjectItem(b[i], "status"), "phase"));
            ph[i] = p ? p : "New";
            if (in_flight(ph[i]) && !started[i]) started[i] = t;
            if (!strcmp(ph[i], "Completed") && !ended[i]) ended[i] = t;
        }
        int n = 0, queued = 0;
        for (int i = 0; i < NB; i++) {
            if (in_flight(ph[i])) {
                n++;
                for (int j = i + 1; j < NB; j++)
                    ck_assert_msg(
                        !in_flight(ph[j]) ||
                            !overlap(cJSON_GetObjectItem(cJSON_GetObjectItem(b[i], "spec"),
                                                         "includedNamespaces"),
                                     cJSON_GetObjectItem(cJSON_GetObjectItem(b[j], "spec"),
                                                         "includedNamespaces")),
                        "%s and %s overlap in flight at +%.0f", names[i], names[j], t - e);
            }
            if (!strcmp(ph[i], "Queued")) { /* numbered 1..n in creation order */
                queued++;
                double pos = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(b[i], "status"), "queuePosition"));
                ck_assert_msg(pos == queued, "%s at +%.0f: queuePosition %.0f, want %d", names[i],
                              t - e, pos, queued);
            }
        }
        if (n > max_flight) max_flight = n;
        ck_assert_msg(n <= 2, "%d in flight at +%.0f", n, t - e);
        if (t == e) ck_assert_int_eq(queued, 5); /* the truth at the start */
        for (int i = 0; i < NB; i++) cJSON_Delete(b[i]);
    }
    ck_assert_int_eq(max_flight, 2);
    for (int i = 0; i < NB; i++) ck_assert_msg(ended[i] > 0, "%s never Completed", names[i]);
    /* q1 takes running-a's slot; q2 (shop) and q3 (web) wait for q1 to end */
    ck_assert_double_le(started[2], ended[0] + 2);
    ck_assert_double_ge(started[2], ended[0]);
    ck_assert_double_ge(started[3], ended[2]);
    ck_assert_double_ge(started[4], ended[2]);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simqueue");
    TCase *tc = tcase_create("simqueue");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, queue_of_five_with_limit_two);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
