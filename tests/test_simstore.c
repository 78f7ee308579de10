/* test_simstore.c: the sim's object store: CRUD with Kubernetes errors, selectors, pagination,
 * watch history (resume, 410), merge patch semantics and the pod log. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simstore.h"
#include "testutil.h"

static cJSON *mk(const char *name, const char *labels_json)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    if (name) cJSON_AddStringToObject(md, "name", name);
    if (labels_json) cJSON_AddItemToObject(md, "labels", cJSON_Parse(labels_json));
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddStringToObject(spec, "storageLocation", "default");
    return o;
}

static const char *mds(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), k)->valuestring;
}

static double mdn(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), k)->valuedouble;
}

START_TEST(create_get_and_already_exists)
{
    simstore *s = simstore_new(100);
    int st = 0;
    char *msg = NULL;
    uint64_t rv0 = simstore_rv(s);
    cJSON *o = simstore_create(s, "backups", "velero", mk("b1", NULL), &st, &msg);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(st, 201);
    ck_assert_str_eq(cJSON_GetObjectItem(o, "kind")->valuestring, "Backup");
    ck_assert_str_eq(cJSON_GetObjectItem(o, "apiVersion")->valuestring, "velero.io/v1");
    ck_assert_str_eq(mds(o, "namespace"), "velero");
    ck_assert_int_eq(strlen(mds(o, "uid")), 36);
    ck_assert_double_eq(mdn(o, "generation"), 1);
    ck_assert_uint_eq(strtoull(mds(o, "resourceVersion"), NULL, 10), rv0 + 1);
    cJSON_Delete(o);
    o = simstore_get(s, "backups", "velero", "b1");
    ck_assert_ptr_nonnull(o);
    cJSON_Delete(o);
    ck_assert_ptr_null(simstore_get(s, "backups", "other", "b1"));
    ck_assert_ptr_null(simstore_create(s, "backups", "velero", mk("b1", NULL), &st, &msg));
    ck_assert_int_eq(st, 409);
    ck_assert_str_eq(msg, "backups.velero.io \"b1\" already exists");
    free(msg);
    /* generateName: prefix + 5 chars of the apiserver's alphabet */
    cJSON *g = mk(NULL, NULL);
    cJSON_AddStringToObject(cJSON_GetObjectItem(g, "metadata"), "generateName", "b1-");
    o = simstore_create(s, "podvolumebackups", "velero", g, &st, NULL);
    ck_assert_int_eq(st, 201);
    const char *name = mds(o, "name");
    ck_assert_int_eq(strlen(name), 8);
    ck_assert_int_eq(strncmp(name, "b1-", 3), 0);
    ck_assert_int_eq(strspn(name + 3, "bcdfghjklmnpqrstvwxz2456789"), 5);
    cJSON_Delete(o);
    /* neither name nor generateName */
    ck_assert_ptr_null(simstore_create(s, "backups", "velero", mk(NULL, NULL), &st, &msg));
    ck_assert_int_eq(st, 422);
    free(msg);
    simstore_free(s);
}
END_TEST

START_TEST(update_conflict_and_generation)
{
    simstore *s = simstore_new(100);
    int st;
    char *msg = NULL;
    cJSON *o = simstore_create(s, "backups", "velero", mk("b1", NULL), &st, NULL);
    char *rv1 = strdup(mds(o, "resourceVersion"));
    /* stale resourceVersion: 409 Conflict */
    cJSON *stale = cJSON_Duplicate(o, 1);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(stale, "metadata"), "resourceVersion",
                              cJSON_CreateString("1"));
    ck_assert_ptr_null(simstore_update(s, "backups", "velero", "b1", stale, &st, &msg));
    ck_assert_int_eq(st, 409);
    ck_assert_str_eq(msg, "Operation cannot be fulfilled on backups.velero.io \"b1\": the object "
                          "has been modified; please apply your changes to the latest version "
                          "and try again");
    free(msg);
    /* Velero's CRDs have no status subresource: a status change bumps generation like a spec
     * change (any change but to metadata); a label change does not */
    cJSON_AddItemToObject(o, "status", cJSON_Parse("{\"phase\":\"InProgress\"}"));
    cJSON *u = simstore_update(s, "backups", "velero", "b1", o, &st, NULL);
    ck_assert_int_eq(st, 200);
    ck_assert_double_eq(mdn(u, "generation"), 2);
    ck_assert_str_ne(mds(u, "resourceVersion"), rv1);
    cJSON *p = cJSON_Parse("{\"spec\":{\"ttl\":\"1h0m0s\"}}");
    cJSON *m = simstore_merge_patch(s, "backups", "velero", "b1", p, &st, NULL);
    ck_assert_double_eq(mdn(m, "generation"), 3);
    cJSON_Delete(p);
    cJSON_Delete(m);
    p = cJSON_Parse("{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
    m = simstore_merge_patch(s, "backups", "velero", "b1", p, &st, NULL);
    ck_assert_double_eq(mdn(m, "generation"), 3);
    cJSON_Delete(p);
    /* a built-in resource's status change keeps generation */
    cJSON *pod = cJSON_Parse("{\"metadata\":{\"name\":\"p1\"},\"spec\":{}}");
    cJSON_Delete(simstore_create(s, "pods", "velero", pod, &st, NULL));
    p = cJSON_Parse("{\"status\":{\"phase\":\"Running\"}}");
    cJSON *pp = simstore_merge_patch(s, "pods", "velero", "p1", p, &st, NULL);
    ck_assert_int_eq(st, 200);
    ck_assert_double_eq(mdn(pp, "generation"), 1);
    cJSON_Delete(pp);
    cJSON_Delete(p);
    /* merge patch with the old RV as a precondition: 409 */
    char *pj = NULL;
    if (asprintf(&pj, "{\"metadata\":{\"resourceVersion\":\"%s\"},\"spec\":{\"ttl\":\"2h\"}}",
                 rv1) < 0)
        ck_abort();
    p = cJSON_Parse(pj);
    ck_assert_ptr_null(simstore_merge_patch(s, "backups", "velero", "b1", p, &st, &msg));
    ck_assert_int_eq(st, 409);
    free(msg);
    cJSON_Delete(p);
    free(pj);
    /* status-only patch ignores spec */
    p = cJSON_Parse("{\"spec\":{\"ttl\":\"9h\"},\"status\":{\"phase\":\"Completed\"}}");
    cJSON *sp = simstore_merge_patch_ex(s, "backups", "velero", "b1", p, 1, &st, NULL);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "spec"), "ttl")->valuestring,
                     "1h0m0s");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "status"), "phase")->valuestring,
                     "Completed");
    cJSON_Delete(p);
    cJSON_Delete(sp);
    /* not found */
    p = cJSON_Parse("{}");
    ck_assert_ptr_null(simstore_merge_patch(s, "backups", "velero", "nope", p, &st, &msg));
    ck_assert_int_eq(st, 404);
    ck_assert_str_eq(msg, "backups.velero.io \"nope\" not found");
    free(msg);
    cJSON_Delete(p);
    cJSON_Delete(u);
    cJSON_Delete(m);
    free(rv1);
    simstore_free(s);
}
END_TEST

START_TEST(merge_patch_follows_rfc7386)
{
    simstore *s = simstore_new(100);
    int st;
    cJSON *o = mk("b1", "{\"a\":\"1\",\"b\":\"2\"}");
    cJSON_AddItemToObject(o, "status",
                          cJSON_Parse("{\"progress\":{\"totalItems\":10,\"itemsBackedUp\":3},"
                                      "\"validationErrors\":[\"x\",\"y\"]}"));
    cJSON_Delete(simstore_create(s, "backups", "velero", o, &st, NULL));
    cJSON *p = cJSON_Parse("{\"metadata\":{\"labels\":{\"a\":null,\"c\":\"3\"}},\"status\":{"
                           "\"progress\":{\"itemsBackedUp\":7},\"validationErrors\":[\"z\"]}}");
    cJSON *r = simstore_merge_patch(s, "backups", "velero", "b1", p, &st, NULL);
    cJSON_Delete(p);
    char *labels =
        cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "metadata"), "labels"));
    ck_assert_str_eq(labels, "{\"b\":\"2\",\"c\":\"3\"}");
    char *status = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "status"));
    ck_assert_str_eq(status, "{\"progress\":{\"totalItems\":10,\"itemsBackedUp\":7},"
                             "\"validationErrors\":[\"z\"]}");
    free(labels);
    free(status);
    cJSON_Delete(r);
    simstore_free(s);
}
END_TEST

static void add_labeled(simstore *s, const char *plural, const char *ns, const char *name,
                        const char *labels)
{
    int st;
    cJSON *o = simstore_create(s, plural, ns, mk(name, labels), &st, NULL);
    ck_assert_int_eq(st, 201);
    cJSON_Delete(o);
}

static char *names(cJSON *arr)
{
    char buf[512] = "";
    cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (buf[0]) strcat(buf, ",");
        strcat(buf, mds(it, "name"));
    }
    return strdup(buf);
}

static char *list_names(simstore *s, const char *ns, const char *ls, const char *fs, int *st,
                        char **msg)
{
    cJSON *arr = simstore_list(s, "podvolumebackups", ns, ls, fs, NULL, st, msg);
    if (!arr) return NULL;
    char *n = names(arr);
    cJSON_Delete(arr);
    return n;
}

START_TEST(list_with_label_and_field_selectors)
{
    simstore *s = simstore_new(100);
    add_labeled(s, "podvolumebackups", "velero", "p3", "{\"velero.io/backup-name\":\"b2\"}");
    add_labeled(s, "podvolumebackups", "velero", "p1",
                "{\"velero.io/backup-name\":\"b1\",\"tier\":\"gold\"}");
    add_labeled(s, "podvolumebackups", "velero", "p2", "{\"velero.io/backup-name\":\"b1\"}");
    add_labeled(s, "podvolumebackups", "other", "p0", "{\"velero.io/backup-name\":\"b3\"}");
    struct {
        const char *ns, *ls, *fs, *want;
    } cases[] = {
        {NULL, NULL, NULL, "p0,p1,p2,p3"},
        {"velero", "", "", "p1,p2,p3"},
        {"velero", "velero.io/backup-name=b1", NULL, "p1,p2"},
        {"velero", "velero.io/backup-name==b1", NULL, "p1,p2"},
        {"velero", "velero.io/backup-name!=b1", NULL, "p3"},
        {NULL, "velero.io/backup-name in (b2, b3)", NULL, "p0,p3"},
        {NULL, "velero.io/backup-name notin (b2,b3)", NULL, "p1,p2"},
        {NULL, "tier", NULL, "p1"},
        {NULL, "!tier", NULL, "p0,p2,p3"},
        {NULL, "tier!=silver", NULL, "p0,p1,p2,p3"},
        {NULL, "velero.io/backup-name=b1,!tier", NULL, "p2"},
        {NULL, NULL, "metadata.name=p2", "p2"},
        {NULL, NULL, "metadata.name==p2", "p2"},
        {NULL, NULL, "metadata.namespace=other", "p0"},
        {NULL, NULL, "metadata.namespace!=other,metadata.name!=p1", "p2,p3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *msg = NULL;
        char *got = list_names(s, cases[i].ns, cases[i].ls, cases[i].fs, &st, &msg);
        ck_assert_msg(got && !strcmp(got, cases[i].want), "case %zu: got %s want %s", i,
                      got ? got : msg, cases[i].want);
        free(got);
    }
    int st;
    char *msg = NULL;
    ck_assert_ptr_null(list_names(s, NULL, NULL, "status.phase=New", &st, &msg));
    ck_assert_int_eq(st, 400);
    ck_assert_str_eq(msg, "field label not supported: status.phase");
    free(msg);
    msg = NULL;
    ck_assert_ptr_null(list_names(s, NULL, "a in (b", NULL, &st, &msg));
    ck_assert_int_eq(st, 400);
    free(msg);
    simstore_free(s);
}
END_TEST

START_TEST(list_pages_with_a_cursor)
{
    simstore *s = simstore_new(100);
    char name[16];
    for (int i = 9; i >= 0; i--) {
        snprintf(name, sizeof name, "b%d", i);
        add_labeled(s, "backups", "velero", name, NULL);
    }
    char *nns = NULL, *nname = NULL;
    long rem;
    uint64_t rv;
    int st;
    cJSON *p = simstore_list_page(s, "backups", "velero", NULL, NULL, 4, NULL, NULL, &rv, &nns,
                                  &nname, &rem, &st, NULL);
    char *n = names(p);
    ck_assert_str_eq(n, "b0,b1,b2,b3");
    ck_assert_str_eq(nname, "b3");
    ck_assert_int_eq(rem, 6);
    ck_assert_uint_eq(rv, simstore_rv(s));
    free(n);
    cJSON_Delete(p);
    char *an = nns, *am = nname;
    p = simstore_list_page(s, "backups", "velero", NULL, NULL, 4, an, am, &rv, &nns, &nname, &rem,
                           &st, NULL);
    free(an);
    free(am);
    n = names(p);
    ck_assert_str_eq(n, "b4,b5,b6,b7");
    ck_assert_int_eq(rem, 2);
    free(n);
    cJSON_Delete(p);
    an = nns, am = nname;
    p = simstore_list_page(s, "backups", "velero", NULL, NULL, 4, an, am, &rv, &nns, &nname, &rem,
                           &st, NULL);
    free(an);
    free(am);
    n = names(p);
    ck_assert_str_eq(n, "b8,b9");
    ck_assert_ptr_null(nns);
    ck_assert_ptr_null(nname);
    ck_assert_int_eq(rem, 0);
    free(n);
    cJSON_Delete(p);
    simstore_free(s);
}
END_TEST

/* The raw page (kept serializations, for the API server) is byte for byte the deep-copied page
 * printed, with the same cursor and remaining count, after every kind of change, in a namespace or
 * across all, with and without selectors: a stale serialization would show here. */
static void same_pages(simstore *s, const char *ns, const char *ls, size_t limit)
{
    char *an = NULL, *am = NULL;
    int pages = 0;
    do {
        char *n1 = NULL, *m1 = NULL, *n2 = NULL, *m2 = NULL;
        long r1 = -5, r2 = -5;
        uint64_t rv1 = 0, rv2 = 0;
        int st1 = 0, st2 = 0;
        cJSON *p = simstore_list_page(s, "podvolumebackups", ns, ls, NULL, limit, an, am, &rv1, &n1,
                                      &m1, &r1, &st1, NULL);
        cJSON *raw = simstore_list_page_raw(s, "podvolumebackups", ns, ls, NULL, limit, an, am,
                                            &rv2, &n2, &m2, &r2, &st2, NULL);
        ck_assert_ptr_nonnull(p);
        ck_assert(cJSON_IsRaw(raw));
        char *text = cJSON_PrintUnformatted(p);
        ck_assert_str_eq(raw->valuestring, text);
        ck_assert_int_eq(r1, r2);
        ck_assert_uint_eq(rv1, rv2);
        ck_assert_int_eq(st2, 200);
        ck_assert_int_eq(!n1, !n2);
        if (n1) {
            ck_assert_str_eq(n1, n2);
            ck_assert_str_eq(m1, m2);
        }
        free(text);
        cJSON_Delete(p);
        cJSON_Delete(raw);
        free(n2);
        free(m2);
        free(an);
        free(am);
        an = n1;
        am = m1;
        pages++;
    } while (an && pages < 100);
    ck_assert_ptr_null(an);
}

static int add_bytes(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_GetObjectItem(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObject(st, "bytesDone");
    cJSON_AddNumberToObject(st, "bytesDone", *(double *)arg);
    return 1;
}

START_TEST(raw_pages_match_printed_pages)
{
    simstore *s = simstore_new(1000);
    char name[32];
    const char *nss[] = {"velero", "aaa", "zzz"};
    for (int i = 0; i < 30; i++) {
        snprintf(name, sizeof name, "pvb-%02d", i);
        add_labeled(s, "podvolumebackups", nss[i % 3], name,
                    i % 2 ? "{\"velero.io/backup-name\":\"odd\"}" : "{\"x\":\"y\"}");
    }
    int st;
    cJSON *patch = cJSON_Parse("{\"status\":{\"phase\":\"InProgress\"}}");
    cJSON_Delete(simstore_merge_patch(s, "podvolumebackups", "velero", "pvb-03", patch, &st, NULL));
    cJSON_Delete(patch);
    double b = 4096;
    ck_assert_int_eq(simstore_mutate(s, "podvolumebackups", "aaa", "pvb-04", add_bytes, &b), 1);
    cJSON *up = mk("pvb-06", NULL);
    cJSON_Delete(simstore_update(s, "podvolumebackups", "velero", "pvb-06", up, &st, NULL));
    ck_assert_int_eq(st, 200);
    cJSON_Delete(simstore_delete(s, "podvolumebackups", "velero", "pvb-09", &st, NULL));
    size_t limits[] = {0, 1, 4, 9, 100};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        same_pages(s, "velero", NULL, limits[l]);
        same_pages(s, NULL, NULL, limits[l]);
        same_pages(s, "zzz", NULL, limits[l]);
        same_pages(s, "nothing-here", NULL, limits[l]);
        same_pages(s, "velero", "velero.io/backup-name=odd", limits[l]);
        same_pages(s, NULL, "x", limits[l]);
    }
    /* the remaining count without selectors, by subtraction: 10 + 10 + 10 - 1 deleted */
    long rem = 0;
    char *nn = NULL, *nm = NULL;
    cJSON *raw = simstore_list_page_raw(s, "podvolumebackups", NULL, NULL, NULL, 5, NULL, NULL,
                                        NULL, &nn, &nm, &rem, &st, NULL);
    ck_assert_int_eq(rem, 24);
    ck_assert_str_eq(nn, "aaa");
    ck_assert_str_eq(nm, "pvb-13");
    cJSON_Delete(raw);
    free(nn);
    free(nm);
    char *msg = NULL;
    ck_assert_ptr_null(simstore_list_page_raw(s, "nosuch", NULL, NULL, NULL, 5, NULL, NULL, NULL,
                                              NULL, NULL, NULL, &st, &msg));
    ck_assert_int_eq(st, 404);
    free(msg);
    ck_assert_ptr_null(simstore_list_page_raw(s, "podvolumebackups", NULL, "a in (", NULL, 5, NULL,
                                              NULL, NULL, NULL, NULL, NULL, &st, &msg));
    ck_assert_int_eq(st, 400);
    free(msg);
    simstore_free(s);
}
END_TEST

static int set_phase(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_GetObjectItem(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObject(st, "phase");
    cJSON_AddStringToObject(st, "phase", arg);
    return 1;
}

static void expect_event(simstore_watch *w, const char *type, const char *name)
{
    const char *t = NULL;
    uint64_t rv;
    cJSON *o = simstore_watch_next(w, 2000, &t, &rv);
    ck_assert_ptr_nonnull(o);
    ck_assert_str_eq(t, type);
    ck_assert_str_eq(mds(o, "name"), name);
    cJSON_Delete(o);
}

START_TEST(watch_initial_state_resume_and_selectors)
{
    simstore *s = simstore_new(100);
    add_labeled(s, "backups", "velero", "a", "{\"x\":\"1\"}");
    add_labeled(s, "backups", "velero", "b", NULL);
    add_labeled(s, "restores", "velero", "r", NULL);
    /* rv 0: synthetic ADDED for the current state, then changes */
    int gone;
    simstore_watch *w = simstore_watch_open(s, "backups", "velero", NULL, NULL, 0, &gone);
    ck_assert_int_eq(gone, 0);
    expect_event(w, "ADDED", "a");
    expect_event(w, "ADDED", "b");
    const char *t;
    uint64_t rv;
    ck_assert_ptr_null(simstore_watch_next(w, 0, &t, &rv));
    uint64_t mark = simstore_rv(s);
    ck_assert_int_eq(simstore_mutate(s, "backups", "velero", "a", set_phase, "InProgress"), 1);
    ck_assert_int_eq(simstore_mutate(s, "backups", "velero", "gone", set_phase, "x"), 0);
    expect_event(w, "MODIFIED", "a");
    int st;
    cJSON_Delete(simstore_delete(s, "backups", "velero", "b", &st, NULL));
    ck_assert_int_eq(st, 200);
    expect_event(w, "DELETED", "b");
    simstore_watch_close(w);
    /* resume from mark: only later changes */
    w = simstore_watch_open(s, "backups", NULL, NULL, NULL, mark, &gone);
    ck_assert_int_eq(gone, 0);
    expect_event(w, "MODIFIED", "a");
    expect_event(w, "DELETED", "b");
    ck_assert_ptr_null(simstore_watch_next(w, 10, &t, &rv));
    simstore_watch_close(w);
    /* label and field selectors apply to events */
    w = simstore_watch_open(s, "backups", "velero", "x=1", NULL, mark, &gone);
    expect_event(w, "MODIFIED", "a");
    ck_assert_ptr_null(simstore_watch_next(w, 0, &t, &rv));
    simstore_watch_close(w);
    w = simstore_watch_open(s, "backups", "velero", NULL, "metadata.name=b", mark, &gone);
    expect_event(w, "DELETED", "b");
    ck_assert_ptr_null(simstore_watch_next(w, 0, &t, &rv));
    simstore_watch_close(w);
    simstore_free(s);
}
END_TEST

START_TEST(watch_too_old_is_gone)
{
    simstore *s = simstore_new(3);
    uint64_t start = simstore_rv(s);
    add_labeled(s, "backups", "velero", "a", NULL);
    for (int i = 0; i < 5; i++) simstore_mutate(s, "backups", "velero", "a", set_phase, "X");
    int gone;
    simstore_watch *w = simstore_watch_open(s, "backups", "velero", NULL, NULL, start, &gone);
    ck_assert_int_eq(gone, 1);
    simstore_watch_close(w);
    /* a watch that falls behind gets an Expired ERROR */
    uint64_t now = simstore_rv(s);
    w = simstore_watch_open(s, "backups", "velero", NULL, NULL, now, &gone);
    ck_assert_int_eq(gone, 0);
    for (int i = 0; i < 5; i++) simstore_mutate(s, "backups", "velero", "a", set_phase, "Y");
    const char *t;
    uint64_t rv;
    cJSON *e = simstore_watch_next(w, 0, &t, &rv);
    ck_assert_str_eq(t, "ERROR");
    ck_assert_int_eq(cJSON_GetObjectItem(e, "code")->valueint, 410);
    ck_assert_str_eq(cJSON_GetObjectItem(e, "reason")->valuestring, "Expired");
    cJSON_Delete(e);
    simstore_watch_close(w);
    /* forced expiry: anything before the current RV is gone */
    now = simstore_rv(s);
    simstore_mutate(s, "backups", "velero", "a", set_phase, "Z");
    simstore_expire_history(s);
    w = simstore_watch_open(s, "backups", "velero", NULL, NULL, now, &gone);
    ck_assert_int_eq(gone, 1);
    simstore_watch_close(w);
    w = simstore_watch_open(s, "backups", "velero", NULL, NULL, simstore_rv(s), &gone);
    ck_assert_int_eq(gone, 0);
    simstore_watch_close(w);
    simstore_free(s);
}
END_TEST

START_TEST(log_append_and_read)
{
    simstore *s = simstore_new(10);
    const char *pod = sim_velero_pod_name();
    ck_assert_int_eq(strncmp(pod, "velero-", 7), 0);
    size_t pos = 0, n;
    double *times;
    ck_assert_ptr_null(simstore_log_read(s, pod, &pos, 0, &n, &times));
    simstore_log_append(s, pod, 100.5, "line one");
    simstore_log_append(s, pod, 101.0, "line two");
    char **lines = simstore_log_read(s, pod, &pos, 0, &n, &times);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(pos, 2);
    ck_assert_str_eq(lines[1], "line two");
    ck_assert_double_eq(times[0], 100.5);
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
    free(times);
    ck_assert_uint_eq(simstore_log_count(s, pod), 2);
    simstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simstore");
    TCase *tc = tcase_create("simstore");
    tcase_add_test(tc, create_get_and_already_exists);
    tcase_add_test(tc, update_conflict_and_generation);
    tcase_add_test(tc, merge_patch_follows_rfc7386);
    tcase_add_test(tc, list_with_label_and_field_selectors);
    tcase_add_test(tc, list_pages_with_a_cursor);
    tcase_add_test(tc, watch_initial_state_resume_and_selectors);
    tcase_add_test(tc, watch_too_old_is_gone);
    tcase_add_test(tc, log_append_and_read);
    tcase_add_test(tc, raw_pages_match_printed_pages);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
