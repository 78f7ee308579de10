/* test_simctl.c: the simulated Velero controller plays scenario files to the expected phases and
 * counts, never moves progress backwards, keeps resourceProgress consistent, and serves
 * DownloadRequest artifacts in Velero's formats. Runs at high speed against a real simstore. */
#include <check.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts.h"
#include "kubeclient/util.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

#define SCN(f) FIXTURES_DIR "/scenarios/" f

static cJSON *jpath(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && cur;
         k = strtok_r(NULL, ".", &save))
        cur = cJSON_GetObjectItemCaseSensitive(cur, k);
    return (cJSON *)cur;
}

static double jnum(const cJSON *o, const char *path)
{
    cJSON *v = jpath(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *jstr(const cJSON *o, const char *path)
{
    const char *s = cJSON_GetStringValue(jpath(o, path));
    return s ? s : "";
}

static const char *label(const cJSON *o, const char *key)
{
    const char *s =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(jpath(o, "metadata.labels"), key));
    return s ? s : "";
}

/* ---- watching every event ---- */

#define MAXTRACK 256
typedef struct tracker {
    const char *plural;
    simstore_watch *w;
    struct {
        char name[128];
        double value, min_total;
    } last[MAXTRACK];
    int n;
    int events, violations, rp_mismatch, rp_seen, waiting;
} tracker;

static double *last_of(tracker *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->last[i].name, name)) return &t->last[i].value;
    ck_assert_int_lt(t->n, MAXTRACK);
    snprintf(t->last[t->n].name, sizeof t->last[t->n].name, "%s", name);
    t->last[t->n].value = -1;
    t->last[t->n].min_total = 1e18;
    return &t->last[t->n++].value;
}

static int idx_of(tracker *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->last[i].name, name)) return i;
    ck_abort_msg("%s never seen", name);
    return -1;
}

static void check_event(tracker *t, const cJSON *obj)
{
    t->events++;
    const char *name = jstr(obj, "metadata.name");
    double v;
    if (!strcmp(t->plural, "backups") || !strcmp(t->plural, "restores")) {
        const char *done_key = !strcmp(t->plural, "backups") ? "status.progress.itemsBackedUp"
                                                             : "status.progress.itemsRestored";
        v = jnum(obj, done_key);
        if (!strncmp(jstr(obj, "status.phase"), "WaitingForPluginOperations", 26)) t->waiting++;
        cJSON *rp = jpath(obj, "status.resourceProgress");
        if (rp) {
            t->rp_seen++;
            double sp = 0, stot = 0;
            cJSON *e;
            cJSON_ArrayForEach(e, rp)
            {
                sp += jnum(e, "processed");
                stot += jnum(e, "total");
            }
            if (sp != v || stot != jnum(obj, "status.progress.totalItems")) t->rp_mismatch++;
        }
    } else {
        v = jnum(obj, "status.progress.bytesDone");
    }
    double *last = last_of(t, name);
    if (v < *last) t->violations++;
    *last = v;
    double tot = jnum(obj, "status.progress.totalItems");
    int i = idx_of(t, name);
    if (tot > 0 && tot < t->last[i].min_total) t->last[i].min_total = tot;
}

static void drain(tracker *ts, int n, int timeout_ms)
{
    for (int i = 0; i < n; i++) {
        const char *type;
        uint64_t rv;
        cJSON *ev;
        while ((ev = simstore_watch_next(ts[i].w, i == n - 1 ? timeout_ms : 0, &type, &rv))) {
            if (strcmp(type, "DELETED")) check_event(&ts[i], ev);
            cJSON_Delete(ev);
            if (i == n - 1) timeout_ms = 0;
        }
    }
}

static int is_terminal(const char *phase)
{
    return !strcmp(phase, "Completed") || !strcmp(phase, "PartiallyFailed") ||
           !strcmp(phase, "Failed");
}

static const char *phase_of(simstore *s, const char *plural, const char *name)
{
    static char buf[64];
    cJSON *o = simstore_get(s, plural, "velero", name);
    snprintf(buf, sizeof buf, "%s", o ? jstr(o, "status.phase") : "");
    cJSON_Delete(o);
    return buf;
}

static int count_completed_schedule_backups(simstore *s)
{
    uint64_t rv;
    int st;
    char *msg = NULL;
    cJSON *l = simstore_list(s, "backups", "velero", "velero.io/schedule-name=every5", NULL, &rv,
                             &st, &msg);
    free(msg);
    int n = 0;
    cJSON *o;
    cJSON_ArrayForEach(o, l) n += !strcmp(jstr(o, "status.phase"), "Completed");
    cJSON_Delete(l);
    return n;
}

static int basic_done(simstore *s)
{
    static const char *b[] = {"backup-done", "backup-inprogress", "backup-failed",
                              "backup-partial"};
    for (size_t i = 0; i < 4; i++)
        if (!is_terminal(phase_of(s, "backups", b[i]))) return 0;
    if (!is_terminal(phase_of(s, "restores", "restore-done"))) return 0;
    if (!is_terminal(phase_of(s, "restores", "restore-inprogress"))) return 0;
    return count_completed_schedule_backups(s) >= 2;
}

static const char *restic_bin; /* NULL = from PATH */

static simctl *start(simstore *s, const char *scenario, double speed, int rp)
{
    if (getenv("VELTOP_UNDER_VALGRIND")) speed /= 4; /* keep enough ticks per run */
    simctl_opts o = {.scenario = scenario,
                     .speed = speed,
                     .seed = 7,
                     .resource_progress = rp,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1,
                     .restic = restic_bin};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "simctl_start: %s", err);
    return c;
}

static const char *plurals[] = {"backups",           "restores",    "podvolumebackups",
                                "podvolumerestores", "datauploads", "datadownloads"};
#define NPL 6

static void open_trackers(simstore *s, tracker *ts)
{
    memset(ts, 0, NPL * sizeof *ts);
    for (int i = 0; i < NPL; i++) {
        ts[i].plural = plurals[i];
        int gone;
        ts[i].w = simstore_watch_open(s, plurals[i], "velero", NULL, NULL, 0, &gone);
        ck_assert_ptr_nonnull(ts[i].w);
    }
}

static void close_trackers(tracker *ts)
{
    for (int i = 0; i < NPL; i++) simstore_watch_close(ts[i].w);
}

START_TEST(basic_scenario_ends_in_expected_phases_and_counts)
{
    simstore *s = simstore_new(500000);
    tracker ts[NPL];
    open_trackers(s, ts);
    simctl *c = start(s, SCN("basic.yaml"), 200, 1);
    int64_t deadline = kc_now_ms() + 60000;
    while (!basic_done(s) && kc_now_ms() < deadline) drain(ts, NPL, 50);
    drain(ts, NPL, 0);
    ck_assert_msg(basic_done(s), "basic scenario did not finish in time");

    /* progress never went backwards in any event; resourceProgress always summed up */
    for (int i = 0; i < NPL; i++) {
        ck_assert_msg(ts[i].violations == 0, "%s: progress decreased", plurals[i]);
        ck_assert_msg(ts[i].rp_mismatch == 0, "%s: resourceProgress sums differ", plurals[i]);
        ck_assert_int_gt(ts[i].events, 0);
    }
    ck_assert_int_gt(ts[0].rp_seen, 8);
    ck_assert_int_gt(ts[0].waiting, 0); /* backup-inprogress waited for its DataUpload */

    cJSON *b = simstore_get(s, "backups", "velero", "backup-done");
    ck_assert_str_eq(jstr(b, "status.phase"), "Completed");
    ck_assert_int_eq((int)jnum(b, "status.progress.totalItems"), 55);
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 55);
    ck_assert_int_eq((int)jnum(b, "status.warnings"), 2);
    ck_assert_int_eq((int)jnum(b, "status.errors"), 0);
    ck_assert_int_eq((int)jnum(b, "status.hookStatus.hooksAttempted"), 2);
    ck_assert_str_eq(label(b, "velero.io/storage-location"), "default");
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.processed"), 20);
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.total"), 20);
    double st, ex, done;
    ck_assert_int_eq(kc_parse_time(jstr(b, "status.startTimestamp"), &st), 0);
    ck_assert_int_eq(kc_parse_time(jstr(b, "status.expiration"), &ex), 0);
    ck_assert_int_eq(kc_parse_time(jstr(b, "status.completionTimestamp"), &done), 0);
    ck_assert_double_eq(ex - st, 720 * 3600.0);
    ck_assert(done > st);
    /* resourceProgress keys in processing order */
    cJSON *first = jpath(b, "status.resourceProgress")->child;
    ck_assert_str_eq(first->string, "namespaces");
    ck_assert_str_eq(first->next->string, "pods");
    ck_assert_str_eq(first->next->next->string, "deployments.apps");
    cJSON_Delete(b);

    b = simstore_get(s, "backups", "velero", "backup-inprogress");
    ck_assert_str_eq(jstr(b, "status.phase"), "Completed");
    ck_assert_int_eq((int)jnum(b, "status.progress.totalItems"), 115);
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 115);
    ck_assert_int_eq((int)jnum(b, "status.warnings"), 1);
    ck_assert_int_eq((int)jnum(b, "status.backupItemOperationsAttempted"), 1);
    ck_assert_int_eq((int)jnum(b, "status.backupItemOperationsCompleted"), 1);
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.total"), 40);
    cJSON_Delete(b);
    /* its estimate grew: the pods' 4 added items were not in the first estimate */
    ck_assert_double_eq(ts[0].last[idx_of(&ts[0], "backup-inprogress")].min_total, 113);

    b = simstore_get(s, "backups", "velero", "backup-failed");
    ck_assert_str_eq(jstr(b, "status.phase"), "Failed");
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 10);
    ck_assert_int_eq((int)jnum(b, "status.progress.totalItems"), 20);
    ck_assert_int_eq((int)jnum(b, "status.errors"), 1);
    ck_assert_str_eq(jstr(b, "status.failureReason"),
                     "rpc error: code = Unavailable desc = error reading from server: EOF");
    ck_assert_str_ne(jstr(b, "status.completionTimestamp"), "");
    cJSON_Delete(b);

    b = simstore_get(s, "backups", "velero", "backup-partial");
    ck_assert_str_eq(jstr(b, "status.phase"), "PartiallyFailed");
    ck_assert_int_eq((int)jnum(b, "status.errors"), 3);
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 30);
    cJSON_Delete(b);

    cJSON *r = simstore_get(s, "restores", "velero", "restore-inprogress");
    ck_assert_str_eq(jstr(r, "status.phase"), "Completed");
    ck_assert_int_eq((int)jnum(r, "status.progress.itemsRestored"), 55);
    ck_assert_int_eq((int)jnum(r, "status.progress.totalItems"), 55);
    ck_assert_str_eq(jstr(r, "spec.backupName"), "backup-done");
    cJSON_Delete(r);

    /* volumes: names, labels, uploaders, bytes reach their totals */
    uint64_t rv;
    int stc;
    char *msg = NULL;
    regex_t re;
    ck_assert_int_eq(regcomp(&re, "^backup-inprogress-[a-z0-9]{5}$", REG_EXTENDED | REG_NOSUB), 0);
    cJSON *l = simstore_list(s, "podvolumebackups", "velero",
                             "velero.io/backup-name=backup-inprogress", NULL, &rv, &stc, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 2);
    int kopia = 0, restic = 0;
    cJSON *o;
    cJSON_ArrayForEach(o, l)
    {
        ck_assert_int_eq(regexec(&re, jstr(o, "metadata.name"), 0, NULL, 0), 0);
        ck_assert_str_eq(jstr(o, "status.phase"), "Completed");
        double total = jnum(o, "status.progress.totalBytes");
        ck_assert_double_eq(jnum(o, "status.progress.bytesDone"), total);
        if (!strcmp(jstr(o, "spec.uploaderType"), "kopia")) {
            kopia++;
            ck_assert_double_eq(total, 200.0 * 1048576);
            ck_assert_str_eq(jstr(o, "spec.pod.name"), "postgres-0");
            ck_assert_str_eq(jstr(o, "spec.volume"), "pgdata");
        } else if (!strcmp(jstr(o, "spec.uploaderType"), "restic")) {
            restic++;
            ck_assert_double_eq(total, 120.0 * 1048576);
        }
        ck_assert_str_ne(label(o, "velero.io/backup-uid"), "");
        ck_assert_str_ne(jstr(o, "status.acceptedTimestamp"), "");
        ck_assert_str_ne(jstr(o, "status.startTimestamp"), "");
        ck_assert_str_ne(jstr(o, "status.completionTimestamp"), "");
    }
    ck_assert_int_eq(kopia, 1);
    ck_assert_int_eq(restic, 1);
    cJSON_Delete(l);
    l = simstore_list(s, "datauploads", "velero", "velero.io/backup-name=backup-inprogress", NULL,
                      &rv, &stc, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    o = cJSON_GetArrayItem(l, 0);
    ck_assert_int_eq(regexec(&re, jstr(o, "metadata.name"), 0, NULL, 0), 0);
    ck_assert_str_eq(jstr(o, "apiVersion"), "velero.io/v2alpha1");
    ck_assert_str_eq(jstr(o, "status.phase"), "Completed");
    ck_assert_str_eq(jstr(o, "spec.sourcePVC"), "invoices-data");
    ck_assert_str_eq(jstr(o, "spec.snapshotType"), "CSI");
    ck_assert_str_ne(jstr(o, "status.node"), "");
    ck_assert_double_eq(jnum(o, "status.progress.bytesDone"), 1073741824.0);
    ck_assert_double_eq(jnum(o, "status.progress.totalBytes"), 1073741824.0);
    cJSON_Delete(l);
    regfree(&re);
    l = simstore_list(s, "podvolumerestores", "velero", "velero.io/restore-name=restore-inprogress",
                      NULL, &rv, &stc, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    ck_assert_str_ne(jstr(cJSON_GetArrayItem(l, 0), "status.node"), "");
    cJSON_Delete(l);
    l = simstore_list(s, "datadownloads", "velero", "velero.io/restore-name=restore-inprogress",
                      NULL, &rv, &stc, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    ck_assert_str_eq(jstr(cJSON_GetArrayItem(l, 0), "status.phase"), "Completed");
    cJSON_Delete(l);

    /* schedule backups: <schedule>-<YYYYMMDDhhmmss> on 5-minute boundaries, labelled */
    l = simstore_list(s, "backups", "velero", "velero.io/schedule-name=every5", NULL, &rv, &stc,
                      &msg);
    ck_assert_int_ge(cJSON_GetArraySize(l), 2);
    ck_assert_int_eq(
        regcomp(&re, "^every5-20[0-9]{6}[0-2][0-9][0-5][05]00$", REG_EXTENDED | REG_NOSUB), 0);
    cJSON_ArrayForEach(o, l)
        ck_assert_int_eq(regexec(&re, jstr(o, "metadata.name"), 0, NULL, 0), 0);
    regfree(&re);
    cJSON_Delete(l);
    cJSON *sc = simstore_get(s, "schedules", "velero", "every5");
    ck_assert_str_eq(jstr(sc, "status.phase"), "Enabled");
    ck_assert_str_ne(jstr(sc, "status.lastBackup"), "");
    cJSON_Delete(sc);
    cJSON *bsl = simstore_get(s, "backupstoragelocations", "velero", "default");
    ck_assert_str_eq(jstr(bsl, "status.phase"), "Available");
    cJSON_Delete(bsl);

    simctl_stop(c);
    close_trackers(ts);
    simstore_free(s);
}
END_TEST

/* Stock Velero by default: no release writes status.resourceProgress, so the sim writes none
 * unless asked (resource_progress, or the scenario's switch). */
START_TEST(stock_by_default_omits_the_map)
{
    simstore *s = simstore_new(500000);
    tracker ts[NPL];
    open_trackers(s, ts);
    simctl *c = start(s, SCN("basic.yaml"), 200, 0);
    int64_t deadline = kc_now_ms() + 60000;
    while (!basic_done(s) && kc_now_ms() < deadline) drain(ts, NPL, 50);
    drain(ts, NPL, 0);
    ck_assert(basic_done(s));
    ck_assert_int_gt(ts[0].events, 8);
    ck_assert_int_eq(ts[0].rp_seen, 0);
    ck_assert_int_eq(ts[1].rp_seen, 0);
    ck_assert_int_eq(ts[0].violations, 0);
    cJSON *b = simstore_get(s, "backups", "velero", "backup-done");
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 55);
    ck_assert_ptr_null(jpath(b, "status.resourceProgress"));
    cJSON_Delete(b);
    simctl_stop(c);
    close_trackers(ts);
    simstore_free(s);
}
END_TEST

/* A scenario's `resource_progress: true` asks for the map without the option. */
START_TEST(scenario_switch_asks_for_the_map)
{
    char path[] = "/tmp/test-simctl-rp-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char yaml[] =
        "resource_progress: true\n"
        "namespaces: [shop]\n"
        "runs:\n"
        "  - {kind: backup, name: rp, start: -1h, rate: 5,\n"
        "     resources: [{name: pods, items: 4}, {name: secrets, items: 2}]}\n";
    ck_assert_int_eq(write(fd, yaml, sizeof yaml - 1), (int)sizeof yaml - 1);
    close(fd);
    simstore *s = simstore_new(1000);
    simctl *c = start(s, path, 100, 0);
    cJSON *b = simstore_get(s, "backups", "velero", "rp");
    ck_assert_str_eq(jstr(b, "status.phase"), "Completed");
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.processed"), 4);
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.total"), 4);
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.secrets.total"), 2);
    cJSON_Delete(b);
    simctl_stop(c);
    simstore_free(s);
    unlink(path);
}
END_TEST

/* ---- DownloadRequests ---- */

/* Creates a DownloadRequest and waits for the controller to process it; returns the URL's token. */
static char *download_token(simstore *s, const char *name, const char *kind, const char *target)
{
    cJSON *dr = cJSON_CreateObject();
    cJSON_AddStringToObject(dr, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(dr, "kind", "DownloadRequest");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(dr, "metadata"), "name", name);
    cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(dr, "spec"), "target");
    cJSON_AddStringToObject(t, "kind", kind);
    cJSON_AddStringToObject(t, "name", target);
    int st;
    char *msg = NULL;
    cJSON *created = simstore_create(s, "downloadrequests", "velero", dr, &st, &msg);
    ck_assert_msg(created != NULL, "create: %s", msg ? msg : "");
    cJSON_Delete(created);
    cJSON *got = NULL;
    int64_t deadline = kc_now_ms() + 10000;
    for (;;) {
        got = simstore_get(s, "downloadrequests", "velero", name);
        if (!strcmp(jstr(got, "status.phase"), "Processed") || kc_now_ms() > deadline) break;
        cJSON_Delete(got);
        /* wait for the controller's next write instead of sleeping blind */
        int gone;
        simstore_watch *w = simstore_watch_open(s, "downloadrequests", "velero", NULL,
                                                "metadata.name=x-never", simstore_rv(s), &gone);
        const char *type;
        uint64_t rv;
        cJSON_Delete(simstore_watch_next(w, 20, &type, &rv));
        simstore_watch_close(w);
    }
    ck_assert_str_eq(jstr(got, "status.phase"), "Processed");
    const char *url = jstr(got, "status.downloadURL");
    const char *prefix = "http://127.0.0.1:9/download/";
    ck_assert_int_eq(strncmp(url, prefix, strlen(prefix)), 0);
    double exp;
    ck_assert_int_eq(kc_parse_time(jstr(got, "status.expiration"), &exp), 0);
    ck_assert(exp > kc_wall_now() + 590 && exp < kc_wall_now() + 610);
    char *token = xstrdup(url + strlen(prefix));
    cJSON_Delete(got);
    return token;
}

static char *request_artifact(simstore *s, simctl *c, const char *name, const char *kind,
                              const char *target, size_t *outlen, char **token_out)
{
    char *token = download_token(s, name, kind, target);
    unsigned char *gz;
    size_t gzlen;
    int status;
    ck_assert_int_eq(simctl_download(c, token, &gz, &gzlen, &status), 0);
    ck_assert_int_eq(status, 200);
    ck_assert(gzlen > 2 && gz[0] == 0x1f && gz[1] == 0x8b);
    char *text = artifacts_gunzip(gz, gzlen, outlen);
    ck_assert_ptr_nonnull(text);
    free(gz);
    if (token_out)
        *token_out = token;
    else
        free(token);
    return text;
}

static int count_substr(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static int results_count(const cJSON *res)
{
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "velero")) +
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "cluster"));
    cJSON *ns;
    cJSON_ArrayForEach(ns, cJSON_GetObjectItemCaseSensitive(res, "namespaces")) n +=
        cJSON_GetArraySize(ns);
    return n;
}

/* As Velero v1.18: a request for a Backup that exists but was not run here is signed (its
 * download answers 404: nothing was stored); one for a missing Backup stays unprocessed. */
START_TEST(download_requests_for_runs_the_controller_did_not_run)
{
    simstore *s = simstore_new(1000);
    simctl_opts o = {.scenario = "empty",
                     .speed = 50,
                     .seed = 7,
                     .passive = 1,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "simctl_start: %s", err);
    cJSON *b = cJSON_Parse("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\","
                           "\"metadata\":{\"name\":\"external-1\"},"
                           "\"status\":{\"phase\":\"Completed\"}}");
    int st;
    char *msg = NULL;
    cJSON_Delete(simstore_create(s, "backups", "velero", b, &st, &msg));
    free(msg);
    cJSON *dr = cJSON_Parse("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"DownloadRequest\","
                            "\"metadata\":{\"name\":\"dr-missing\"},\"spec\":{\"target\":"
                            "{\"kind\":\"BackupLog\",\"name\":\"no-such-backup\"}}}");
    msg = NULL;
    cJSON_Delete(simstore_create(s, "downloadrequests", "velero", dr, &st, &msg));
    free(msg);

    char *token = download_token(s, "dr-external", "BackupLog", "external-1");
    unsigned char *d;
    size_t len;
    int status;
    ck_assert_int_eq(simctl_download(c, token, &d, &len, &status), -1);
    ck_assert_int_eq(status, 404);
    free(token);
    /* processed in the same pass as dr-external, in list order: it would have been by now */
    cJSON *missing = simstore_get(s, "downloadrequests", "velero", "dr-missing");
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(missing, "status"));
    cJSON_Delete(missing);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

START_TEST(download_requests_serve_gzip_artifacts)
{
    simstore *s = simstore_new(500000);
    simctl *c = start(s, SCN("basic.yaml"), 2000, 1);
    size_t len;
    char *token;
    char *log = request_artifact(s, c, "dr-log", "BackupLog", "backup-done", &len, &token);
    ck_assert_int_eq(count_substr(log, "msg=\"Processing item\""), 55);
    ck_assert_int_eq(count_substr(log, "msg=\"Getting items for resource\""), 8);
    ck_assert_ptr_nonnull(
        strstr(log, "msg=\"Getting items for resource\" backup=velero/backup-done group=apps/v1 "
                    "logSource=\"pkg/backup/item_collector.go:364\" resource=deployments\n"));
    ck_assert_ptr_nonnull(strstr(log, "msg=\"Retrieved 10 items\" backup=velero/backup-done "));
    ck_assert_ptr_nonnull(strstr(log, "namespace=shop resource=pods\n"));
    ck_assert_ptr_nonnull(strstr(log, "msg=\"Backed up a total of 55 items\""));
    ck_assert_ptr_nonnull(strstr(log, "msg=\"Backed up 55 items out of an estimated total of 55 "
                                      "(estimate will change throughout the backup)\""));
    ck_assert_ptr_nonnull(strstr(log, "progress= resource=deployments.apps\n"));
    ck_assert_ptr_nonnull(strstr(log, "msg=\"Collected 55 items matching the backup spec"));
    ck_assert_int_eq(count_substr(log, " level=warning "), 2);
    ck_assert_int_eq(count_substr(log, " level=error "), 0);
    ck_assert_int_eq(strncmp(log, "time=\"", 6), 0);
    free(log);

    char *rl = request_artifact(s, c, "dr-rl", "BackupResourceList", "backup-done", &len, NULL);
    cJSON *j = cJSON_Parse(rl);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(cJSON_GetArraySize(j), 8);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "v1/Pod")), 20);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "apps/v1/Deployment")),
                     5);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "v1/Namespace")), 2);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "v1/PersistentVolume")),
                     2);
    const char *ns0 = cJSON_GetStringValue(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "v1/Namespace"), 0));
    ck_assert_str_eq(ns0, "billing"); /* sorted, cluster-scoped: no namespace/ prefix */
    const char *pod0 =
        cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "v1/Pod"), 0));
    ck_assert_int_eq(strncmp(pod0, "billing/", 8), 0);
    cJSON_Delete(j);
    free(rl);

    char *res = request_artifact(s, c, "dr-res", "BackupResults", "backup-partial", &len, NULL);
    j = cJSON_Parse(res);
    ck_assert_int_eq(results_count(cJSON_GetObjectItemCaseSensitive(j, "errors")), 3);
    ck_assert_int_eq(results_count(cJSON_GetObjectItemCaseSensitive(j, "warnings")), 1);
    cJSON_Delete(j);
    free(res);

    res = request_artifact(s, c, "dr-res2", "BackupResults", "backup-failed", &len, NULL);
    j = cJSON_Parse(res);
    ck_assert_int_eq(results_count(cJSON_GetObjectItemCaseSensitive(j, "errors")), 1);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(jpath(j, "errors.velero"), 0)),
                     "rpc error: code = Unavailable desc = error reading from server: EOF");
    cJSON_Delete(j);
    free(res);

    rl = request_artifact(s, c, "dr-rrl", "RestoreResourceList", "restore-done", &len, NULL);
    j = cJSON_Parse(rl);
    cJSON *pods = cJSON_GetObjectItemCaseSensitive(j, "v1/Pod");
    ck_assert_int_eq(cJSON_GetArraySize(pods), 20);
    const char *p0 = cJSON_GetStringValue(cJSON_GetArrayItem(pods, 0));
    ck_assert_str_eq(p0 + strlen(p0) - 9, "(created)");
    cJSON_Delete(j);
    free(rl);

    char *rlog = request_artifact(s, c, "dr-rlog", "RestoreLog", "restore-done", &len, NULL);
    ck_assert_ptr_nonnull(strstr(rlog, "msg=\"Restored 55 items out of an estimated total of 55 "
                                       "(estimate will change throughout the restore)\""));
    ck_assert_ptr_nonnull(strstr(rlog, " restore=velero/restore-done"));
    free(rlog);

    /* unknown token 404, expired 410 */
    unsigned char *d;
    int status;
    ck_assert_int_eq(simctl_download(c, "nope", &d, &len, &status), -1);
    ck_assert_int_eq(status, 404);
    simctl_expire_downloads(c);
    ck_assert_int_eq(simctl_download(c, token, &d, &len, &status), -1);
    ck_assert_int_eq(status, 410);
    free(token);

    /* the server pod's log carries the in-flight runs' lines */
    size_t pos = 0, n = 0;
    double *times = NULL;
    char **lines = simstore_log_read(s, sim_velero_pod_name(), &pos, 1000, &n, &times);
    ck_assert_int_gt(n, 0);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += strstr(lines[i], "backup=velero/backup-inprogress") != NULL;
        free(lines[i]);
    }
    free(lines);
    free(times);
    ck_assert_int_gt(seen, 0);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

/* opts.manual: the caller moves simulated time; a pace profile slows and speeds a run's items
 * and bytes, the same for the same seed. */
static void manual_items_bytes(double at, int *items, double *bytes, unsigned seed)
{
    char path[] = "/tmp/test_simctl_pace_XXXXXX";
    int fd = mkstemp(path);
    const char *y = "epoch: \"2026-01-01T00:00:00Z\"\nruns:\n  - kind: backup\n    name: p\n"
                    "    rate: 10\n    jitter: 0.2\n"
                    "    pace: [{at: 100, factor: 0.5}]\n    resources:\n"
                    "      - {name: pods, items: 5000}\n    volumes:\n"
                    "      - {pod: db-0, namespace: shop, volume: d, uploader: kopia, size: 10Gi, "
                    "rate: 1Mi}\n";
    ck_assert_int_eq(write(fd, y, strlen(y)), (int)strlen(y));
    close(fd);
    simstore *s = simstore_new(1 << 14);
    simctl_opts o = {
        .scenario = path, .speed = 1, .seed = seed, .ns = "velero", .quiet = 1, .manual = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    unlink(path);
    ck_assert_msg(c != NULL, "%s", err);
    double e = simctl_epoch(c);
    ck_assert_double_eq(e, 1767225600.0);
    for (double t = e; t <= e + at; t += 1) simctl_advance(c, t);
    ck_assert_double_eq(simctl_now(c), e + at);
    cJSON *b = simstore_get(s, "backups", "velero", "p");
    *items = (int)jnum(b, "status.progress.itemsBackedUp");
    cJSON_Delete(b);
    cJSON *l = simstore_list(s, "podvolumebackups", "velero", NULL, NULL, NULL, NULL, NULL);
    *bytes = jnum(cJSON_GetArrayItem(l, 0), "status.progress.bytesDone");
    cJSON_Delete(l);
    simctl_stop(c);
    simstore_free(s);
}

START_TEST(manual_clock_and_pace_profile)
{
    int i1, i2, i3;
    double b1, b2, b3;
    manual_items_bytes(300, &i1, &b1, 3);
    manual_items_bytes(300, &i2, &b2, 3);
    ck_assert_int_eq(i1, i2); /* deterministic */
    ck_assert_double_eq(b1, b2);
    /* items start 2 s in: ~100 s at 10/s, then ~198 s at 5/s: ~1990, give or take the jitter */
    ck_assert_msg(i1 > 1700 && i1 < 2300, "items %d", i1);
    ck_assert_msg(i1 < 2900, "the pace profile did not slow the run");
    /* bytes at 1 MiB/s x the same pace: well under 300 MiB */
    ck_assert_msg(b1 > 150.0 * 1048576 && b1 < 260.0 * 1048576, "bytes %g", b1);
    manual_items_bytes(300, &i3, &b3, 4);
    ck_assert_msg(i3 != i1 || b3 != b1, "another seed, the same jitter");
}
END_TEST

START_TEST(stalled_volume_stops_moving_and_holds_the_backup)
{
    simstore *s = simstore_new(500000);
    simctl *c = start(s, SCN("stall.yaml"), 1000, 1);
    /* stall.yaml: volume "stuck" stalls at half of 100Mi for good, "slow" pauses 60 s */
    int64_t deadline = kc_now_ms() + 30000;
    while (kc_now_ms() < deadline && strcmp(phase_of(s, "backups", "other"), "Completed")) {
        int gone;
        simstore_watch *w =
            simstore_watch_open(s, "backups", "velero", NULL, NULL, simstore_rv(s), &gone);
        const char *type;
        uint64_t rv;
        cJSON_Delete(simstore_watch_next(w, 50, &type, &rv));
        simstore_watch_close(w);
    }
    ck_assert_str_eq(phase_of(s, "backups", "other"), "Completed");
    /* 'other' takes 600 simulated seconds; by then 'slow' is done and 'stuck' is still stuck */
    ck_assert_str_eq(phase_of(s, "backups", "stalling"), "InProgress");
    uint64_t rv;
    int st;
    char *msg = NULL;
    cJSON *l = simstore_list(s, "podvolumebackups", "velero", "velero.io/backup-name=stalling",
                             NULL, &rv, &st, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 2);
    cJSON *o;
    cJSON_ArrayForEach(o, l)
    {
        if (!strcmp(jstr(o, "spec.volume"), "stuck")) {
            ck_assert_str_eq(jstr(o, "status.phase"), "InProgress");
            ck_assert_double_eq(jnum(o, "status.progress.bytesDone"), 50.0 * 1048576);
        } else {
            ck_assert_str_eq(jstr(o, "status.phase"), "Completed");
            ck_assert_double_eq(jnum(o, "status.progress.bytesDone"), 10.0 * 1048576);
        }
    }
    cJSON_Delete(l);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

static cJSON *wait_backup_final(simstore *s, const char *name, int ms)
{
    int64_t deadline = kc_now_ms() + ms;
    while (kc_now_ms() < deadline && !is_terminal(phase_of(s, "backups", name))) {
        int gone;
        simstore_watch *w =
            simstore_watch_open(s, "backups", "velero", NULL, NULL, simstore_rv(s), &gone);
        const char *type;
        uint64_t rv;
        cJSON_Delete(simstore_watch_next(w, 100, &type, &rv));
        simstore_watch_close(w);
    }
    uint64_t rv;
    int st;
    char *msg = NULL;
    cJSON *l = simstore_list(s, "podvolumebackups", "velero", NULL, NULL, &rv, &st, &msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    cJSON *pvb = cJSON_DetachItemFromArray(l, 0);
    cJSON_Delete(l);
    return pvb;
}

/* restic from PATH (malloc'd), or NULL when it is not installed. */
static char *restic_in_path(void)
{
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = xasprintf("%s/restic", d);
        if (access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

static int all_hex(const char *s)
{
    return *s && strspn(s, "0123456789abcdef") == strlen(s);
}

START_TEST(restic_real_runs_restic_and_copies_its_progress)
{
    char *real = restic_in_path();
    if (!real) {
        printf("SKIP: restic_real_runs_restic_and_copies_its_progress: restic is not installed\n");
        return;
    }
    /* a wrapper that records how the sim runs restic, then runs the real one */
    char dir[] = "/tmp/test-simctl-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *wrapper = xasprintf("%s/restic", dir), *calls = xasprintf("%s/calls", dir);
    FILE *fp = fopen(wrapper, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "#!/bin/sh\necho \"$* repo=$RESTIC_REPOSITORY\" >>'%s'\nexec '%s' \"$@\"\n", calls,
            real);
    fclose(fp);
    ck_assert_int_eq(chmod(wrapper, 0755), 0);
    restic_bin = wrapper;
    simstore *s = simstore_new(100000);
    simctl *c = start(s, SCN("restic.yaml"), 10, 1);
    restic_bin = NULL;
    cJSON *pvb = wait_backup_final(s, "real-restic", 90000);
    ck_assert_str_eq(phase_of(s, "backups", "real-restic"), "Completed");
    ck_assert_str_eq(jstr(pvb, "status.phase"), "Completed");
    ck_assert_str_eq(jstr(pvb, "spec.uploaderType"), "restic");
    ck_assert_double_eq(jnum(pvb, "status.progress.totalBytes"), 8388608.0);
    ck_assert_double_eq(jnum(pvb, "status.progress.bytesDone"), 8388608.0);
    /* restic's own snapshot ID (short in 0.14, full later); simulated ones are 32 hex digits */
    const char *snap = jstr(pvb, "status.snapshotID");
    ck_assert_msg(all_hex(snap) && (strlen(snap) == 8 || strlen(snap) == 64), "snapshot ID %s",
                  snap);
    ck_assert_str_eq(jstr(pvb, "status.message"), "");
    cJSON_Delete(pvb);
    simctl_stop(c);
    simstore_free(s);
    /* restic was run: init, then backup --json of the generated data, in one temporary repo */
    fp = fopen(calls, "r");
    ck_assert_ptr_nonnull(fp);
    char l1[1024] = "", l2[1024] = "", l3[16] = "";
    ck_assert_ptr_nonnull(fgets(l1, sizeof l1, fp));
    ck_assert_ptr_nonnull(fgets(l2, sizeof l2, fp));
    ck_assert_ptr_null(fgets(l3, sizeof l3, fp));
    fclose(fp);
    regex_t re;
    ck_assert_int_eq(regcomp(&re, "^--no-cache init repo=(/tmp/vsim-restic-[A-Za-z0-9]{6})/repo\n$",
                             REG_EXTENDED),
                     0);
    regmatch_t m[2];
    ck_assert_msg(regexec(&re, l1, 2, m, 0) == 0, "first call: %s", l1);
    regfree(&re);
    char *tmp = strndup(l1 + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
    char *want = xasprintf("--no-cache backup --json %s/data repo=%s/repo\n", tmp, tmp);
    ck_assert_str_eq(l2, want);
    ck_assert_int_eq(access(tmp, F_OK), -1); /* removed afterwards */
    free(want);
    free(tmp);
    unlink(calls);
    unlink(wrapper);
    rmdir(dir);
    free(calls);
    free(wrapper);
    free(real);
}
END_TEST

START_TEST(restic_real_without_restic_falls_back_to_simulation)
{
    restic_bin = "/nonexistent/restic";
    simstore *s = simstore_new(100000);
    simctl *c = start(s, SCN("restic.yaml"), 50, 1);
    restic_bin = NULL;
    cJSON *pvb = wait_backup_final(s, "real-restic", 60000);
    ck_assert_str_eq(jstr(pvb, "status.phase"), "Completed");
    ck_assert_double_eq(jnum(pvb, "status.progress.bytesDone"), 8388608.0);
    ck_assert_str_eq(jstr(pvb, "status.message"), "restic not available, progress is simulated");
    cJSON_Delete(pvb);
    size_t pos = 0, n = 0;
    double *times = NULL;
    char **lines = simstore_log_read(s, sim_velero_pod_name(), &pos, 1000, &n, &times);
    int said = 0;
    for (size_t i = 0; i < n; i++) {
        said +=
            strstr(lines[i],
                   "falls back to simulated progress: restic not found at /nonexistent/restic") !=
            NULL;
        free(lines[i]);
    }
    free(lines);
    free(times);
    ck_assert_int_eq(said, 1);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

START_TEST(backups_created_by_others_are_run)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, "empty", 100, 1);
    cJSON *b = cJSON_Parse("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":"
                           "{\"name\":\"by-hand\"},\"spec\":{\"includedNamespaces\":[\"shop\"]}}");
    int st;
    char *msg = NULL;
    cJSON_Delete(simstore_create(s, "backups", "velero", b, &st, &msg));
    int64_t deadline = kc_now_ms() + 30000;
    while (kc_now_ms() < deadline && !is_terminal(phase_of(s, "backups", "by-hand"))) {
        int gone;
        simstore_watch *w =
            simstore_watch_open(s, "backups", "velero", NULL, NULL, simstore_rv(s), &gone);
        const char *type;
        uint64_t rv;
        cJSON_Delete(simstore_watch_next(w, 100, &type, &rv));
        simstore_watch_close(w);
    }
    b = simstore_get(s, "backups", "velero", "by-hand");
    ck_assert_str_eq(jstr(b, "status.phase"), "Completed");
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 37);
    ck_assert_int_eq((int)jnum(b, "status.resourceProgress.pods.total"), 12);
    /* the backup controller labels it with its storage location, as Velero does */
    ck_assert_str_eq(label(b, "velero.io/storage-location"), "default");
    cJSON_Delete(b);
    /* the empty scenario: only the BSL and the server pod */
    cJSON *pod = simstore_get(s, "pods", "velero", sim_velero_pod_name());
    ck_assert_ptr_nonnull(pod);
    cJSON_Delete(pod);
    cJSON *bsl = simstore_get(s, "backupstoragelocations", "velero", "default");
    ck_assert_str_eq(jstr(bsl, "status.phase"), "Available");
    cJSON_Delete(bsl);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

/* ---- every phase, and the fields each sets ---- */

#define MAXFLOW 16
typedef struct flow {
    struct {
        char name[128];
        char phases[512]; /* distinct consecutive phases, comma-joined */
        double bytes_step;
    } o[MAXFLOW];
    int n;
} flow;

static char *phases_of(flow *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->o[i].name, name)) return f->o[i].phases;
    ck_assert_int_lt(f->n, MAXFLOW);
    snprintf(f->o[f->n].name, sizeof f->o[f->n].name, "%s", name);
    f->o[f->n].phases[0] = '\0';
    return f->o[f->n++].phases;
}

static void note_phase(flow *f, const char *name, const char *phase)
{
    char *p = phases_of(f, name);
    const char *last = strrchr(p, ',');
    last = last ? last + 1 : p;
    if (*p && !strcmp(last, phase)) return;
    size_t len = strlen(p);
    snprintf(p + len, 512 - len, "%s%s", len ? "," : "", phase);
}

static int is_final_phase(const char *ph)
{
    return is_terminal(ph) || !strcmp(ph, "Canceled");
}

static int has(const cJSON *o, const char *path)
{
    return jstr(o, path)[0] != '\0';
}

/* Checks the fields Velero sets in each phase of a Backup or Restore. */
static void check_run_fields(const cJSON *o, int restore)
{
    const char *name = jstr(o, "metadata.name");
    const char *ph = jstr(o, "status.phase");
    int started = strcmp(ph, "New") && strcmp(ph, "Queued") && strcmp(ph, "ReadyToStart");
    ck_assert_msg(has(o, "status.startTimestamp") == started, "%s: startTimestamp in %s", name, ph);
    ck_assert_msg((jpath(o, "status.queuePosition") != NULL) == !strcmp(ph, "Queued"),
                  "%s: queuePosition in %s", name, ph);
    if (!strcmp(ph, "Queued")) ck_assert_int_eq((int)jnum(o, "status.queuePosition"), 1);
    ck_assert_msg(has(o, "status.completionTimestamp") == is_terminal(ph),
                  "%s: completionTimestamp in %s", name, ph);
    ck_assert_msg(has(o, "status.failureReason") == !strcmp(ph, "Failed"),
                  "%s: failureReason in %s", name, ph);
    if (!restore && started) {
        double st, ex;
        ck_assert_int_eq(kc_parse_time(jstr(o, "status.startTimestamp"), &st), 0);
        ck_assert_int_eq(kc_parse_time(jstr(o, "status.expiration"), &ex), 0);
        ck_assert_double_eq(ex - st, 720 * 3600.0);
    }
    if (!strncmp(ph, "WaitingForPluginOperations", 26)) {
        char k[64];
        snprintf(k, sizeof k, "status.%sItemOperationsAttempted", restore ? "restore" : "backup");
        ck_assert_int_eq((int)jnum(o, k), 1);
    }
}

/* Checks a volume's phase fields and that bytes move on the 10 s grid (step = 10 x rate). */
static void check_vol_fields(flow *f, const cJSON *o, int datamover, int restore)
{
    const char *name = jstr(o, "metadata.name");
    const char *ph = jstr(o, "status.phase");
    int accepted = strcmp(ph, "New") != 0;
    int prepared = accepted && strcmp(ph, "Accepted") && strcmp(ph, "Canceled");
    int started = prepared && strcmp(ph, "Prepared");
    ck_assert_msg(has(o, "status.acceptedTimestamp") == accepted, "%s: acceptedTimestamp in %s",
                  name, ph);
    ck_assert_msg(has(o, "status.startTimestamp") == started, "%s: startTimestamp in %s", name, ph);
    ck_assert_msg(has(o, "status.completionTimestamp") == is_final_phase(ph),
                  "%s: completionTimestamp in %s", name, ph);
    if (datamover) {
        ck_assert_msg(has(o, "status.acceptedByNode") == accepted, "%s: acceptedByNode in %s", name,
                      ph);
        ck_assert_msg(has(o, "status.node") == prepared, "%s: node in %s", name, ph);
    } else if (!restore) {
        ck_assert_str_ne(jstr(o, "spec.node"), ""); /* PVBs have no status.node */
        ck_assert_ptr_null(jpath(o, "status.node"));
    }
    ck_assert_str_ne(label(o, restore ? "velero.io/restore-uid" : "velero.io/backup-uid"), "");
    if (datamover)
        ck_assert_int_eq(
            strncmp(label(o, "velero.io/async-operation-id"), restore ? "dd-" : "du-", 3), 0);
    double done = jnum(o, "status.progress.bytesDone");
    double total = jnum(o, "status.progress.totalBytes");
    if (done > 0 && done != total)
        ck_assert_msg(fmod(done, 10.0 * 1048576) == 0, "%s: %.0f bytes off the 10 s grid", name,
                      done);
    if (!strcmp(ph, "Completed")) ck_assert_double_eq(done, total);
    if (!strcmp(ph, "Canceled"))
        ck_assert_str_eq(jstr(o, "status.message"), "data path canceled: the backup failed");
    (void)f;
}

/* Takes every pending event (waiting up to ms for the first), noting phases and checking
 * fields. */
static void drain_flow(tracker *ts, flow *f, int ms)
{
    for (int i = 0; i < NPL; i++) {
        const char *type;
        uint64_t rv;
        cJSON *ev;
        while ((ev = simstore_watch_next(ts[i].w, ms, &type, &rv))) {
            ms = 0;
            if (strcmp(type, "DELETED")) {
                check_event(&ts[i], ev);
                note_phase(f, jstr(ev, "metadata.name"), jstr(ev, "status.phase"));
                if (i == 0 && !strcmp(jstr(ev, "metadata.name"), "flow-slow")) {
                    char pr[64];
                    snprintf(pr, sizeof pr, "%.0f/%.0f", jnum(ev, "status.progress.itemsBackedUp"),
                             jnum(ev, "status.progress.totalItems"));
                    note_phase(f, "flow-slow progress", pr);
                }
                if (i < 2)
                    check_run_fields(ev, i == 1);
                else
                    check_vol_fields(f, ev, i >= 4, i == 3 || i == 5);
            }
            cJSON_Delete(ev);
        }
        if (i == 0) ms = 0; /* wait on the backups only */
    }
}

static int flow_done(simstore *s)
{
    static const char *b[] = {"flow-du", "flow-partial", "flow-failed", "flow-slow",
                              "flow-a-very-long-backup-name-that-is-longer-than-sixty-three-"
                              "characters"};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        if (!is_terminal(phase_of(s, "backups", b[i]))) return 0;
    return is_terminal(phase_of(s, "restores", "flow-restore"));
}

static const char *vol_of(simstore *s, const char *plural, const char *lab, const char *run)
{
    static char buf[4][128];
    static int k;
    char sel[256];
    snprintf(sel, sizeof sel, "%s=%s", lab, run);
    uint64_t rv;
    int st;
    char *msg = NULL;
    cJSON *l = simstore_list(s, plural, "velero", sel, NULL, &rv, &st, &msg);
    free(msg);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", jstr(cJSON_GetArrayItem(l, 0), "metadata.name"));
    cJSON_Delete(l);
    return buf[k];
}

START_TEST(every_phase_in_order_with_its_fields)
{
    simstore *s = simstore_new(500000);
    tracker ts[NPL];
    open_trackers(s, ts);
    /* slow enough that the 0.5 s phases (New, Queued, ReadyToStart) span several 40 ms ticks */
    simctl *c = start(s, SCN("flow.yaml"), 4, 1);
    flow f = {0};
    int64_t deadline = kc_now_ms() + 90000;
    int finished = 0;
    while (!finished && kc_now_ms() < deadline) {
        finished = flow_done(s); /* then one more pass takes the events that finished it */
        drain_flow(ts, &f, finished ? 0 : 20);
    }
    ck_assert_msg(flow_done(s), "flow scenario did not finish in time");
    for (int i = 0; i < NPL; i++) {
        ck_assert_msg(ts[i].violations == 0, "%s: progress decreased", plurals[i]);
        ck_assert_msg(ts[i].rp_mismatch == 0, "%s: resourceProgress sums differ", plurals[i]);
    }
    ck_assert_str_eq(phases_of(&f, "flow-du"), "New,Queued,ReadyToStart,InProgress,"
                                               "WaitingForPluginOperations,Finalizing,Completed");
    ck_assert_str_eq(
        phases_of(&f, "flow-partial"),
        "New,Queued,ReadyToStart,InProgress,FinalizingPartiallyFailed,PartiallyFailed");
    ck_assert_str_eq(phases_of(&f, "flow-failed"), "New,Queued,ReadyToStart,InProgress,Failed");
    ck_assert_str_eq(phases_of(&f, "flow-restore"),
                     "New,InProgress,WaitingForPluginOperations,Finalizing,Completed");
    /* item progress moves on the 1 s grid; the estimate grows when the added item shows up */
    ck_assert_str_eq(phases_of(&f, "flow-slow progress"), "0/0,0/8,3/8,6/8,9/9");
    const char *vol_flow = "New,Accepted,Prepared,InProgress,Completed";
    ck_assert_str_eq(
        phases_of(&f, vol_of(s, "podvolumebackups", "velero.io/backup-name", "flow-du")), vol_flow);
    ck_assert_str_eq(phases_of(&f, vol_of(s, "datauploads", "velero.io/backup-name", "flow-du")),
                     vol_flow);
    ck_assert_str_eq(
        phases_of(&f, vol_of(s, "podvolumerestores", "velero.io/restore-name", "flow-restore")),
        vol_flow);
    ck_assert_str_eq(
        phases_of(&f, vol_of(s, "datadownloads", "velero.io/restore-name", "flow-restore")),
        vol_flow);
    ck_assert_str_eq(
        phases_of(&f, vol_of(s, "podvolumebackups", "velero.io/backup-name", "flow-failed")),
        "New,Accepted,Canceled");
    /* Velero's GetValidName for a label value over 63 characters */
    const char *lv = vol_of(s, "podvolumebackups", "velero.io/backup-name",
                            "flow-a-very-long-backup-name-that-is-longer-than-sixty-th575ea7");
    ck_assert_int_eq(
        strncmp(lv, "flow-a-very-long-backup-name-that-is-longer-than-sixty-three-c", 58), 0);
    ck_assert_uint_eq(strlen(lv), 63); /* generateName: the prefix cut to 58, then 5 */

    cJSON *b = simstore_get(s, "backups", "velero", "flow-du");
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 10);
    ck_assert_int_eq((int)jnum(b, "status.progress.totalItems"), 10);
    ck_assert_int_eq((int)jnum(b, "status.backupItemOperationsAttempted"), 1);
    ck_assert_int_eq((int)jnum(b, "status.backupItemOperationsCompleted"), 1);
    ck_assert_ptr_null(jpath(b, "status.backupItemOperationsFailed"));
    cJSON_Delete(b);
    b = simstore_get(s, "backups", "velero", "flow-partial");
    ck_assert_int_eq((int)jnum(b, "status.errors"), 1);
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 5);
    cJSON_Delete(b);
    b = simstore_get(s, "backups", "velero", "flow-failed");
    ck_assert_str_eq(jstr(b, "status.failureReason"), "boom");
    ck_assert_int_eq((int)jnum(b, "status.errors"), 1);
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsBackedUp"), 5);
    ck_assert_int_eq((int)jnum(b, "status.progress.totalItems"), 10);
    cJSON_Delete(b);
    b = simstore_get(s, "restores", "velero", "flow-restore");
    ck_assert_int_eq((int)jnum(b, "status.progress.itemsRestored"), 5);
    ck_assert_int_eq((int)jnum(b, "status.restoreItemOperationsCompleted"), 1);
    cJSON_Delete(b);
    simctl_stop(c);
    close_trackers(ts);
    simstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simctl");
    TCase *tc = tcase_create("simctl");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, basic_scenario_ends_in_expected_phases_and_counts);
    tcase_add_test(tc, stock_by_default_omits_the_map);
    tcase_add_test(tc, scenario_switch_asks_for_the_map);
    tcase_add_test(tc, every_phase_in_order_with_its_fields);
    tcase_add_test(tc, download_requests_serve_gzip_artifacts);
    tcase_add_test(tc, download_requests_for_runs_the_controller_did_not_run);
    tcase_add_test(tc, stalled_volume_stops_moving_and_holds_the_backup);
    tcase_add_test(tc, manual_clock_and_pace_profile);
    tcase_add_test(tc, restic_real_runs_restic_and_copies_its_progress);
    tcase_add_test(tc, backups_created_by_others_are_run);
    tcase_add_test(tc, restic_real_without_restic_falls_back_to_simulation);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
