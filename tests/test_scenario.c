/* test_scenario.c: scenario files parse into the runs they describe, bad ones give file:line
 * messages, the built-in scenarios are sane, and cron expressions fire when they should. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "scenario.h"
#include "testutil.h"

static char err[512];

static scenario *parse(const char *text)
{
    err[0] = '\0';
    return scenario_parse(text, strlen(text), "t.yaml", err, sizeof err);
}

START_TEST(basic_fixture_parses_into_its_runs)
{
    scenario *s = scenario_load(FIXTURES_DIR "/scenarios/basic.yaml", 1, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(s->n_runs, 6);
    ck_assert_uint_eq(s->n_namespaces, 2);
    const scn_run *r = &s->runs[1];
    ck_assert_str_eq(r->name, "backup-inprogress");
    ck_assert_int_eq(r->kind, SCN_BACKUP);
    ck_assert_double_eq(r->start, -30);
    ck_assert_double_eq(r->rate, 0.5);
    ck_assert_uint_eq(r->n_resources, 7);
    ck_assert_str_eq(r->resources[2].name, "deployments.apps");
    ck_assert_int_eq(r->resources[2].items, 12);
    ck_assert_int_eq(r->resources[5].added, 2);
    ck_assert_uint_eq(r->n_volumes, 3);
    ck_assert_int_eq(r->volumes[1].uploader, SCN_RESTIC);
    ck_assert_int_eq(r->volumes[2].uploader, SCN_DATAMOVER);
    ck_assert_str_eq(r->volumes[2].pvc, "invoices-data");
    ck_assert_int_eq(r->volumes[0].size, 200LL << 20);
    ck_assert_double_eq(r->volumes[0].rate, 2.0 * 1048576);
    ck_assert_double_eq(r->ttl, 720 * 3600.0);
    r = &s->runs[2];
    ck_assert_str_eq(r->outcome, "Failed");
    ck_assert_double_eq(r->fail_at, 0.5);
    ck_assert_str_eq(r->failure_reason,
                     "rpc error: code = Unavailable desc = error reading from server: EOF");
    ck_assert_int_eq(s->runs[4].kind, SCN_RESTORE);
    ck_assert_str_eq(s->runs[4].backup, "backup-done");
    ck_assert_uint_eq(s->n_schedules, 1);
    ck_assert_str_eq(s->schedules[0].name, "every5");
    ck_assert_str_eq(s->schedules[0].cron, "*/5 * * * *");
    ck_assert_uint_eq(s->schedules[0].tmpl.n_resources, 3);
    ck_assert_str_eq(s->schedules[0].tmpl.schedule, "every5");
    scenario_free(s);
}
END_TEST

START_TEST(errors_name_file_and_line)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"runs:\n  - kind: backup\n    name: a\n    colour: red\n",
         "t.yaml:4: runs entry: unknown key 'colour'"},
        {"runs:\n  - kind: backup\n    name: a\n    rate: fast\n",
         "t.yaml:4: rate: 'fast' is not a number"},
        {"runs:\n  - kind: snapshot\n    name: a\n", "t.yaml:2: kind: expected backup or restore"},
        {"runs:\n  - name: a\n", "t.yaml:2: runs entry: kind is required"},
        {"runs:\n  - kind: restore\n    name: r\n", "t.yaml:2: runs entry: a restore needs backup"},
        {"runs:\n  - kind: backup\n    name: a\n    start: yesterday\n",
         "t.yaml:4: start: expected a duration like 90, 30s, -2h"},
        {"runs:\n  - kind: backup\n    name: a\n    volumes:\n      - {pod: p, namespace: n, "
         "volume: v, size: lots}\n",
         "t.yaml:5: size: expected a size like 200Mi or 1G"},
        {"runs:\n  - kind: backup\n    name: a\n    volumes:\n      - {pod: p, volume: v}\n",
         "t.yaml:5: volumes entry: namespace is required"},
        {"runs:\n  - kind: backup\n    name: a\n    volumes:\n      - {namespace: n, uploader: "
         "datamover}\n",
         "t.yaml:5: volumes entry: a datamover volume needs pvc"},
        {"runs:\n  - kind: backup\n    name: a\n    volumes:\n      - {pod: p, namespace: n, "
         "volume: v, uploader: rsync}\n",
         "t.yaml:5: uploader: expected kopia, restic, restic-real or datamover"},
        {"runs:\n  - kind: backup\n    name: a\n  - kind: backup\n    name: a\n",
         "t.yaml:4: runs entry: duplicate name 'a'"},
        {"runs:\n  - kind: backup\n    name: a\n    resources:\n      - {items: 3}\n",
         "t.yaml:5: resources entry: name is required"},
        {"runs:\n  - kind: backup\n    name: a\n    resources:\n      - {name: pods, items: -3}\n",
         "t.yaml:5: items: expected a non-negative integer"},
        {"runs:\n  - kind: backup\n    name: a\n    fail_at: 2\n",
         "t.yaml:4: fail_at: expected a fraction between 0 and 1"},
        {"schedules:\n  - name: s\n    schedule: \"61 * * * *\"\n",
         "t.yaml:3: bad schedule '61 * * * *': expected 5 cron fields or @every"},
        {"schedules:\n  - name: s\n", "t.yaml:2: schedules entry: schedule is required"},
        {"epoch: soon\n", "t.yaml:1: epoch: expected an RFC 3339 time"},
        {"repositories:\n  - {name: r}\n",
         "t.yaml:2: repositories entry: volume_namespace is required"},
        {"repositories:\n  - {volume_namespace: a}\n",
         "t.yaml:2: repositories entry: name is required"},
        {"repositories:\n  - name: r\n    volume_namespace: a\n    recent:\n      - {result: Ok}\n",
         "t.yaml:5: result: expected Succeeded or Failed"},
        {"repositories:\n  - name: r\n    volume_namespace: a\n    recent:\n      - {at: -1h}\n",
         "t.yaml:5: recent entry: result is required"},
        {"repositories:\n  - name: r\n    volume_namespace: a\n    maintenance_frequency: often\n",
         "t.yaml:4: maintenance_frequency: expected a duration like 90, 30s, -2h"},
        {"colour: red\n", "t.yaml:1: unknown key 'colour'"},
        {"runs: [\n", "t.yaml:2: did not find expected node content"},
        {"- a\n- b\n", "t.yaml:1: scenario: expected a mapping"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scenario *s = parse(cases[i].text);
        ck_assert_msg(s == NULL, "case %zu parsed", i);
        ck_assert_str_eq(err, cases[i].msg);
    }
}
END_TEST

START_TEST(missing_file_is_an_error)
{
    ck_assert_ptr_null(scenario_load("/nonexistent/x.yaml", 1, err, sizeof err));
    ck_assert_str_eq(err, "cannot read scenario /nonexistent/x.yaml: No such file or directory");
}
END_TEST

START_TEST(defaults_and_empty_file)
{
    scenario *s = parse("runs:\n  - kind: backup\n    name: a\n");
    ck_assert_ptr_nonnull(s);
    ck_assert_double_eq(s->runs[0].rate, 10);
    ck_assert_double_eq(s->runs[0].start, 0);
    ck_assert_ptr_null(s->runs[0].outcome);
    ck_assert_str_eq(s->runs[0].storage_location, "default");
    scenario_free(s);
    s = parse("");
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->n_runs, 0);
    scenario_free(s);
}
END_TEST

/* The demo's nightly backups run at 01:00 of the cluster's days: a cluster 10 minutes behind,
 * at 00:05 of ours, is still on the day before (its newest nightly is then two of our days old). */
START_TEST(demo_history_follows_the_clusters_clock)
{
    double day = 1780272000.0; /* 2026-06-01T00:00:00Z */
    for (int skew = -600; skew <= 600; skew += 600) {
        double now = day + 300 + skew; /* our 00:05, on the cluster's clock */
        scenario *d = scenario_load_at("demo", 3, now, err, sizeof err);
        ck_assert_ptr_nonnull(d);
        const scn_run *last = NULL;
        for (size_t i = 0; i < d->n_runs; i++)
            if (d->runs[i].schedule && !strcmp(d->runs[i].schedule, "nightly") &&
                (!last || d->runs[i].start > last->start))
                last = &d->runs[i];
        ck_assert_ptr_nonnull(last);
        double at = now + last->start, want = (skew < 0 ? day - 86400 : day) - 86400 + 3600;
        ck_assert_msg(at >= want && at <= want + 20, "skew %d: newest nightly at %.0f, want %.0f",
                      skew, at, want);
        scenario_free(d);
    }
}
END_TEST

START_TEST(builtin_scenarios)
{
    scenario *e = scenario_load("empty", 1, err, sizeof err);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->n_runs, 0);
    scenario_free(e);
    scenario *d = scenario_load("demo", 3, err, sizeof err);
    scenario *d2 = scenario_load("demo", 3, err, sizeof err);
    ck_assert_uint_ge(d->n_runs, 20);
    ck_assert_uint_eq(d->n_runs, d2->n_runs);
    int in_flight = 0, failed = 0, partial = 0, restic = 0, kopia = 0, du = 0, stall = 0;
    size_t max_res = 0;
    for (size_t i = 0; i < d->n_runs; i++) {
        const scn_run *r = &d->runs[i];
        ck_assert_int_eq(r->resources[1].items, d2->runs[i].resources[1].items); /* seeded */
        if (r->start > -600) in_flight++;
        if (r->outcome && !strcmp(r->outcome, "Failed")) failed++;
        if (r->errors && !r->outcome) partial++;
        if (r->n_resources > max_res) max_res = r->n_resources;
        for (size_t k = 0; k < r->n_volumes; k++) {
            restic += r->volumes[k].uploader == SCN_RESTIC;
            kopia += r->volumes[k].uploader == SCN_KOPIA;
            du += r->volumes[k].uploader == SCN_DATAMOVER;
            stall += r->volumes[k].stall_after >= 0;
        }
    }
    ck_assert_int_eq(in_flight, 2);
    ck_assert_int_ge(failed, 1);
    ck_assert_int_ge(partial, 1);
    ck_assert_uint_ge(max_res, 30);
    ck_assert_int_gt(restic, 0);
    ck_assert_int_gt(kopia, 0);
    ck_assert_int_gt(du, 0);
    ck_assert_int_eq(stall, 1);
    ck_assert_uint_eq(d->n_schedules, 2);
    ck_assert_str_eq(d->schedules[0].cron, "*/5 * * * *");
    /* the nightly history's own schedule, made a month ago */
    ck_assert_str_eq(d->schedules[1].name, "nightly");
    ck_assert_str_eq(d->schedules[1].cron, "0 1 * * *");
    ck_assert_double_eq(d->schedules[1].created, -30 * 86400.0);
    ck_assert_uint_gt(d->schedules[0].tmpl.n_resources, 0);
    /* the two in flight: a large backup across dozens of resource types with kopia and restic
     * pod volumes and DataUploads, and a restore */
    const scn_run *big = NULL, *rest = NULL;
    for (size_t i = 0; i < d->n_runs; i++) {
        if (d->runs[i].start <= -600) continue;
        if (d->runs[i].kind == SCN_BACKUP) big = &d->runs[i];
        if (d->runs[i].kind == SCN_RESTORE) rest = &d->runs[i];
    }
    ck_assert_ptr_nonnull(big);
    ck_assert_ptr_nonnull(rest);
    ck_assert_uint_ge(big->n_resources, 30);
    int bk = 0, br = 0, bd = 0;
    for (size_t k = 0; k < big->n_volumes; k++) {
        bk += big->volumes[k].uploader == SCN_KOPIA;
        br += big->volumes[k].uploader == SCN_RESTIC;
        bd += big->volumes[k].uploader == SCN_DATAMOVER;
    }
    ck_assert_int_ge(bk, 2);
    ck_assert_int_ge(br, 1);
    ck_assert_int_ge(bd, 1);
    ck_assert_uint_gt(rest->n_volumes, 0);
    /* every restore restores what its backup stored: each resource with all its items (the
     * plugin-added ones too), but events and nodes (Velero never restores them), in Velero's
     * order (CRDs, namespaces, ..., PVs, PVCs, ..., pods, replicasets.apps, endpoints, services,
     * then the others by name) */
    int restores = 0;
    for (size_t i = 0; i < d->n_runs; i++) {
        const scn_run *r = &d->runs[i], *b = NULL;
        if (r->kind != SCN_RESTORE) continue;
        restores++;
        for (size_t j = 0; j < d->n_runs; j++)
            if (d->runs[j].kind == SCN_BACKUP && !strcmp(d->runs[j].name, r->backup))
                b = &d->runs[j];
        ck_assert_ptr_nonnull(b);
        /* Velero restores no Failed backup (the restore fails validation) */
        ck_assert_msg(!b->outcome || strcmp(b->outcome, "Failed"), "%s restores a Failed backup",
                      r->name);
        size_t want = 0;
        for (size_t k = 0; k < b->n_resources; k++) {
            const char *nm = b->resources[k].name;
            if (!strcmp(nm, "events") || !strcmp(nm, "nodes")) continue;
            want++;
            size_t at = 0;
            while (at < r->n_resources && strcmp(r->resources[at].name, nm)) at++;
            ck_assert_msg(at < r->n_resources, "%s: no %s", r->name, nm);
            ck_assert_int_eq(r->resources[at].items, b->resources[k].items);
            ck_assert_int_eq(r->resources[at].added, 0);
        }
        ck_assert_uint_eq(r->n_resources, want);
        ck_assert_str_eq(r->resources[0].name, "namespaces");
        const char *order[] = {"persistentvolumes", "persistentvolumeclaims",
                               "serviceaccounts",   "secrets",
                               "configmaps",        "pods"};
        size_t last = 0;
        for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
            for (size_t at = 0; at < r->n_resources; at++)
                if (!strcmp(r->resources[at].name, order[o])) {
                    ck_assert_msg(at > last, "%s: %s at %zu", r->name, order[o], at);
                    last = at;
                }
        for (size_t at = last + 1; at + 1 < r->n_resources; at++)
            if (strcmp(r->resources[at].name, "replicasets.apps") &&
                strcmp(r->resources[at].name, "endpoints") &&
                strcmp(r->resources[at].name, "services") &&
                strcmp(r->resources[at + 1].name, "replicasets.apps") &&
                strcmp(r->resources[at + 1].name, "endpoints") &&
                strcmp(r->resources[at + 1].name, "services"))
                ck_assert_msg(strcmp(r->resources[at].name, r->resources[at + 1].name) < 0,
                              "%s: %s before %s", r->name, r->resources[at].name,
                              r->resources[at + 1].name);
    }
    ck_assert_int_eq(restores, 3);
    scenario_free(d);
    scenario_free(d2);
    /* every seed has a Failed and a PartiallyFailed nightly in its history */
    for (unsigned seed = 0; seed < 20; seed++) {
        scenario *x = scenario_load("demo", seed, err, sizeof err);
        int f = 0, p = 0;
        for (size_t i = 0; i < x->n_runs; i++) {
            if (x->runs[i].start > -600) continue;
            f += x->runs[i].outcome && !strcmp(x->runs[i].outcome, "Failed");
            p += x->runs[i].errors && !x->runs[i].outcome;
        }
        ck_assert_msg(f >= 1 && p >= 1, "seed %u: %d failed, %d partially failed", seed, f, p);
        for (size_t i = 0; i < x->n_runs; i++) /* no restore of a Failed backup */
            for (size_t j = 0; x->runs[i].kind == SCN_RESTORE && j < x->n_runs; j++)
                ck_assert_msg(x->runs[j].kind != SCN_BACKUP ||
                                  strcmp(x->runs[j].name, x->runs[i].backup) ||
                                  !x->runs[j].outcome || strcmp(x->runs[j].outcome, "Failed"),
                              "seed %u: %s restores a Failed backup", seed, x->runs[i].name);
        scenario_free(x);
    }
}
END_TEST

START_TEST(sizes_and_durations)
{
    double v;
    ck_assert_int_eq(scn_parse_bytes("200Mi", &v), 0);
    ck_assert_double_eq(v, 200.0 * 1048576);
    ck_assert_int_eq(scn_parse_bytes("1.5G", &v), 0);
    ck_assert_double_eq(v, 1.5e9);
    ck_assert_int_eq(scn_parse_bytes("42", &v), 0);
    ck_assert_double_eq(v, 42);
    ck_assert_int_eq(scn_parse_bytes("3Xi", &v), -1);
    ck_assert_int_eq(scn_parse_bytes("-1Mi", &v), -1);
    ck_assert_int_eq(scn_parse_duration("-2h", &v), 0);
    ck_assert_double_eq(v, -7200);
    ck_assert_int_eq(scn_parse_duration("90", &v), 0);
    ck_assert_double_eq(v, 90);
    ck_assert_int_eq(scn_parse_duration("5m", &v), 0);
    ck_assert_double_eq(v, 300);
    ck_assert_int_eq(scn_parse_duration("1d", &v), 0);
    ck_assert_double_eq(v, 86400);
    ck_assert_int_eq(scn_parse_duration("soon", &v), -1);
    /* out of range or no number (found by fuzz_scenario: size 1.2e120 was cast to int64) */
    ck_assert_int_eq(scn_parse_bytes("1.16508e+120", &v), -1);
    ck_assert_int_eq(scn_parse_bytes("9e6Ti", &v), -1); /* past 8 EiB */
    ck_assert_int_eq(scn_parse_bytes("inf", &v), -1);
    ck_assert_int_eq(scn_parse_bytes("nan", &v), -1);
    ck_assert_int_eq(scn_parse_bytes("8Ti", &v), 0);
    ck_assert_int_eq(scn_parse_duration("1e300d", &v), -1);
    ck_assert_int_eq(scn_parse_duration("nan", &v), -1);
    ck_assert_int_eq(scn_parse_duration("-1e11", &v), -1);
    ck_assert_int_eq(scn_parse_duration("3650d", &v), 0);
    scn_cron c;
    char err[128];
    ck_assert_int_eq(scn_cron_parse("@every 1e300s", &c, err, sizeof err), -1);
    ck_assert_int_eq(scn_cron_parse("@every 100000d", &c, err, sizeof err), -1);
}
END_TEST

START_TEST(pace_jitter_and_schedule_parse)
{
    scenario *s =
        parse("runs:\n  - kind: backup\n    name: b\n    schedule: nightly\n"
              "    jitter: 0.2\n    pace: [{at: 2m, factor: 0.3}, {at: 300, factor: 3}]\n");
    ck_assert_msg(s != NULL, "%s", err);
    const scn_run *r = &s->runs[0];
    ck_assert_str_eq(r->schedule, "nightly");
    ck_assert_double_eq(r->jitter, 0.2);
    ck_assert_uint_eq(r->n_pace, 2);
    ck_assert_double_eq(r->pace_at[0], 120);
    ck_assert_double_eq(r->pace_factor[0], 0.3);
    ck_assert_double_eq(r->pace_at[1], 300);
    ck_assert_double_eq(r->pace_factor[1], 3);
    scn_run copy;
    scn_run_copy(&copy, r);
    ck_assert_uint_eq(copy.n_pace, 2);
    ck_assert_ptr_ne(copy.pace_at, r->pace_at);
    ck_assert_double_eq(copy.pace_factor[1], 3);
    scn_run_clear(&copy);
    scenario_free(s);
    const char *bad[] = {
        "runs:\n  - kind: backup\n    name: b\n    pace: [{at: 10, factor: 0}]\n",
        "runs:\n  - kind: backup\n    name: b\n    pace: [{at: 10, factor: 1}, {at: 5, factor: "
        "2}]\n",
        "runs:\n  - kind: backup\n    name: b\n    pace: [{at: 10, speed: 1}]\n",
        "runs:\n  - kind: backup\n    name: b\n    pace: 3\n",
        "runs:\n  - kind: backup\n    name: b\n    jitter: 2\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = parse(bad[i]);
        ck_assert_msg(s == NULL, "accepted: %s", bad[i]);
        ck_assert_msg(strstr(err, "t.yaml:") != NULL, "%s", err);
    }
}
END_TEST

START_TEST(cron_fires_when_expected)
{
    scn_cron c;
    double t0;
    kc_parse_time("2026-01-07T11:21:59Z", &t0);
    double want;
    ck_assert_int_eq(scn_cron_parse("*/5 * * * *", &c, err, sizeof err), 0);
    kc_parse_time("2026-01-07T11:25:00Z", &want);
    ck_assert_double_eq(scn_cron_next(&c, t0, t0), want);
    ck_assert_double_eq(scn_cron_next(&c, t0, want), want + 300);
    ck_assert_int_eq(scn_cron_parse("30 2 * * *", &c, err, sizeof err), 0);
    kc_parse_time("2026-01-08T02:30:00Z", &want);
    ck_assert_double_eq(scn_cron_next(&c, t0, t0), want);
    ck_assert_int_eq(scn_cron_parse("0 9-17 * * 1-5", &c, err, sizeof err), 0);
    kc_parse_time("2026-01-07T12:00:00Z", &want); /* a Wednesday */
    ck_assert_double_eq(scn_cron_next(&c, t0, t0), want);
    ck_assert_int_eq(scn_cron_parse("@every 5m", &c, err, sizeof err), 0);
    ck_assert_double_eq(scn_cron_next(&c, t0, t0), t0 + 300);
    ck_assert_double_eq(scn_cron_next(&c, t0, t0 + 301), t0 + 600);
    ck_assert_int_eq(scn_cron_parse("@daily", &c, err, sizeof err), 0);
    kc_parse_time("2026-01-08T00:00:00Z", &want);
    ck_assert_double_eq(scn_cron_next(&c, t0, t0), want);
    ck_assert_int_eq(scn_cron_parse("* * *", &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "bad schedule '* * *': expected 5 cron fields or @every");
    ck_assert_int_eq(scn_cron_parse("@every never", &c, err, sizeof err), -1);
    ck_assert_int_eq(scn_cron_parse("*/0 * * * *", &c, err, sizeof err), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scenario");
    TCase *tc = tcase_create("scenario");
    tcase_add_test(tc, basic_fixture_parses_into_its_runs);
    tcase_add_test(tc, errors_name_file_and_line);
    tcase_add_test(tc, missing_file_is_an_error);
    tcase_add_test(tc, defaults_and_empty_file);
    tcase_add_test(tc, builtin_scenarios);
    tcase_add_test(tc, sizes_and_durations);
    tcase_add_test(tc, cron_fires_when_expected);
    tcase_add_test(tc, pace_jitter_and_schedule_parse);
    tcase_add_test(tc, demo_history_follows_the_clusters_clock);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
