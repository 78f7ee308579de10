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

/* The model keeps a record per volume and per run for the whole history (50 000 and 10 000 in
 * bench_firstframe): no padding in them. A volume's record with its index node (two pointers'
 * worth) is one 64-byte malloc chunk, not 80; a run's is 16 bytes less, and 48 less again since
 * its flags, alert memory and counts went to 8 and 32 bits beside each other (248 -> 200 bytes: a
 * fleet of 300 contexts holds 60 000). */
START_TEST(records_carry_no_padding)
{
    ck_assert_uint_le(sizeof(model_volume), 40);
    ck_assert_uint_le(sizeof(model_run), 200);
}
END_TEST

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

/* The joins kept as volumes and runs come (a volume joined at once, a run taking its volumes
 * from the orphans) are the joins built from scratch: 4 000 random steps of runs and volumes
 * coming, going, relabelled and re-created (short and long names, uids or none), checked every
 * 20 steps against a model given the same objects at once. */
static unsigned long lcg = 12345;
static unsigned rnd(unsigned n)
{
    lcg = lcg * 6364136223846793005ul + 1442695040888963407ul;
    return (unsigned)((lcg >> 33) % n);
}

#define NRUN 6
#define NVOL 40
static const char *run_names[NRUN] = {"a", "b", N64, N200, "c", L64};
static const char *labels[] = {"a", "b", L64, N64, L200, "c", "zz"};
static const char *uids[] = {NULL, "u1", "u2"};

static void names_of(const model *m, const model_run *r, char *out, size_t n)
{
    model_volume *v[NVOL];
    size_t k = model_run_volumes(m, r, v, NVOL);
    out[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        strncat(out, v[i]->name, n - strlen(out) - 1);
        strncat(out, ",", n - strlen(out) - 1);
    }
}

START_TEST(joins_as_they_come_equal_joins_built_again)
{
    vl_run runs[2][NRUN];
    int run_in[2][NRUN] = {{0}};
    vl_volume vols[NVOL];
    int vol_in[NVOL] = {0};
    char vnames[NVOL][8];
    model *m = model_new();
    int checks = 0, orphans_seen = 0;
    for (int step = 0; step < 4000; step++) {
        unsigned op = rnd(10);
        if (op < 2) { /* a run comes, or is written again, perhaps re-created with another uid */
            int k = (int)rnd(2), i = (int)rnd(NRUN);
            if (!run_in[k][i] || rnd(4) == 0) {
                run_init(&runs[k][i], k ? VL_RESTORE : VL_BACKUP, run_names[i], uids[rnd(3)]);
                run_in[k][i] = 1;
            }
            model_upsert_run(m, &runs[k][i], 1.0, 0);
        } else if (op == 2) {
            int k = (int)rnd(2), i = (int)rnd(NRUN);
            model_remove_run(m, k ? VL_RESTORE : VL_BACKUP, run_names[i]);
            run_in[k][i] = 0;
        } else if (op < 6) { /* a volume comes, is written again, or is relabelled */
            int j = (int)rnd(NVOL);
            vl_volume *v = &vols[j];
            if (!vol_in[j] || rnd(3) == 0) {
                static const vl_kind vk[] = {VL_PVB, VL_DU, VL_PVR, VL_DD};
                /* one object per name here: another kind under it is another object */
                if (vol_in[j]) model_remove_volume(m, v->kind, vnames[j]);
                snprintf(vnames[j], sizeof vnames[j], "v%d", j);
                memset(v, 0, sizeof *v);
                v->kind = vk[rnd(4)];
                v->meta.name = vnames[j];
                v->run_name = rnd(8) ? (char *)labels[rnd(7)] : NULL;
                v->run_uid_hash = vl_uid_hash(uids[rnd(3)]);
                v->phase_id = VL_PH_IN_PROGRESS;
                v->bytes_total = 1000;
                vol_in[j] = 1;
            } else if (rnd(2)) { /* relabelled in place */
                v->run_name = (char *)labels[rnd(7)];
            }
            model_upsert_volume(m, v, 1.0);
        } else if (op == 6) {
            int j = (int)rnd(NVOL);
            if (vol_in[j]) model_remove_volume(m, vols[j].kind, vnames[j]);
            vol_in[j] = 0;
        } else if (m->n_runs) { /* a screen asks: the joins are current again */
            model_run_volumes(m, m->runs[rnd((unsigned)m->n_runs)], NULL, 0);
        }
        orphans_seen |= m->n_orphans > 0;
        if (step % 20 != 19) continue;
        /* the same objects given at once to a model that joins them in one build */
        model *ref = model_new();
        for (size_t i = 0; i < m->n_runs; i++) model_upsert_run(ref, m->runs[i]->run, 1.0, 0);
        for (size_t j = 0; j < m->n_vols; j++) model_upsert_volume(ref, m->vols[j]->vol, 1.0);
        for (size_t i = 0; i < m->n_runs; i++) {
            char got[512], want[512];
            names_of(m, m->runs[i], got, sizeof got);
            model_run *rr = model_find_run(ref, m->runs[i]->kind, m->runs[i]->name);
            ck_assert_ptr_nonnull(rr);
            names_of(ref, rr, want, sizeof want);
            ck_assert_msg(!strcmp(got, want), "step %d, run %s: joined [%s], built again [%s]",
                          step, m->runs[i]->name, got, want);
        }
        model_free(ref);
        checks++;
    }
    ck_assert_int_eq(checks, 200);
    ck_assert_int_eq(orphans_seen, 1); /* the orphans' path was taken */
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model_join");
    TCase *tc = tcase_create("join");
    tcase_add_test(tc, records_carry_no_padding);
    tcase_add_test(tc, valid_label_at_63_64_and_200_characters);
    tcase_add_test(tc, volumes_join_by_valid_label_never_by_raw_name);
    tcase_add_test(tc, volumes_join_by_uid_when_both_have_one);
    tcase_add_test(tc, decoded_volume_keeps_its_run_uid_label);
    tcase_add_test(tc, joins_as_they_come_equal_joins_built_again);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
