/* test_model_join.c: volumes join their run by the run-uid label where present, else by the
 * run-name label, whose value is Velero's label.GetValidName(run name) (pkg/label/label.go at
 * v1.18.1): the name up to 63 characters, else its first 57 characters + the first 6 hex digits of
 * its sha256. Never by the raw name. */
#include <check.h>
#include <string.h>

#include "app.h"
#include "testutil.h"

/* 63, 64 and 200 characters. Expected label values computed independently with coreutils:
 *   echo -n "$N64" | sha256sum   -> bb8e9944c9fa...  (first 6: bb8e99)
 *   echo -n "$N200" | sha256sum  -> bb7308f66037...  (first 6: bb7308)
 * and "${N:0:57}" for the kept prefix. */
#define N63  "nightly-cluster-wide-backup-of-the-production-namespaces-202401"
#define N64  "nightly-cluster-wide-backup-of-the-production-namespaces-2024010"
#define L64  "nightly-cluster-wide-backup-of-the-production-namespaces-bb8e99"
#define P200 "restore-of-a-very-long-scheduled-backup-name-"
#define N200 P200 P200 P200 P200 "restore-of-a-very-lo"
#define L200 "restore-of-a-very-long-scheduled-backup-name-restore-of-abb7308"

START_TEST(valid_label_at_63_64_and_200_characters)
{
    ck_assert_uint_eq(strlen(N63), 63);
    ck_assert_uint_eq(strlen(N64), 64);
    ck_assert_uint_eq(strlen(N200), 200);
    ck_assert_uint_eq(strlen(L64), 63);
    ck_assert_uint_eq(strlen(L200), 63);
    char buf[VL_LABEL_MAX + 1];
    ck_assert_ptr_eq(vl_valid_label(N63, buf), N63); /* 63: unchanged, the name itself */
    ck_assert_str_eq(vl_valid_label(N64, buf), L64);
    ck_assert_str_eq(vl_valid_label(N200, buf), L200);
    ck_assert_str_eq(vl_valid_label("", buf), "");
}
END_TEST

typedef struct fx {
    vl_run runs[4];
    vl_volume vols[8];
    size_t nv;
    model *m;
} fx;

static void run_init(vl_run *r, vl_kind kind, const char *name, const char *uid)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->meta.name = (char *)name;
    r->meta.uid = (char *)uid;
    r->phase = (char *)"InProgress";
    r->phase_id = VL_PH_IN_PROGRESS;
}

static vl_volume *vol_add(fx *f, vl_kind kind, const char *name, const char *label, const char *uid,
                          int64_t bytes)
{
    vl_volume *v = &f->vols[f->nv++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->meta.name = (char *)name;
    v->run_name = (char *)label;
    v->run_uid_hash = vl_uid_hash(uid);
    v->phase = (char *)"InProgress";
    v->phase_id = VL_PH_IN_PROGRESS;
    v->bytes_done = bytes;
    v->bytes_total = 1000;
    model_upsert_volume(f->m, v, 1.0);
    return v;
}

static size_t vols_of(const fx *f, vl_kind kind, const char *name)
{
    model_run *r = model_find_run(f->m, kind, name);
    ck_assert_ptr_nonnull(r);
    return model_run_volumes(f->m, r, NULL, 0);
}

static int64_t bytes_of(const fx *f, vl_kind kind, const char *name)
{
    return model_find_run(f->m, kind, name)->vols.bytes_done;
}

START_TEST(volumes_join_by_valid_label_never_by_raw_name)
{
    fx f = {0};
    f.m = model_new();
    run_init(&f.runs[0], VL_BACKUP, N63, NULL);
    run_init(&f.runs[1], VL_BACKUP, N64, NULL);
    run_init(&f.runs[2], VL_RESTORE, N200, NULL);
    for (int i = 0; i < 3; i++) model_upsert_run(f.m, &f.runs[i], 1.0, 0);
    ck_assert_str_eq(model_find_run(f.m, VL_BACKUP, N64)->label, L64);
    ck_assert_str_eq(model_find_run(f.m, VL_RESTORE, N200)->label, L200);

    vol_add(&f, VL_PVB, "a", N63, NULL, 1);
    vol_add(&f, VL_DU, "b", L64, NULL, 10);
    vol_add(&f, VL_PVB, "c", N64, NULL, 100);   /* the raw name: Velero never writes it */
    vol_add(&f, VL_PVR, "d", L200, NULL, 1000); /* a restore's PVR */
    vol_add(&f, VL_DD, "e", N200, NULL, 10000); /* raw again */
    vol_add(&f, VL_PVB, "f", L200, NULL, 7);    /* a backup volume names no restore */
    model_refresh_volumes(f.m);
    ck_assert_uint_eq(vols_of(&f, VL_BACKUP, N63), 1);
    ck_assert_int_eq(bytes_of(&f, VL_BACKUP, N63), 1);
    ck_assert_uint_eq(vols_of(&f, VL_BACKUP, N64), 1);
    ck_assert_int_eq(bytes_of(&f, VL_BACKUP, N64), 10);
    ck_assert_uint_eq(vols_of(&f, VL_RESTORE, N200), 1);
    ck_assert_int_eq(bytes_of(&f, VL_RESTORE, N200), 1000);
    model_run *r = model_find_run(f.m, VL_BACKUP, N64);
    model_volume *out[4];
    ck_assert_uint_eq(model_run_volumes(f.m, r, out, 4), 1);
    ck_assert_str_eq(out[0]->name, "b");

    /* removing a long-named run takes its alias out of the index; adding it back puts it in */
    model_remove_run(f.m, VL_BACKUP, N64);
    model_refresh_volumes(f.m);
    ck_assert_ptr_null(model_find_run(f.m, VL_BACKUP, N64));
    model_upsert_run(f.m, &f.runs[1], 2.0, 0);
    model_refresh_volumes(f.m);
    ck_assert_int_eq(bytes_of(&f, VL_BACKUP, N64), 10);
    model_free(f.m);
}
END_TEST

START_TEST(volumes_join_by_uid_when_both_have_one)
{
    fx f = {0};
    f.m = model_new();
    run_init(&f.runs[0], VL_BACKUP, N64, "uid-new");
    run_init(&f.runs[1], VL_BACKUP, "short", "uid-short");
    run_init(&f.runs[2], VL_RESTORE, "short", NULL); /* a run without uid: by label alone */
    for (int i = 0; i < 3; i++) model_upsert_run(f.m, &f.runs[i], 1.0, 0);
    vol_add(&f, VL_PVB, "old", L64, "uid-old", 1); /* of a deleted run of the same name */
    vol_add(&f, VL_DU, "new", L64, "uid-new", 10); /* this run's */
    vol_add(&f, VL_PVB, "nouid", L64, NULL, 100);  /* no uid label: by the name label */
    vol_add(&f, VL_PVB, "s1", "short", "uid-short", 1000);
    vol_add(&f, VL_PVB, "s2", "short", "uid-other", 10000);
    vol_add(&f, VL_PVR, "r1", "short", "uid-any", 5);
    model_refresh_volumes(f.m);
    ck_assert_uint_eq(vols_of(&f, VL_BACKUP, N64), 2);
    ck_assert_int_eq(bytes_of(&f, VL_BACKUP, N64), 110);
    ck_assert_uint_eq(vols_of(&f, VL_BACKUP, "short"), 1);
    ck_assert_int_eq(bytes_of(&f, VL_BACKUP, "short"), 1000);
    ck_assert_uint_eq(vols_of(&f, VL_RESTORE, "short"), 1);
    ck_assert_int_eq(bytes_of(&f, VL_RESTORE, "short"), 5);
    model_free(f.m);
}
END_TEST

START_TEST(decoded_volume_keeps_its_run_uid_label)
{
    const char *js = "{\"metadata\":{\"name\":\"x\",\"labels\":{\"velero.io/backup-name\":\"" L64
                     "\",\"velero.io/backup-uid\":\"u-1\",\"velero.io/restore-uid\":\"u-2\"}}}";
    cJSON *j = cJSON_Parse(js);
    vl_volume *v = vl_decode_pvb(j);
    ck_assert_str_eq(v->run_name, L64);
    ck_assert_uint_eq(v->run_uid_hash, vl_uid_hash("u-1"));
    ck_assert_uint_ne(v->run_uid_hash, vl_uid_hash("u-2"));
    vl_volume_free(v);
    v = vl_decode_pvr(j); /* a restore's volume: the restore uid */
    ck_assert_uint_eq(v->run_uid_hash, vl_uid_hash("u-2"));
    vl_volume_free(v);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"metadata\":{\"name\":\"y\",\"labels\":{\"velero.io/backup-name\":\"b\"}}}");
    v = vl_decode_du(j);
    ck_assert_uint_eq(v->run_uid_hash, 0);
    ck_assert_uint_eq(vl_uid_hash(""), 0);
    ck_assert_uint_eq(vl_uid_hash(NULL), 0);
    vl_volume_free(v);
    cJSON_Delete(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model_join");
    TCase *tc = tcase_create("join");
    tcase_add_test(tc, valid_label_at_63_64_and_200_characters);
    tcase_add_test(tc, volumes_join_by_valid_label_never_by_raw_name);
    tcase_add_test(tc, volumes_join_by_uid_when_both_have_one);
    tcase_add_test(tc, decoded_volume_keeps_its_run_uid_label);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
