/* test_readiness.c: restore readiness per schedule: the newest restorable backup (Completed or
 * PartiallyFailed, newer Failed ones skipped), its age against two intervals, its location's
 * availability, the last completed restore from the schedule (by spec.backupName or
 * spec.scheduleName), and unknown -- never none -- when a list cannot be read. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "kubeclient/util.h"
#include "readiness.h"
#include "testutil.h"

#define T_NOW 1780308000.0 /* 2026-06-01T10:00:00Z */
#define DAY   86400.0

static void put(kc_store *s, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    kc_store_upsert(s, o);
    cJSON_Delete(o);
}

static vl_run run(vl_kind k, const char *name, const char *sched, const char *phase, vl_phase id,
                  double started)
{
    vl_run r = {0};
    r.kind = k;
    r.meta.name = (char *)name;
    r.schedule = (char *)sched;
    r.phase = (char *)phase;
    r.phase_id = id;
    r.started = started;
    r.completed = started + 600;
    r.storage_location = k == VL_BACKUP ? "default" : NULL;
    return r;
}

typedef struct fx {
    kc_store *sch, *bsl;
    model *m;
    vl_run r[8];
} fx;

/* nightly (daily at 01:00): Completed 3 days ago, then two Failed; restored once 1 day ago from
 * that backup by name. weekly (@every 168h): PartiallyFailed with 3 errors 1 day ago on the
 * Unavailable "offsite", restored 2 hours ago by schedule name. hourly: paused, nothing. */
static void fx_init(fx *f)
{
    f->sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    f->bsl = kc_store_new(vl_decode_bsl, vl_release_bsl);
    put(f->sch,
        "{\"metadata\":{\"name\":\"nightly\",\"namespace\":\"velero\",\"creationTimestamp\":"
        "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"0 1 * * *\"}}");
    put(f->sch, "{\"metadata\":{\"name\":\"weekly\",\"namespace\":\"velero\",\"creationTimestamp\":"
                "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 168h\"}}");
    put(f->sch, "{\"metadata\":{\"name\":\"hourly\",\"namespace\":\"velero\",\"creationTimestamp\":"
                "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 1h\",\"paused\":true}}");
    put(f->bsl, "{\"metadata\":{\"name\":\"default\",\"namespace\":\"velero\"},\"status\":{"
                "\"phase\":\"Available\"}}");
    put(f->bsl, "{\"metadata\":{\"name\":\"offsite\",\"namespace\":\"velero\"},\"status\":{"
                "\"phase\":\"Unavailable\"}}");
    f->m = model_new();
    f->r[0] = run(VL_BACKUP, "nightly-20260529010000", "nightly", "Completed", VL_PH_COMPLETED,
                  T_NOW - 3 * DAY - 9 * 3600);
    f->r[1] = run(VL_BACKUP, "nightly-20260531010000", "nightly", "Failed", VL_PH_FAILED,
                  T_NOW - DAY - 9 * 3600);
    f->r[2] = run(VL_BACKUP, "nightly-20260601010000", "nightly", "Failed", VL_PH_FAILED,
                  T_NOW - 9 * 3600);
    f->r[3] = run(VL_BACKUP, "weekly-1", "weekly", "PartiallyFailed", VL_PH_PARTIALLY_FAILED,
                  T_NOW - DAY);
    f->r[3].errors = 3;
    f->r[3].storage_location = "offsite";
    f->r[4] = run(VL_RESTORE, "r-nightly", NULL, "Completed", VL_PH_COMPLETED, T_NOW - DAY - 600);
    f->r[4].backup_name = "nightly-20260529010000";
    f->r[5] =
        run(VL_RESTORE, "r-weekly", "weekly", "Completed", VL_PH_COMPLETED, T_NOW - 7200 - 600);
    /* a failed restore of nightly's backup, newer: not a completed restore */
    f->r[6] = run(VL_RESTORE, "r-nightly-2", NULL, "Failed", VL_PH_FAILED, T_NOW - 3600);
    f->r[6].backup_name = "nightly-20260529010000";
    for (int i = 0; i < 7; i++) model_upsert_run(f->m, &f->r[i], 1, T_NOW);
}

static void fx_free(fx *f)
{
    model_free(f->m);
    kc_store_free(f->sch);
    kc_store_free(f->bsl);
}

START_TEST(newest_restorable_backup_its_age_location_and_last_restore)
{
    fx f;
    fx_init(&f);
    health *h = health_build(f.m, f.sch, f.bsl, NULL, NULL, 1, T_NOW);
    readiness *r = ready_build(h, f.m, NULL);
    ck_assert_uint_eq(r->n, 3);
    const ready_schedule *ni = ready_find(r, "nightly"), *we = ready_find(r, "weekly"),
                         *ho = ready_find(r, "hourly");
    ck_assert_ptr_eq(ni->backup, &f.r[0]); /* the two newer ones Failed */
    ck_assert_double_eq(ni->age, 3 * DAY + 9 * 3600);
    ck_assert_double_eq(ni->interval, DAY);
    ck_assert_int_eq(ni->stale, 1);
    ck_assert_int_eq(ni->bsl, RDY_YES);
    ck_assert_ptr_eq(ni->restore, &f.r[4]);
    ck_assert_double_eq(ni->last_restore, T_NOW - DAY);
    ck_assert_ptr_eq(we->backup, &f.r[3]);
    ck_assert_double_eq(we->age, DAY);
    ck_assert_int_eq(we->stale, 0);
    ck_assert_int_eq(we->bsl, RDY_NO);
    ck_assert_str_eq(we->bsl_why, "Unavailable");
    ck_assert_ptr_eq(we->restore, &f.r[5]);
    ck_assert_ptr_null(ho->backup);
    ck_assert_int_eq(ho->stale, 0); /* paused: no finding */
    ck_assert_int_eq(r->n_stale, 1);
    char buf[512];
    ck_assert_str_eq(ready_line(r, ni, buf, sizeof buf),
                     "restorable: nightly-20260529010000 (3d09h ago, Completed), older than 2 "
                     "intervals (1d00h), BSL default Available, last restore 1d00h ago");
    ck_assert_str_eq(ready_line(r, we, buf, sizeof buf),
                     "restorable: weekly-1 (1d00h ago, PartiallyFailed, 3 errors), BSL offsite "
                     "Unavailable, last restore 2h00m ago");
    ck_assert_str_eq(ready_line(r, ho, buf, sizeof buf), "restorable: none, no restore found");

    /* the health picture carries it: a finding needs attention, said in its summary */
    h->ready = r;
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_ATTENTION);
    ck_assert_ptr_nonnull(strstr(buf, "  nightly: newest restorable 3d09h old"));
    health_free(h);
    fx_free(&f);
}
END_TEST

START_TEST(a_schedule_with_nothing_restorable_is_a_finding_once_two_intervals_passed)
{
    kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    put(sch, "{\"metadata\":{\"name\":\"old\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-05-29T09:00:00Z\"},\"spec\":{\"schedule\":\"@every 24h\"}}");
    put(sch, "{\"metadata\":{\"name\":\"young\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-05-31T09:00:00Z\"},\"spec\":{\"schedule\":\"@every 24h\"}}");
    model *m = model_new();
    health *h = health_build(m, sch, NULL, NULL, NULL, 1, T_NOW);
    h->ready = ready_build(h, m, "");
    ck_assert_int_eq(ready_find(h->ready, "old")->stale, 1);   /* 3d01h old */
    ck_assert_int_eq(ready_find(h->ready, "young")->stale, 0); /* 1d01h old */
    char buf[512];
    health_judge(h, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "  old: nothing restorable"));
    ck_assert_ptr_null(strstr(buf, "young"));
    health_free(h);
    model_free(m);
    kc_store_free(sch);
}
END_TEST

START_TEST(unread_lists_make_it_unknown_not_none)
{
    fx f;
    fx_init(&f);
    health *h = health_build(f.m, f.sch, f.bsl, NULL, NULL, 1, T_NOW);
    health_set_unread(h, HEALTH_IN_BSLS, "forbidden");
    readiness *r = ready_build(h, f.m, "forbidden");
    const ready_schedule *ni = ready_find(r, "nightly");
    ck_assert_int_eq(ni->bsl, RDY_UNKNOWN);
    ck_assert_int_eq(ni->restores_known, 0);
    ck_assert_ptr_null(ni->restore);
    char buf[512];
    ck_assert_str_eq(ready_line(r, ni, buf, sizeof buf),
                     "restorable: nightly-20260529010000 (3d09h ago, Completed), older than 2 "
                     "intervals (1d00h), BSL default unknown (cannot read "
                     "backupstoragelocations: forbidden), last restore unknown (cannot read "
                     "restores: forbidden)");
    ready_free(r);
    health_free(h);

    /* backups not read: no backup, no age, no finding -- unknown */
    h = health_build(f.m, f.sch, f.bsl, NULL, NULL, 1, T_NOW);
    health_set_unread(h, HEALTH_IN_BACKUPS, "forbidden");
    h->ready = ready_build(h, f.m, NULL);
    ni = ready_find(h->ready, "nightly");
    ck_assert_int_eq(ni->known, 0);
    ck_assert_ptr_null(ni->backup);
    ck_assert_double_eq(ni->age, -1);
    ck_assert_int_eq(ni->stale, 0);
    ck_assert_int_eq(h->ready->n_stale, 0);
    ck_assert_str_eq(ready_line(h->ready, ni, buf, sizeof buf),
                     "restorable: unknown (cannot read backups: forbidden), last restore 1d00h "
                     "ago");
    health_free(h);
    fx_free(&f);

    /* backups not read and so not in the model: a restore naming only its backup cannot be
     * told to be the schedule's -- the last restore is unknown, not "no restore found" */
    kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    put(sch, "{\"metadata\":{\"name\":\"nightly\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"0 1 * * *\"}}");
    model *m = model_new();
    vl_run rr = run(VL_RESTORE, "r", NULL, "Completed", VL_PH_COMPLETED, T_NOW - DAY);
    rr.backup_name = "nightly-20260529010000";
    model_upsert_run(m, &rr, 1, T_NOW);
    h = health_build(m, sch, NULL, NULL, NULL, 1, T_NOW);
    health_set_unread(h, HEALTH_IN_BACKUPS, "forbidden");
    h->ready = ready_build(h, m, NULL);
    ni = ready_find(h->ready, "nightly");
    ck_assert_int_eq(ni->restores_known, 0);
    ck_assert_str_eq(ready_line(h->ready, ni, buf, sizeof buf),
                     "restorable: unknown (cannot read backups: forbidden), last restore unknown "
                     "(cannot read backups: forbidden)");
    health_free(h);
    model_free(m);
    kc_store_free(sch);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("readiness");
    TCase *tc = tcase_create("readiness");
    tcase_add_test(tc, newest_restorable_backup_its_age_location_and_last_restore);
    tcase_add_test(tc, a_schedule_with_nothing_restorable_is_a_finding_once_two_intervals_passed);
    tcase_add_test(tc, unread_lists_make_it_unknown_not_none);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
