/* test_view.c: the list's filter (view_rebuild): every word must match; a plain word is a
 * regular expression (any case) of the name, phase or schedule; "!" inverts, "-l" selects labels;
 * ns:NAME a namespace the run includes (or all of them, NAME not excluded), schedule:NAME and
 * phase:NAME exactly (any case), label:key=value or label:key its labels. */
#include <check.h>
#include <string.h>

#include "app.h"
#include "testutil.h"

typedef struct fx {
    vl_run runs[5];
    char *inc[5][3], *exc[5][2];
    char *lk[5][2], *lv[5][2];
    model *m;
    view v;
} fx;

static vl_run *fx_run(fx *f, int i, vl_kind k, const char *name, const char *phase,
                      const char *schedule)
{
    vl_run *r = &f->runs[i];
    memset(r, 0, sizeof *r);
    r->kind = k;
    r->meta.name = (char *)name;
    r->phase = (char *)phase;
    r->phase_id = vl_phase_parse(phase);
    r->schedule = (char *)schedule;
    r->started = 1000 + i;
    r->included_ns = f->inc[i];
    r->excluded_ns = f->exc[i];
    r->meta.label_keys = f->lk[i];
    r->meta.label_values = f->lv[i];
    return r;
}

static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    vl_run *r = fx_run(f, 0, VL_BACKUP, "nightly-1", "PartiallyFailed", "nightly");
    f->inc[0][0] = "shop";
    f->inc[0][1] = "billing";
    r->n_included_ns = 2;
    r = fx_run(f, 1, VL_BACKUP, "nightly-2", "Completed", "nightly");
    f->inc[1][0] = "shop";
    r->n_included_ns = 1;
    f->lk[1][0] = "team";
    f->lv[1][0] = "payments";
    r->meta.nlabels = 1;
    r = fx_run(f, 2, VL_BACKUP, "adhoc-billing", "Failed", NULL);
    f->inc[2][0] = "billing";
    r->n_included_ns = 1;
    f->lk[2][0] = "team";
    f->lv[2][0] = "payments-eu";
    f->lk[2][1] = "tier";
    f->lv[2][1] = "gold";
    r->meta.nlabels = 2;
    r = fx_run(f, 3, VL_BACKUP, "everything", "FailedValidation", NULL);
    f->inc[3][0] = "*";
    r->n_included_ns = 1;
    f->exc[3][0] = "kube-system";
    r->n_excluded_ns = 1;
    fx_run(f, 4, VL_RESTORE, "restore-nightly", NULL, NULL); /* no namespaces: all of them */
    f->m = model_new();
    for (int i = 0; i < 5; i++) model_upsert_run(f->m, &f->runs[i], 1, 2000);
    view_init(&f->v);
}

static void fx_free(fx *f)
{
    view_clear(&f->v);
    model_free(f->m);
}

/* The names the filter shows, in the view's order (newest first), space-separated. */
static const char *shown(fx *f, const char *filter)
{
    static char out[256];
    snprintf(f->v.filter, sizeof f->v.filter, "%s", filter);
    view_rebuild(&f->v, f->m);
    out[0] = 0;
    for (size_t i = 0; i < f->v.n_rows; i++) {
        strcat(out, i ? " " : "");
        strcat(out, f->v.rows[i]->name);
    }
    return out;
}

START_TEST(plain_words_match_name_phase_or_schedule)
{
    fx f;
    fx_init(&f);
    ck_assert_str_eq(shown(&f, ""), "restore-nightly everything adhoc-billing nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "nightly"), "restore-nightly nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "FAILED"), "everything adhoc-billing nightly-1");
    /* every word must match */
    ck_assert_str_eq(shown(&f, "nightly failed"), "nightly-1");
    ck_assert_str_eq(shown(&f, "  nightly   2 "), "nightly-2");
    fx_free(&f);
}
END_TEST

START_TEST(ns_schedule_phase_and_label_words)
{
    fx f;
    fx_init(&f);
    /* included by name, or by "*" / no list (all namespaces) unless excluded */
    ck_assert_str_eq(shown(&f, "ns:billing"), "restore-nightly everything adhoc-billing nightly-1");
    ck_assert_str_eq(shown(&f, "ns:shop"), "restore-nightly everything nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "ns:kube-system"), "restore-nightly");
    ck_assert_str_eq(shown(&f, "NS:Billing"), "restore-nightly everything adhoc-billing nightly-1");
    ck_assert_str_eq(shown(&f, "ns:bill"), "restore-nightly everything"); /* names, not parts */
    ck_assert_str_eq(shown(&f, "schedule:nightly"), "nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "schedule:night"), "");
    /* exactly the phase: Failed is not PartiallyFailed nor FailedValidation; no phase is New */
    ck_assert_str_eq(shown(&f, "phase:Failed"), "adhoc-billing");
    ck_assert_str_eq(shown(&f, "phase:failed"), "adhoc-billing");
    ck_assert_str_eq(shown(&f, "phase:PartiallyFailed"), "nightly-1");
    ck_assert_str_eq(shown(&f, "phase:new"), "restore-nightly");
    /* label values exactly, keys alone for presence */
    ck_assert_str_eq(shown(&f, "label:team=payments"), "nightly-2");
    ck_assert_str_eq(shown(&f, "label:team"), "adhoc-billing nightly-2");
    ck_assert_str_eq(shown(&f, "label:tier=gold"), "adhoc-billing");
    ck_assert_str_eq(shown(&f, "label:Team=payments"), ""); /* label keys are case-sensitive */
    ck_assert_str_eq(shown(&f, "label:team=payments-eu ns:billing"), "adhoc-billing");
    ck_assert_str_eq(shown(&f, "schedule:nightly ns:billing"), "nightly-1");
    ck_assert_str_eq(shown(&f, "ns:shop phase:completed 2"), "nightly-2");
    /* a word with a colon that is no key is a plain word */
    ck_assert_str_eq(shown(&f, "x:y"), "");
    fx_free(&f);
}
END_TEST

/* As k9s' `/`: a plain word is a regular expression (POSIX extended, any case) of the name, phase
 * or schedule; a bad one matches nothing and says why, never crashes. */
START_TEST(words_are_regular_expressions)
{
    fx f;
    fx_init(&f);
    ck_assert_str_eq(shown(&f, "^nightly-[0-9]$"), "nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "NIGHTLY-(1|2)"), "nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "^(everything|adhoc)"), "everything adhoc-billing");
    ck_assert_str_eq(shown(&f, "^failed$"), "adhoc-billing"); /* the phase, anchored */
    ck_assert_str_eq(f.v.filter_error, "");
    ck_assert_str_eq(shown(&f, "nightly-["), "");
    ck_assert_msg(!strncmp(f.v.filter_error, "not a regular expression: nightly-[ (", 37), "%s",
                  f.v.filter_error);
    ck_assert_str_eq(shown(&f, "(("), "");
    ck_assert_msg(f.v.filter_error[0], "no error for ((");
    /* a good filter again: the error is gone */
    ck_assert_str_eq(shown(&f, "billing"), "adhoc-billing");
    ck_assert_str_eq(f.v.filter_error, "");
    fx_free(&f);
}
END_TEST

/* "!WORDS": the runs the words do not match; "-l" a label selector (k9s): key=value, key!=value
 * (or no such label), key; all of them. */
START_TEST(inverted_and_label_selector)
{
    fx f;
    fx_init(&f);
    ck_assert_str_eq(shown(&f, "!nightly"), "everything adhoc-billing");
    ck_assert_str_eq(shown(&f, "!failed"), "restore-nightly nightly-2");
    ck_assert_str_eq(shown(&f, "!nightly failed"),
                     "restore-nightly everything adhoc-billing nightly-2");
    ck_assert_str_eq(shown(&f, "!"),
                     "restore-nightly everything adhoc-billing nightly-2 nightly-1");
    ck_assert_str_eq(shown(&f, "-l team=payments"), "nightly-2");
    ck_assert_str_eq(shown(&f, "-l team"), "adhoc-billing nightly-2");
    ck_assert_str_eq(shown(&f, "-l team,tier=gold"), "adhoc-billing");
    ck_assert_str_eq(shown(&f, "-l team!=payments"),
                     "restore-nightly everything adhoc-billing nightly-1");
    ck_assert_str_eq(shown(&f, "-l team=nope"), "");
    ck_assert_str_eq(shown(&f, "-lteam"), ""); /* not "-l": a regular expression, no name has it */
    fx_free(&f);
}
END_TEST

/* :bak and :rst: one kind of run; a sort pressed again is the other way round. */
START_TEST(kinds_and_reversed_sort)
{
    fx f;
    fx_init(&f);
    f.v.kinds = 1 << VL_RESTORE;
    ck_assert_str_eq(shown(&f, ""), "restore-nightly");
    f.v.kinds = 1 << VL_BACKUP;
    ck_assert_str_eq(shown(&f, "nightly"), "nightly-2 nightly-1");
    f.v.kinds = 0;
    f.v.sort = VIEW_SORT_NAME;
    ck_assert_str_eq(shown(&f, ""), "adhoc-billing everything nightly-1 nightly-2 restore-nightly");
    f.v.reverse = 1;
    ck_assert_str_eq(shown(&f, ""), "restore-nightly nightly-2 nightly-1 everything adhoc-billing");
    f.v.sort = VIEW_SORT_START;
    ck_assert_str_eq(shown(&f, ""), "nightly-1 nightly-2 adhoc-billing everything restore-nightly");
    fx_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("view");
    TCase *tc = tcase_create("filter");
    tcase_add_test(tc, plain_words_match_name_phase_or_schedule);
    tcase_add_test(tc, ns_schedule_phase_and_label_words);
    tcase_add_test(tc, words_are_regular_expressions);
    tcase_add_test(tc, inverted_and_label_selector);
    tcase_add_test(tc, kinds_and_reversed_sort);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
