/* test_store.c: the object store keys by namespace/name, keeps decoded objects, tells listeners
 * about every change and reconciles deletions after a re-list. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/store.h"
#include "kubeclient/util.h"
#include "testutil.h"

typedef struct {
    char *name;
    int value;
} thing;

static int live_things;

static void *thing_decode(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    thing *t = xcalloc(1, sizeof *t);
    t->name = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name")));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec, "value");
    t->value = cJSON_IsNumber(v) ? v->valueint : 0;
    live_things++;
    return t;
}

static void thing_release(void *p)
{
    thing *t = p;
    free(t->name);
    free(t);
    live_things--;
}

static cJSON *mk(const char *ns, const char *name, int value)
{
    char buf[256];
    if (ns)
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\"},\"spec\":{\"value\":%d}}",
                 ns, name, value);
    else
        snprintf(buf, sizeof buf, "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"value\":%d}}", name,
                 value);
    return cJSON_Parse(buf);
}

static void upsert(kc_store *s, const char *ns, const char *name, int value)
{
    cJSON *o = mk(ns, name, value);
    kc_store_upsert(s, o);
    cJSON_Delete(o);
}

static void removeo(kc_store *s, const char *ns, const char *name, int value)
{
    cJSON *o = mk(ns, name, value);
    kc_store_remove(s, o);
    cJSON_Delete(o);
}

typedef struct {
    kc_buf log;
} recorder;

static void on_change(void *arg, kc_event_type type, const char *key, void *obj)
{
    recorder *r = arg;
    thing *t = obj;
    static const char *names[] = {"ADDED", "MODIFIED", "DELETED"};
    kc_buf_printf(&r->log, "%s %s=%d;", names[type], key, t ? t->value : -1);
}

START_TEST(callbacks_for_add_update_delete)
{
    live_things = 0;
    recorder r = {0}, r2 = {0};
    kc_store *s = kc_store_new(thing_decode, thing_release);
    kc_store_on_change(s, on_change, &r);
    kc_store_on_change(s, on_change, &r2);
    upsert(s, "velero", "b1", 1);
    upsert(s, "velero", "b2", 2);
    upsert(s, NULL, "cluster-scoped", 3);
    upsert(s, "velero", "b1", 10);
    ck_assert_uint_eq(kc_store_len(s), 3);
    thing *t = kc_store_get(s, "velero", "b1");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->value, 10);
    ck_assert_ptr_null(kc_store_get(s, "other", "b1"));
    ck_assert_ptr_null(kc_store_get(s, "velero", "b3"));
    t = kc_store_get(s, NULL, "cluster-scoped");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->value, 3);
    /* the DELETED listener sees the final state carried by the event */
    removeo(s, "velero", "b2", 22);
    removeo(s, "velero", "nope", 0); /* unknown: nothing happens */
    ck_assert_uint_eq(kc_store_len(s), 2);
    ck_assert_ptr_null(kc_store_get(s, "velero", "b2"));
    ck_assert_str_eq(kc_buf_cstr(&r.log),
                     "ADDED velero/b1=1;ADDED velero/b2=2;ADDED cluster-scoped=3;"
                     "MODIFIED velero/b1=10;DELETED velero/b2=22;");
    ck_assert_str_eq(kc_buf_cstr(&r2.log), kc_buf_cstr(&r.log));
    ck_assert_int_eq(live_things, 2);
    kc_store_free(s);
    ck_assert_int_eq(live_things, 0);
    kc_buf_free(&r.log);
    kc_buf_free(&r2.log);
}
END_TEST

/* Holds things whose value is at least *min, the others not at all. */
static void *decode_at_least(void *arg, const cJSON *obj)
{
    thing *t = thing_decode(obj);
    if (t->value >= *(int *)arg) return t;
    thing_release(t);
    return KC_STORE_SKIP;
}

START_TEST(a_decoder_with_an_argument_may_hold_nothing)
{
    live_things = 0;
    recorder r = {0};
    int min = 10;
    kc_store *s = kc_store_new(thing_decode, thing_release);
    kc_store_set_decoder(s, decode_at_least, &min);
    kc_store_on_change(s, on_change, &r);
    upsert(s, "velero", "small", 1);  /* not held, not even its key */
    upsert(s, "velero", "big", 20);   /* held */
    upsert(s, "velero", "small", 11); /* decoded again: held now */
    ck_assert_uint_eq(kc_store_len(s), 2);
    upsert(s, "velero", "big", 2);    /* no longer held: deleted, with its last held state */
    removeo(s, "velero", "small", 3); /* its final state is skipped: the held one is told */
    removeo(s, "velero", "never", 0);
    ck_assert_uint_eq(kc_store_len(s), 0);
    ck_assert_str_eq(kc_buf_cstr(&r.log), "ADDED velero/big=20;ADDED velero/small=11;"
                                          "DELETED velero/big=20;DELETED velero/small=11;");
    ck_assert_int_eq(live_things, 0);
    kc_store_set_decoder(s, NULL, NULL); /* the store's own again */
    upsert(s, "velero", "small", 1);
    ck_assert_uint_eq(kc_store_len(s), 1);
    kc_store_free(s);
    ck_assert_int_eq(live_things, 0);
    kc_buf_free(&r.log);
}
END_TEST

START_TEST(replace_deletes_what_the_list_no_longer_has)
{
    live_things = 0;
    recorder r = {0};
    kc_store *s = kc_store_new(thing_decode, thing_release);
    upsert(s, "velero", "keep", 1);
    upsert(s, "velero", "gone", 2);
    upsert(s, "velero", "gone-too", 3);
    kc_store_on_change(s, on_change, &r);
    kc_store_replace_begin(s);
    upsert(s, "velero", "keep", 5);
    upsert(s, "velero", "new", 6);
    kc_store_replace_end(s);
    ck_assert_uint_eq(kc_store_len(s), 2);
    ck_assert_ptr_nonnull(kc_store_get(s, "velero", "keep"));
    ck_assert_ptr_nonnull(kc_store_get(s, "velero", "new"));
    ck_assert_ptr_null(kc_store_get(s, "velero", "gone"));
    ck_assert_ptr_null(kc_store_get(s, "velero", "gone-too"));
    /* deletions come after the upserts, in bucket order: compare as a set */
    const char *log = kc_buf_cstr(&r.log);
    ck_assert_ptr_nonnull(strstr(log, "MODIFIED velero/keep=5;ADDED velero/new=6;"));
    ck_assert_ptr_nonnull(strstr(log, "DELETED velero/gone=2;"));
    ck_assert_ptr_nonnull(strstr(log, "DELETED velero/gone-too=3;"));
    ck_assert_uint_eq(strlen(log), strlen("MODIFIED velero/keep=5;ADDED velero/new=6;"
                                          "DELETED velero/gone=2;DELETED velero/gone-too=3;"));
    /* an interrupted replace (list failed half way) followed by a full one */
    kc_store_replace_begin(s);
    upsert(s, "velero", "keep", 7);
    kc_store_replace_begin(s);
    upsert(s, "velero", "new", 8);
    kc_store_replace_end(s);
    ck_assert_uint_eq(kc_store_len(s), 1);
    ck_assert_ptr_nonnull(kc_store_get(s, "velero", "new"));
    ck_assert_int_eq(live_things, 1);
    kc_store_free(s);
    ck_assert_int_eq(live_things, 0);
    kc_buf_free(&r.log);
}
END_TEST

static void count_fn(void *arg, const char *key, void *obj)
{
    (void)key;
    (void)obj;
    (*(size_t *)arg)++;
}

START_TEST(many_objects_grow_the_table)
{
    kc_store *s = kc_store_new(NULL, NULL); /* keys only */
    char name[32];
    for (int i = 0; i < 60000; i++) {
        snprintf(name, sizeof name, "pvb-%d", i);
        cJSON *o = mk(i % 2 ? "velero" : "other", name, i);
        kc_store_upsert(s, o);
        cJSON_Delete(o);
    }
    ck_assert_uint_eq(kc_store_len(s), 60000);
    size_t n = 0;
    kc_store_foreach(s, count_fn, &n);
    ck_assert_uint_eq(n, 60000);
    for (int i = 0; i < 60000; i += 2) {
        snprintf(name, sizeof name, "pvb-%d", i);
        cJSON *o = mk("other", name, i);
        kc_store_remove(s, o);
        cJSON_Delete(o);
    }
    ck_assert_uint_eq(kc_store_len(s), 30000);
    n = 0;
    kc_store_foreach(s, count_fn, &n);
    ck_assert_uint_eq(n, 30000);
    kc_store_free(s);
    kc_store_free(NULL);
}
END_TEST

START_TEST(objects_without_a_name_are_ignored)
{
    kc_store *s = kc_store_new(thing_decode, thing_release);
    cJSON *o = cJSON_Parse("{\"metadata\":{\"namespace\":\"velero\"}}");
    kc_store_upsert(s, o);
    kc_store_remove(s, o);
    cJSON_Delete(o);
    ck_assert_uint_eq(kc_store_len(s), 0);
    kc_store_free(s);
}
END_TEST

/* keeps values >= the threshold it points at */
static int keep_big(void *arg, const cJSON *obj)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "value");
    return cJSON_IsNumber(v) && v->valueint >= *(int *)arg;
}

/* A filter drops the upserts it refuses (no listener hears of them); a refused object already
 * there counts as listed, so a re-list keeps it; unset, everything passes again. */
START_TEST(a_filter_drops_what_it_refuses)
{
    live_things = 0;
    kc_store *s = kc_store_new(thing_decode, thing_release);
    int min = 10;
    recorder r = {0};
    kc_store_on_change(s, on_change, &r);
    upsert(s, "ns", "a", 5);
    kc_store_set_filter(s, keep_big, &min);
    upsert(s, "ns", "a", 7); /* refused: a keeps 5 */
    ck_assert_int_eq(((thing *)kc_store_get(s, "ns", "a"))->value, 5);
    upsert(s, "ns", "b", 3); /* refused: never added */
    ck_assert_ptr_null(kc_store_get(s, "ns", "b"));
    ck_assert_uint_eq(kc_store_dropped(s), 2);
    ck_assert_str_eq(kc_buf_cstr(&r.log), "ADDED ns/a=5;");
    kc_store_replace_begin(s);
    upsert(s, "ns", "a", 8); /* refused, but listed */
    kc_store_replace_end(s);
    ck_assert_ptr_nonnull(kc_store_get(s, "ns", "a"));
    kc_store_set_filter(s, NULL, NULL);
    upsert(s, "ns", "a", 9);
    ck_assert_int_eq(((thing *)kc_store_get(s, "ns", "a"))->value, 9);
    kc_store_free(s);
    kc_buf_free(&r.log);
    ck_assert_int_eq(live_things, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");
    tcase_add_test(tc, callbacks_for_add_update_delete);
    tcase_add_test(tc, replace_deletes_what_the_list_no_longer_has);
    tcase_add_test(tc, many_objects_grow_the_table);
    tcase_add_test(tc, objects_without_a_name_are_ignored);
    tcase_add_test(tc, a_filter_drops_what_it_refuses);
    tcase_add_test(tc, a_decoder_with_an_argument_may_hold_nothing);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
