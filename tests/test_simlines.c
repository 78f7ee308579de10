/* test_simlines.c: the Velero server log lines veltop-sim writes, pinned line for line as Velero
 * v1.18.1 writes them (text and --log-format json): item collection with group=, no Retrieved
 * line for namespaces, "Processing item" queued up to 11 ItemBlocks ahead, "Backing up item" per
 * item (plugin-added ones too), "Backed up N of M" once per block, restore lines with no line for
 * namespaces, and the server logger's own lines only in the pod log, not in the stored log. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts.h"
#include "kubeclient/util.h"
#include "simctl.h"
#include "simlog.h"
#include "simstore.h"
#include "testutil.h"

#define SCN FIXTURES_DIR "/scenarios/loglines.yaml"

static simctl *start(simstore *s, int json)
{
    simctl_opts o = {.scenario = SCN,
                     .speed = 1,
                     .seed = 7,
                     .log_json = json,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "simctl_start: %s", err);
    return c;
}

/* The stored log of a run: a DownloadRequest, processed by the controller, then its artifact. */
static char *stored_log(simstore *s, simctl *c, const char *kind, const char *target)
{
    return tu_sim_artifact(s, c, target, kind, target);
}

static char *pod_log(simstore *s)
{
    size_t pos = 0, n = 0;
    double *times = NULL;
    char **lines = simstore_log_read(s, sim_velero_pod_name(), &pos, 100000, &n, &times);
    kc_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        kc_buf_printf(&b, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    free(times);
    return kc_buf_cstr(&b);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* Lines containing both a and b. */
static int count_lines(const char *text, const char *a, const char *b)
{
    int n = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p + 1) : strlen(p);
        char *line = xstrndup(p, len);
        n += strstr(line, a) && strstr(line, b);
        free(line);
        p += len;
    }
    return n;
}

/* The 0-based index of the line containing needle (the first one), -1 if none. */
static int line_of(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    if (!p) return -1;
    int n = 0;
    for (const char *q = text; q < p; q++) n += *q == '\n';
    return n;
}

#define HAS_LINE(text, line)                                                                       \
    ck_assert_msg(strstr(text, line "\n") != NULL, "missing line: %s", line)

#define T(hms) "time=\"2025-12-31T23:" hms "Z\" level=info msg="

START_TEST(backup_lines_text)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, 0);
    char *log = stored_log(s, c, "BackupLog", "lines");
    /* the stored log starts with the per-backup logger's first line: "Setting up backup log" is
     * the server logger's (stdout only) */
    ck_assert_int_eq(strncmp(log,
                             T("50:01") "\"Setting up backup temp file\" backup=velero/lines "
                                        "logSource=\"pkg/controller/backup_controller.go:731\"\n",
                             strlen(T("50:01")) + 100),
                     0);
    ck_assert_int_eq(count(log, "Setting up backup log"), 0);
    ck_assert_int_eq(count(log, "Initial backup processing complete"), 0);
    HAS_LINE(log, T("50:01") "\"Excluding namespaces: <none>\" backup=velero/lines "
                             "logSource=\"pkg/backup/backup.go:306\"");
    /* collection: group= on every line; namespaces have no Listing or Retrieved line */
    HAS_LINE(log, T("50:01") "\"Getting items for group\" backup=velero/lines group=v1 "
                             "logSource=\"pkg/backup/item_collector.go:257\"");
    HAS_LINE(log, T("50:01") "\"Getting items for resource\" backup=velero/lines group=v1 "
                             "logSource=\"pkg/backup/item_collector.go:364\" resource=namespaces");
    HAS_LINE(log, T("50:01") "\"Listing items\" backup=velero/lines group=apps/v1 "
                             "logSource=\"pkg/backup/item_collector.go:539\" namespace=billing "
                             "resource=deployments");
    HAS_LINE(log, T("50:01") "\"Retrieved 10 items\" backup=velero/lines group=v1 "
                             "logSource=\"pkg/backup/item_collector.go:575\" namespace=shop "
                             "resource=pods");
    HAS_LINE(log, T("50:01") "\"Retrieved 0 items\" backup=velero/lines group=v1 "
                             "logSource=\"pkg/backup/item_collector.go:575\" namespace= "
                             "resource=persistentvolumes");
    ck_assert_int_eq(count(log, "msg=\"Getting items for group\""), 3); /* v1, apps/v1, v1 */
    ck_assert_int_eq(count(log, "msg=\"Listing items\""), 7);
    ck_assert_int_eq(count(log, "msg=\"Retrieved "), 7);
    ck_assert_int_eq(count_lines(log, "msg=\"Retrieved ", "resource=namespaces\n"), 0);
    ck_assert_int_eq(count_lines(log, "msg=\"Listing items", "resource=namespaces\n"), 0);
    ck_assert_int_eq(count_lines(log, "msg=\"Processing item", "resource=namespaces\n"), 2);
    HAS_LINE(log, T("50:01") "\"Collected 26 items matching the backup spec from the Kubernetes "
                             "API (actual number of items backed up may be more or less depending "
                             "on velero.io/exclude-from-backup annotation, plugins returning "
                             "additional related items to back up, etc.)\" backup=velero/lines "
                             "logSource=\"pkg/backup/backup.go:398\" progress=");
    /* per item: queued (26: not the 2 plugin-added PVs), backed up (28), one count per block */
    ck_assert_int_eq(count(log, "msg=\"Processing item\""), 26);
    ck_assert_int_eq(count(log, "msg=\"Backing up item\""), 28);
    ck_assert_int_eq(count(log, "msg=\"Backed up "), 27); /* 26 blocks + the total */
    HAS_LINE(log, T("50:02") "\"Processing item\" backup=velero/lines "
                             "logSource=\"pkg/backup/backup.go:575\" name=web-0-278dc "
                             "namespace=shop progress= resource=pods");
    HAS_LINE(log,
             T("50:02") "\"Backing Up Item Block including pods shop/web-0-278dc (1 items "
                        "in block)\" backup=velero/lines logSource=\"pkg/backup/backup.go:612\"");
    HAS_LINE(log, T("50:02") "\"Backing up item\" backup=velero/lines "
                             "logSource=\"pkg/backup/item_backupper.go:186\" name=shop namespace= "
                             "resource=namespaces");
    HAS_LINE(log, T("50:03") "\"Backed up 1 items out of an estimated total of 26 (estimate will "
                             "change throughout the backup)\" backup=velero/lines kind=Namespace "
                             "logSource=\"pkg/backup/backup.go:560\" name=shop namespace= "
                             "progress=");
    /* the look-ahead: 12 blocks are queued before the first item is backed up; the 13th when
     * the worker takes the 2nd block, after the 1st block's count */
    int first_backing = line_of(log, "msg=\"Backing up item\"");
    ck_assert_int_eq(line_of(log, "name=redis-0-13fe5 namespace=billing progress= resource=pods"),
                     first_backing - 2);
    int thirteenth = line_of(log, "name=frontend-0-8b836 namespace=shop progress= resource=pods");
    ck_assert_int_eq(thirteenth, line_of(log, "msg=\"Backed up 1 items") + 1);
    /* the plugin-added PVs: backed up in the last PVC's block, which counts them */
    HAS_LINE(log, T("50:30") "\"Backed up 28 items out of an estimated total of 28 (estimate will "
                             "change throughout the backup)\" backup=velero/lines "
                             "kind=PersistentVolumeClaim logSource=\"pkg/backup/backup.go:560\" "
                             "name=web namespace=billing progress=");
    HAS_LINE(log, T("50:29") "\"Backing up item\" backup=velero/lines "
                             "logSource=\"pkg/backup/item_backupper.go:186\" "
                             "name=api-persistentvolumes-0 namespace= resource=persistentvolumes");
    ck_assert_int_eq(count(log, "Backing Up Item Block including persistentvolumes"), 0);
    /* the end of the stored log */
    const char *tail = T("50:30") "\"Backed up a total of 28 items\" backup=velero/lines "
                                  "logSource=\"pkg/backup/backup.go:684\" progress=\n";
    ck_assert_str_eq(log + strlen(log) - strlen(tail), tail);
    free(log);

    /* the pod log has the server logger's lines too */
    char *pl = pod_log(s);
    HAS_LINE(pl, T("50:01") "\"Setting up backup log\" backup=velero/lines "
                            "logSource=\"pkg/controller/backup_controller.go:720\"");
    HAS_LINE(pl, T("50:30") "\"Initial backup processing complete, moving to Finalizing\" "
                            "backup=velero/lines "
                            "logSource=\"pkg/controller/backup_controller.go:859\"");
    free(pl);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

/* A failure is the reconciler's line (error level, its own fields), in the pod log only; a failed
 * restore is logged at debug level, so not at all. */
START_TEST(failure_lines)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, 0);
    char *log = stored_log(s, c, "BackupLog", "broken");
    ck_assert_int_eq(count(log, "backup failed"), 0);
    ck_assert_int_eq(count(log, "msg=\"Backing up item\""), 2);
    free(log);
    char *pl = pod_log(s);
    HAS_LINE(pl, "time=\"2025-12-31T23:52:04Z\" level=error msg=\"backup failed\" "
                 "backuprequest=velero/broken controller=backup "
                 "error=\"rpc error: code = Unavailable\" "
                 "logSource=\"pkg/controller/backup_controller.go:343\"");
    ck_assert_int_eq(count(pl, "restore failed"), 0);
    ck_assert_int_eq(count(pl, "level=error"), 1);
    free(pl);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

START_TEST(restore_lines_text)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, 0);
    char *log = stored_log(s, c, "RestoreLog", "rlines");
    const char *head =
        T("55:01") "\"starting restore\" logSource=\"pkg/controller/restore_controller.go:563\" "
                   "restore=velero/rlines\n" T("55:01") "\"Starting restore of backup "
                                                        "velero/lines\" "
                                                        "logSource=\"pkg/restore/restore.go:434\" "
                                                        "restore=velero/rlines\n";
    ck_assert_int_eq(strncmp(log, head, strlen(head)), 0);
    HAS_LINE(log, T("55:01") "\"Resource 'namespaces' will be restored at cluster scope\" "
                             "logSource=\"pkg/restore/restore.go:2315\" restore=velero/rlines");
    HAS_LINE(log, T("55:01") "\"Resource 'pods' will be restored into namespace 'billing'\" "
                             "logSource=\"pkg/restore/restore.go:2313\" restore=velero/rlines");
    /* no line at all for the namespaces; they count in N */
    ck_assert_int_eq(count(log, "resource=namespaces"), 0);
    ck_assert_int_eq(count(log, "Namespace"), 0);
    ck_assert_int_eq(count(log, "msg=\"Restored "), 3);
    HAS_LINE(log, T("55:04") "\"Attempting to restore Pod: web-0-278dc.\" groupResource=pods "
                             "logSource=\"pkg/restore/restore.go:1506\" namespace=shop "
                             "original name=web-0-278dc restore=velero/rlines");
    HAS_LINE(log, T("55:04") "\"Restored 3 items out of an estimated total of 5 (estimate will "
                             "change throughout the restore)\" "
                             "logSource=\"pkg/restore/restore.go:799\" name=web-0-278dc "
                             "namespace=shop progress= resource=pods restore=velero/rlines");
    HAS_LINE(log, T("55:06") "\"Restored 5 items out of an estimated total of 5 (estimate will "
                             "change throughout the restore)\" "
                             "logSource=\"pkg/restore/restore.go:799\" "
                             "name=web-persistentvolumes-0 namespace= progress= "
                             "resource=persistentvolumes restore=velero/rlines");
    HAS_LINE(log, T("55:07") "\"Done waiting for all pod volume restores to complete\" "
                             "logSource=\"pkg/restore/restore.go:692\" restore=velero/rlines");
    free(log);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

/* --log-format json: logrus' JSONFormatter (every key sorted, HTML-escaped, error.message). */
START_TEST(lines_json)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, 1);
    char *log = stored_log(s, c, "BackupLog", "lines");
    HAS_LINE(log, "{\"backup\":\"velero/lines\",\"level\":\"info\",\"logSource\":\"pkg/backup/"
                  "backup.go:306\",\"msg\":\"Excluding namespaces: \\u003cnone\\u003e\","
                  "\"time\":\"2025-12-31T23:50:01Z\"}");
    HAS_LINE(log, "{\"backup\":\"velero/lines\",\"group\":\"v1\",\"level\":\"info\","
                  "\"logSource\":\"pkg/backup/item_collector.go:575\",\"msg\":\"Retrieved 10 "
                  "items\",\"namespace\":\"shop\",\"resource\":\"pods\",\"time\":\"2025-12-31T23:"
                  "50:01Z\"}");
    HAS_LINE(log, "{\"backup\":\"velero/lines\",\"level\":\"info\",\"logSource\":\"pkg/backup/"
                  "backup.go:575\",\"msg\":\"Processing item\",\"name\":\"web-0-278dc\","
                  "\"namespace\":\"shop\",\"progress\":\"\",\"resource\":\"pods\",\"time\":"
                  "\"2025-12-31T23:50:02Z\"}");
    ck_assert_int_eq(count(log, "\"msg\":\"Processing item\""), 26);
    ck_assert_int_eq(count(log, "time=\""), 0);
    free(log);
    log = stored_log(s, c, "RestoreLog", "rlines");
    HAS_LINE(log, "{\"groupResource\":\"pods\",\"level\":\"info\",\"logSource\":\"pkg/restore/"
                  "restore.go:1506\",\"msg\":\"Attempting to restore Pod: web-0-278dc.\","
                  "\"namespace\":\"shop\",\"original name\":\"web-0-278dc\",\"restore\":"
                  "\"velero/rlines\",\"time\":\"2025-12-31T23:55:04Z\"}");
    free(log);
    simctl_stop(c);
    simstore_free(s);

    simlog_field f[] = {{"error", "a \"b\" & <c>\n"}, {"backup", "velero/x"}};
    char *l = simlog_format(1, 0, "error", "backup failed", f, 2);
    ck_assert_str_eq(l, "{\"backup\":\"velero/x\",\"error.message\":\"a \\\"b\\\" \\u0026 "
                        "\\u003cc\\u003e\\n\",\"level\":\"error\",\"msg\":\"backup failed\","
                        "\"time\":\"1970-01-01T00:00:00Z\"}");
    free(l);
    l = simlog_format(0, 0, "error", "backup failed", f, 2);
    ck_assert_str_eq(l, "time=\"1970-01-01T00:00:00Z\" level=error msg=\"backup failed\" "
                        "backup=velero/x error=\"a \\\"b\\\" & <c>\\n\"");
    free(l);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("simlines");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, backup_lines_text);
    tcase_add_test(tc, restore_lines_text);
    tcase_add_test(tc, failure_lines);
    tcase_add_test(tc, lines_json);
    suite_add_tcase(su, tc);
    return tu_run_suite(su);
}
