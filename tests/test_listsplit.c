/* test_listsplit.c: a List answer split into items as its bytes arrive, whatever the chunking:
 * exact item texts and head, strings with braces and escapes, metadata before or after the
 * items, and every way the text can fail to be a list. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/listsplit.h"
#include "kubeclient/util.h"
#include "testutil.h"

typedef struct {
    kc_buf all;  /* items joined by '|' */
    int stop_at; /* stop (nonzero) at this item, 1-based; 0 = never */
    int n;
} got;

static int on_item(void *arg, const cJSON *tree, const char *item, size_t n)
{
    got *g = arg;
    /* the tree is the text's */
    ck_assert(cJSON_IsObject(tree));
    cJSON *mine = cJSON_ParseWithLength(item, n);
    ck_assert_msg(mine && cJSON_Compare(mine, tree, 1), "%.*s", (int)n, item);
    cJSON_Delete(mine);
    g->n++;
    if (g->all.len) kc_buf_append(&g->all, "|", 1);
    kc_buf_append(&g->all, item, n);
    return g->stop_at == g->n;
}

/* Feeds text in chunks of `chunk` bytes (the first one `first` bytes); returns the head (malloc'd)
 * or NULL, the items in *items (malloc'd). */
static char *split(const char *text, size_t first, size_t chunk, char **items, int *rc)
{
    got g = {0};
    kc_listsplit *s = kc_listsplit_new(0, on_item, &g);
    size_t len = strlen(text), off = 0;
    *rc = 0;
    while (off < len) {
        size_t k = off == 0 ? first : chunk;
        if (k == 0) k = 1;
        if (k > len - off) k = len - off;
        /* a copy of just this chunk, so reading past it is caught by ASan */
        char *c = xmalloc(k);
        memcpy(c, text + off, k);
        if (kc_listsplit_feed(s, c, k) < 0) *rc = -1;
        free(c);
        off += k;
    }
    size_t hl = 0;
    const char *h = kc_listsplit_head(s, &hl);
    char *head = h ? xstrdup(h) : NULL;
    if (h) ck_assert_uint_eq(hl, strlen(h));
    ck_assert_uint_eq(kc_listsplit_items(s), (size_t)g.n);
    kc_listsplit_free(s);
    *items = kc_buf_cstr(&g.all);
    return head;
}

static const char *list =
    "{\"kind\":\"BackupList\",\"apiVersion\":\"velero.io/v1\",\"metadata\":{\"resourceVersion\":"
    "\"42\",\"continue\":\"eyJ2IjoxfQ==\"},\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{"
    "\"x\":[1,2,{\"y\":\"}]{[\"}]}} , {\"metadata\":{\"name\":\"b\\\"}\\\\\"},\"s\":\"\\\\\"}\n,"
    "{}]}  \n";

START_TEST(every_chunking_gives_the_same_items_and_head)
{
    const char *want_items =
        "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":[1,2,{\"y\":\"}]{[\"}]}}"
        "|{\"metadata\":{\"name\":\"b\\\"}\\\\\"},\"s\":\"\\\\\"}|{}";
    const char *want_head = "{\"kind\":\"BackupList\",\"apiVersion\":\"velero.io/v1\",\"metadata\":"
                            "{\"resourceVersion\":\"42\",\"continue\":\"eyJ2IjoxfQ==\"},"
                            "\"items\":[]}  \n";
    size_t len = strlen(list);
    for (size_t first = 1; first <= len; first++) {
        for (size_t chunk = 1; chunk <= 9; chunk++) {
            char *items;
            int rc;
            char *head = split(list, first, chunk, &items, &rc);
            ck_assert_msg(rc == 0, "first %zu chunk %zu", first, chunk);
            ck_assert_msg(head != NULL, "first %zu chunk %zu", first, chunk);
            ck_assert_str_eq(items, want_items);
            ck_assert_str_eq(head, want_head);
            free(head);
            free(items);
        }
    }
}
END_TEST

START_TEST(members_after_items_and_empty_lists)
{
    char *items;
    int rc;
    char *head = split("{\"items\":[{\"a\":1}],\"metadata\":{\"resourceVersion\":\"7\"}}", 5, 3,
                       &items, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(items, "{\"a\":1}");
    ck_assert_str_eq(head, "{\"items\":[],\"metadata\":{\"resourceVersion\":\"7\"}}");
    free(head);
    free(items);
    head = split(" { \"kind\" : \"L\" , \"items\" : [ ] } ", 100, 1, &items, &rc);
    ck_assert_str_eq(items, "");
    ck_assert_str_eq(head, " { \"kind\" : \"L\" , \"items\" : [] } "); /* the array emptied */
    free(head);
    free(items);
    /* no items at all: a list with none (as the reflector took it before) */
    head = split("{\"kind\":\"L\",\"metadata\":{\"items\":[{\"n\":1}]}}", 4, 4, &items, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(items, "");
    ck_assert_str_eq(head, "{\"kind\":\"L\",\"metadata\":{\"items\":[{\"n\":1}]}}");
    free(head);
    free(items);
    /* a key that only ends in items, or is split over chunks */
    head = split("{\"xitems\":[{\"n\":1}],\"items\":[{\"n\":2}]}", 4, 1, &items, &rc);
    ck_assert_str_eq(items, "{\"n\":2}");
    free(head);
    free(items);
}
END_TEST

START_TEST(what_is_not_a_list)
{
    const char *bad[] = {
        "[{\"a\":1}]",                         /* not an object */
        "{\"items\":{\"a\":1}}",               /* items not an array */
        "{\"items\":null,\"kind\":\"L\"}",     /* items not an array */
        "{\"items\":null}",                    /* ... at the end */
        "{\"items\":[1,2]}",                   /* items not objects */
        "{\"items\":[\"a\"]}",                 /* items not objects */
        "{\"items\":[{\"a\":1}]}x",            /* bytes after the end */
        "{\"items\":[{\"a\":1}]}{}",           /* a second value */
        "{\"items\":[{\"a\":1}",               /* cut */
        "{\"items\":[{\"a\":\"1}]}",           /* cut in a string */
        "{\"items\":[{\"a\":tru}]}",           /* an item that is not JSON */
        "{\"items\":[{\"a\":1},{\"b\":[1,}]}", /* ... after a good one */
        "",                                    /* nothing */
        "}",                                   /* unbalanced */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        for (size_t chunk = 1; chunk <= 3; chunk++) {
            char *items;
            int rc;
            char *head = split(bad[i], chunk, chunk, &items, &rc);
            ck_assert_msg(head == NULL, "took %s as a list (head %s)", bad[i], head);
            free(items);
        }
    }
    /* the callback says stop: the list is bad from there on */
    got g = {.stop_at = 1};
    kc_listsplit *s = kc_listsplit_new(0, on_item, &g);
    const char *two = "{\"items\":[{\"a\":1},{\"b\":2}]}";
    ck_assert_int_eq(kc_listsplit_feed(s, two, strlen(two)), -1);
    ck_assert_int_eq(g.n, 1);
    size_t hl;
    ck_assert_ptr_null(kc_listsplit_head(s, &hl));
    ck_assert_int_eq(kc_listsplit_feed(s, "}", 1), -1);
    kc_listsplit_free(s);
    kc_buf_free(&g.all);
    /* an item over the cap, whole in a chunk or over several */
    for (size_t chunk = 1; chunk <= 40; chunk += 39) {
        got h = {0};
        s = kc_listsplit_new(10, on_item, &h);
        const char *big = "{\"items\":[{\"a\":\"1\"},{\"b\":\"0123456789\"}]}";
        int rc = 0;
        for (size_t off = 0; off < strlen(big); off += chunk) {
            size_t k = strlen(big) - off < chunk ? strlen(big) - off : chunk;
            if (kc_listsplit_feed(s, big + off, k) < 0) rc = -1;
        }
        ck_assert_int_eq(rc, -1);
        ck_assert_int_eq(h.n, 1);
        ck_assert_ptr_null(kc_listsplit_head(s, &hl));
        kc_listsplit_free(s);
        kc_buf_free(&h.all);
    }
    kc_listsplit_free(NULL);
}
END_TEST

START_TEST(long_strings_with_an_escape_anywhere)
{
    /* strings of 0-40 bytes with an escaped quote or backslash at every offset: the eight-bytes-
     * at-a-time scan must stop at the first of them, wherever it is in its word */
    for (int len = 0; len <= 40; len++) {
        for (int at = -1; at < len; at++) {
            for (int kind = 0; kind < 2; kind++) {
                kc_buf str = {0};
                for (int k = 0; k < len; k++) {
                    if (k == at)
                        kc_buf_append(&str, kind ? "\\\\" : "\\\"", 2);
                    else
                        kc_buf_append(&str, &"x}]{["[k % 5], 1); /* brackets in strings */
                }
                char *item = xasprintf("{\"s\":\"%s\",\"t\":[{\"u\":\"%s\"}]}", kc_buf_cstr(&str),
                                       kc_buf_cstr(&str));
                char *text = xasprintf("{\"items\":[%s,%s]}", item, item);
                char *want = xasprintf("%s|%s", item, item);
                for (size_t chunk = 1; chunk <= 17; chunk += 8) {
                    char *items;
                    int rc;
                    char *head = split(text, chunk, chunk, &items, &rc);
                    ck_assert_msg(head != NULL, "len %d at %d", len, at);
                    ck_assert_str_eq(items, want);
                    free(head);
                    free(items);
                }
                free(item);
                free(text);
                free(want);
                kc_buf_free(&str);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("listsplit");
    TCase *tc = tcase_create("listsplit");
    tcase_add_test(tc, every_chunking_gives_the_same_items_and_head);
    tcase_add_test(tc, members_after_items_and_empty_lists);
    tcase_add_test(tc, what_is_not_a_list);
    tcase_add_test(tc, long_strings_with_an_escape_anywhere);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
