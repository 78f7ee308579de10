/* main.c: the veltop program's entry point: options, configuration, then either one snapshot
 * (--once) or the full-screen event loop; --demo watches an in-process veltop-sim. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "alert.h"
#include "answer.h"
#include "app.h"
#include "cron.h"
#include "format.h"
#include "health.h"
#include "logderive.h"
#include "opsfetch.h"
#include "sanitize.h"
#include "kubeclient/auth.h"
#include "serve.h"
#include "webcfg.h"
#include "actkeys.h"
#include "kubeclient/caps.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/client.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
#include "snapshot.h"
#include "ctxsel.h"
#include "fleetcli.h"
#include "ui.h"
#include "veltop_version.h"
#include "simfleet.h"
#include "vsim.h"
#include "wait.h"

#define ONCE_TIMEOUT_MS 15000

/* "kubectl veltop" when run as the kubectl plugin (kubectl-veltop), else "veltop" */
static const char *prog = "veltop";

static void usage(FILE *f)
{
    fprintf(f, "usage: %s [options]\n", prog);
    fprintf(
        f,
        "Watch Velero backups and restores live: items per resource, volume bytes, rate, ETA.\n"
        "\n"
        "  --kubeconfig FILE     use this kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
        "                        in-cluster)\n"
        "  --context NAME        use this kubeconfig context; several: a,b,c, a pattern such\n"
        "                        as 'prod-*' (fnmatch), or the option repeated (a name that\n"
        "                        holds a comma is taken whole when the kubeconfig has it)\n"
        "  --all-contexts        watch every context of the kubeconfig\n"
        "  -n, --namespace NS    Velero's namespace (default: $VELERO_NAMESPACE, else velero)\n"
        "  --namespace-for CONTEXT=NS\n"
        "                        Velero's namespace in that context (repeatable; split at the\n"
        "                        last '=')\n"
        "  --cacert FILE         trust these PEM certificates for the object store's TLS too\n"
        "                        (stored logs, resource lists), beside the BSL's caCert\n"
        "  --allow-actions       turn the action keys on for every context (read-only by\n"
        "                        default; per context: `contexts: NAME: actions: true` in\n"
        "                        $XDG_CONFIG_HOME/veltop/config.yaml); each action asks first\n"
        "  --demo                watch a simulated Velero cluster run in-process (no kubeconfig)\n"
        "  --fleet               with --demo: several simulated clusters, one per world\n"
        "  --scenario S          with --demo: demo (default), empty, or a scenario YAML file\n"
        "  --speed N             with --demo: simulated seconds per real second (default 1)\n"
        "  --once                print a table of the runs once and exit\n"
        "  --json                with --once: print one JSON object instead of a table\n"
        "  --details             with --once: also fetch the per-resource rows of the 10 newest\n"
        "                        finished runs (creates a DownloadRequest each; without it a\n"
        "                        snapshot only reads the cluster)\n"
        "  --utc                 show times in UTC (default: the local zone, shown beside them)\n"
        "  --list-contexts       print the kubeconfig's context names (* the current one, on a\n"
        "                        terminal) and exit\n"
        "  --version             print the version and exit\n"
        "  -h, --help            print this help and exit\n"
        "  --wait backup/NAME    no full screen: follow one backup (or restore/NAME) to its end,\n"
        "                        printing progress; exit 0 Completed, 3 PartiallyFailed,\n"
        "                        4 Failed, 1 unreachable or not found\n"
        "  --timeout DURATION    with --wait: give up after DURATION (90s, 10m, 1h30m): exit 6\n"
        "  --interval DURATION   with --wait, not on a terminal: repeat a line at most every\n"
        "                        DURATION (default 10s; 0: every change) unless the phase,\n"
        "                        the stall, what it waits on or the kind of ETA changes\n"
        "  --no-bell             no terminal bell or title when a run finishes, fails or stalls\n"
        "  --notify CMD          run CMD (sh -c) when a run finishes, fails or stalls, with\n"
        "                        VELTOP_EVENT, VELTOP_KIND, VELTOP_RUN, VELTOP_PHASE,\n"
        "                        VELTOP_CONTEXT set\n"
        "  --serve ADDR          no screen: serve the answers to Prometheus on ADDR\n"
        "                        (127.0.0.1:9368; :9368 listens on every interface):\n"
        "                        GET /metrics, GET /healthz; SIGTERM or SIGINT stops it\n"
        "  --web-config FILE     with --serve: TLS and basic auth from FILE (Prometheus'\n"
        "                        web configuration: tls_server_config, basic_auth_users)\n"
        "\n"
        "Exit status: 0 ok, 1 cluster unreachable (--once, --wait) or an interactive exec\n"
        "plugin failed, 2 usage or configuration error or no usable terminal; --wait: 3\n"
        "PartiallyFailed, 4 Failed, 6 --timeout passed; --once: 5 printed, but a list the\n"
        "answers or health need could not be read (stderr says which), or no Velero in the\n"
        "namespace. --once over several contexts:\n"
        "0 every context read and nothing wrong, 7 something wrong (a run Failed or\n"
        "PartiallyFailed in the last 24 h, a run stalled, a schedule overdue, a storage location\n"
        "unavailable, no Velero, a list not visible), 8 a context could not be read\n"
        "(unreachable, unauthorized, missing from the kubeconfig), 9 both, 10 the open-file\n"
        "limit left contexts unwatched (stderr says how many).\n"
        "\n"
        "Keys (the same meaning on every screen; ? shows the current screen's):\n");
    ui_keys_usage(f);
}

/* --cacert FILE: PEM certificates, read once into memory with the cap of every file veltop reads
 * (caps.h), handed to libcurl as a blob. */
static int read_cacert(const char *path, char **pem, size_t *len)
{
    char *data = kc_read_file(path, KC_CAP_FILE_BYTES, len);
    if (!data) {
        char why[128];
        san_error(
            "--cacert %s: %s", path,
            kc_read_file_strerror(errno, KC_CAP_FILE_BYTES, "a certificate file", why, sizeof why));
        return -1;
    }
    if (!memmem(data, *len, "-----BEGIN CERTIFICATE-----", 27)) {
        san_error("--cacert %s: no PEM certificate in it", path);
        free(data);
        return -1;
    }
    *pem = data;
    return 0;
}

/* --once and --wait: SIGTERM, SIGHUP and SIGINT end the waits through a self-pipe the loop
 * watches, so what was started (DownloadRequests) is deleted before the exit */
static int stop_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    int saved = errno;
    stop_signal = sig;
    ssize_t r = write(stop_pipe[1], "x", 1);
    (void)r;
    errno = saved;
}

static void on_stop_pipe(void *arg, int fd, short revents)
{
    (void)revents;
    char b[16];
    while (read(fd, b, sizeof b) > 0) {
    }
    ((app *)arg)->stop = 1;
}

static int stop_watch(app *a)
{
    if (pipe(stop_pipe)) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(stop_pipe[i], F_SETFL, O_NONBLOCK);
        fcntl(stop_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    return kc_loop_watch_fd(a->loop, stop_pipe[0], POLLIN, on_stop_pipe, a);
}

static int no_pending(void *arg)
{
    return kc_download_pending(arg) == 0;
}

/* Before the exit: the DownloadRequests given up on the way out (Esc, q, a deadline, a signal)
 * are deleted, best effort within 2 s, as the velero CLI deletes its own. */
static void drain_downloads(kc_loop *loop, kc_client *client)
{
    if (kc_download_pending(client)) kc_loop_run_until(loop, no_pending, client, 2000);
    kc_download_abandon(client);
}

static int once_ready(void *arg)
{
    app *a = arg;
    if (a->stop || app_synced(a)) return 1;
    /* the runs themselves cannot be listed: give up at once with the reason */
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (st->state == KC_REFL_FAILED ||
            (st->state == KC_REFL_RETRYING && !st->synced && !st->throttled))
            return 1;
    }
    return 0;
}

/* A list the server asked to wait for (429 with Retry-After) is tried again, as kubectl's client
 * does, up to KC_BACKOFF_RETRY_AFTER_TRIES times: not given up while that goes on. */
static int once_throttled(app *a)
{
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (!st->synced && st->throttled) return 1;
    }
    return 0;
}

/* Monotonic time of the snapshot: the newest sighting of a run (--once lists once). */
static double once_mono(const model *m)
{
    double now = 0;
    for (size_t i = 0; i < m->n_runs; i++)
        if (m->runs[i]->attached > now) now = m->runs[i]->attached;
    return now > 0 ? now : (double)kc_now_ms() / 1000.0;
}

/* --once: a resource list that --details asked for and did not get */
static void once_list_failed(void *arg, const model_run *r, const char *why)
{
    (void)arg;
    char *name = san_str(r->name);
    san_error("%s %s: per-resource rows unknown: %s", r->kind == VL_BACKUP ? "backup" : "restore",
              name, why);
    free(name);
}

/* The context's judgement (fleet_judge over its summary, as each context of a fleet): the one
 * rule the exit status and the JSON follow. */
static void once_judge(app *a, int64_t started_ms, fleet_sum *s, fleet_verdict *v)
{
    fleet_member fm = {.context = a->context,
                       .ns = a->ns,
                       .client = a->client,
                       .app = a,
                       .started = (double)started_ms / 1000.0,
                       .find_state = 2}; /* one context: -n names the namespace, no search */
    fleet_member_summary(&fm, (double)kc_now_ms() / 1000.0, kc_wall_now(), s);
    fleet_judge(s, v);
}

/* The verdict in one context's JSON: its lamp after the namespace, and what it lacks beyond the
 * answers' own lists ("no Velero in namespace nosuch") in "incomplete". */
static char *once_json_verdict(char *out, const fleet_sum *s, const fleet_verdict *v)
{
    cJSON *root = cJSON_Parse(out);
    if (!root) return out;
    cJSON *n = cJSON_CreateObject(), *it;
    static const char *first[] = {"context", "server", "namespace"};
    for (int i = 0; i < 3; i++) {
        it = cJSON_DetachItemFromObjectCaseSensitive(root, first[i]);
        if (it) cJSON_AddItemToObject(n, first[i], it);
    }
    cJSON_AddStringToObject(n, "lamp", fleet_lamp_name(s->lamp));
    cJSON *inc = cJSON_GetObjectItemCaseSensitive(root, "incomplete");
    for (int i = 0; inc && i < v->n_inc; i++) {
        char *t = san_utf8(v->inc[i]);
        cJSON_InsertItemInArray(inc, i, cJSON_CreateString(t));
        free(t);
    }
    while (root->child) {
        it = cJSON_DetachItemViaPointer(root, root->child);
        cJSON_AddItemToObject(n, it->string, it);
    }
    cJSON_Delete(root);
    char *txt = cJSON_PrintUnformatted(n);
    cJSON_Delete(n);
    char *esc = san_json_text(txt); /* DEL and C1 escaped too: exact, never raw */
    cJSON_free(txt);
    free(out);
    out = xasprintf("%s\n", esc);
    free(esc);
    return out;
}

static int run_once(app *a, int json, int details)
{
    int64_t t0 = kc_now_ms();
    while (!kc_loop_run_until(a->loop, once_ready, a, ONCE_TIMEOUT_MS) && !a->stop &&
           once_throttled(a)) {
    }
    if (a->stop) return 128 + stop_signal;
    fleet_sum sum;
    fleet_verdict v;
    once_judge(a, t0, &sum, &v);
    if (v.unreadable) {
        /* the real cause (403, 500, 429 with the server's message) of whichever list failed,
         * not "timed out" because the other one was still on its way */
        const kc_refl_status *failed = NULL;
        for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES && !failed; i++) {
            const kc_refl_status *st = kc_reflector_status(a->refl[i]);
            if (!st->synced && st->last_error[0]) failed = st;
        }
        san_error("%s", failed ? failed->last_error : v.why);
        return fleet_exit_one(&v);
    }
    if (app_no_velero(a))
        san_error("no Velero found in namespace %s: no backup storage location, backup or restore "
                  "there (-n names Velero's namespace)",
                  a->ns);
    /* per-resource rows for runs without resourceProgress: from the log (reads); finished runs'
     * resource lists only with --details (a DownloadRequest each: a write) */
    int64_t t_dl = kc_now_ms();
    logderive_once(a, 5000, details, once_list_failed, NULL);
    /* the plugin operations of runs waiting on them: a DownloadRequest each, only with --details,
     * within the same 5 s */
    if (details && !a->stop) {
        int64_t left = 5000 - (kc_now_ms() - t_dl);
        opsfetch_once(a, left > 0 ? left : 0);
    }
    if (a->stop) return 128 + stop_signal; /* nothing printed: the snapshot is not whole */
    model_refresh_volumes(a->model);
    /* the table is for this terminal: ASCII placeholders in a non-UTF-8 locale, as on screen;
     * JSON is UTF-8 whatever the locale */
    const char *cs = nl_langinfo(CODESET);
    san_set_ascii(!json && !(cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"))));
    double wall = kc_wall_now();
    app_sync_clock(a); /* the cluster's timestamps judged on its clock (its Date headers) */
    health *h = health_of_app(a, wall);
    ans_ctx c;
    answer_ctx_of_app(a, h, once_mono(a->model), wall, &c);
    size_t capped = 0;
    char *out =
        json ? snapshot_json(&c, a->context, a->server, a->ns) : snapshot_table(&c, &capped);
    if (capped) /* said, as the screen shows its ellipsis: the text was not all there */
        san_error("%zu cell%s longer than %d columns cut, ending in an ellipsis: --once --json "
                  "carries the whole text",
                  capped, capped == 1 ? "" : "s", SNAPSHOT_CELL_COLS);
    if (json) { /* health (issue 12), and the verdict */
        char *full = snapshot_health_json(h, out);
        free(out);
        out = snapshot_repo_json(h->repos, full);
        free(full);
        full = out;
        out = once_json_verdict(full, &sum, &v);
    }
    fputs(out, stdout);
    free(out);
    /* the table has no health column: health that cannot be judged is said beside it, as the
     * list's first line says it (JSON: health.ok null, health.unknown) */
    if (!json && sum.health == HEALTH_UNKNOWN) san_error("health unknown: %s", sum.health_unknown);
    health_free(h);
    /* an answer that lacks a list says so, and a script can tell (README: exit status) */
    char inc[640];
    if (snapshot_incomplete(&c, inc, sizeof inc)) san_error("incomplete: not visible: %s", inc);
    if (sum.lists_unread[0]) san_error("incomplete: not visible: %s", sum.lists_unread);
    return fleet_exit_one(&v);
}

typedef struct {
    int done;
    char msg[1024];
} preauth_wait;

static void preauth_ready(void *arg, const kc_err *err)
{
    preauth_wait *w = arg;
    w->done = 1;
    snprintf(w->msg, sizeof w->msg, "%s", err ? err->msg : "");
}

static int preauth_done(void *arg)
{
    return ((preauth_wait *)arg)->done;
}

/* An exec plugin that would be interactive (interactiveMode Always, or IfAvailable on a
 * terminal) runs now, with the terminal, before the screen takes it, as kubectl hands it stdin;
 * from then on the screen owns stdin and the plugin's later runs are told so (client-go's
 * StdinUnavailable). Returns -1 (the message printed) when the plugin failed. */
static int preauth(kc_loop *loop, kc_client *client)
{
    kc_auth *au = kc_client_auth(client);
    if (kc_auth_wants_terminal(au)) {
        preauth_wait w = {0};
        if (!kc_auth_ready(au, preauth_ready, &w)) {
            /* the plugin's own time limit (auth.c) bounds this; no frame is drawn meanwhile */
            kc_loop_run_until(loop, preauth_done, &w, 24 * 3600 * 1000);
            kc_auth_forget(au, &w);
            if (w.done && w.msg[0]) {
                san_error("%s", w.msg);
                return -1;
            }
        }
    }
    kc_auth_set_stdin_unavailable(au, "veltop's screen is using it (restart veltop to log in)");
    return 0;
}

/* The full screen ended by SIGTERM/SIGHUP (rc says which): everything is cleaned up and the
 * terminal restored; now die of it, as asked, so the parent sees 128+n. */
static void die_of_signal(int rc)
{
    int sig = ui_exit_signal(rc);
    if (!sig) return;
    fflush(stdout);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* --list-contexts: names from files are printed sanitised; on a terminal the current context is
 * marked "*" as kubectl config get-contexts marks it, piped (shell completion) the bare names */
static int print_contexts(const char *kubeconfig)
{
    kc_config_opts co = {0};
    kc_err err;
    size_t n;
    co.kubeconfig = kubeconfig;
    char **v = kc_config_contexts(&co, &n, &err);
    if (!v) {
        san_error("%s", err.msg);
        return 2;
    }
    int tty = isatty(STDOUT_FILENO);
    char *cur = tty ? kc_config_current_context(&co, &err) : NULL;
    for (size_t i = 0; i < n; i++) {
        char *s = san_str(v[i]);
        if (tty)
            printf("%s %s\n", cur && !strcmp(cur, v[i]) ? "*" : " ", s);
        else
            printf("%s\n", s);
        free(s);
        free(v[i]);
    }
    free(cur);
    free(v);
    return 0;
}

/* At exit, as coreutils' close_stdout: output that could not be written (a full disk, a closed
 * stdout) is an error, said on stderr and in the exit status, never a silent 0. */
static void close_stdout(void)
{
    int e = 0, failed = 0;
    if (fflush(stdout) != 0) {
        e = errno;
        failed = 1;
    }
    if (ferror(stdout)) failed = 1;
    if (fclose(stdout) != 0 && errno != EBADF && !failed) {
        e = errno;
        failed = 1;
    }
    if (!failed) return;
    if (e)
        san_error("cannot write the output: %s", strerror(e));
    else
        san_error("cannot write the output");
    _exit(1);
}

/* A closed stdout or stderr (`>&-`) would hand its number to the next file or socket opened, and
 * the output would go there: /dev/null holds it instead, opened for reading on stdout so that
 * every write to it still fails (close_stdout says so). */
static void hold_std_fds(void)
{
    if (fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && fd != STDOUT_FILENO) {
            dup2(fd, STDOUT_FILENO);
            close(fd);
        }
    }
    if (fcntl(STDERR_FILENO, F_GETFD) < 0 && errno == EBADF) {
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0 && fd != STDERR_FILENO) {
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
    }
}

/* --web-config's settings, freed at exit whichever way main returns */
static webcfg *main_web;
static act_policy *main_policy; /* who may act (core/actions.h), the full screen only */

static void free_policy(void)
{
    act_policy_free(main_policy);
}
static void free_web(void)
{
    webcfg_free(main_web);
    main_web = NULL;
}

int main(int argc, char **argv)
{
    hold_std_fds();
    atexit(close_stdout);
    /* the soft open-file limit up to the hard one, as every Go program (kubectl, k9s) does: a
     * fleet's connections and --serve's clients are counted against it (fdbudget.h) */
    kc_fd_raise();
    enum {
        O_KUBECONFIG = 256,
        O_CONTEXT,
        O_DEMO,
        O_SCENARIO,
        O_SPEED,
        O_ONCE,
        O_JSON,
        O_VERSION,
        O_CACERT,
        O_UTC,
        O_LIST_CONTEXTS,
        O_DETAILS,
        O_ALL_CONTEXTS,
        O_NAMESPACE_FOR,
        O_FLEET
    };
    enum { O_WAIT = 512, O_NO_BELL, O_NOTIFY, O_TIMEOUT, O_INTERVAL }; /* issue 12, 16, 25 */
    enum { O_SERVE = 768, O_WEB_CONFIG };                              /* issue 19, 30 */
    enum { O_ALLOW_ACTIONS = 1024 };                                   /* issue 28 */
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"namespace", required_argument, NULL, 'n'},
        {"demo", no_argument, NULL, O_DEMO},
        {"scenario", required_argument, NULL, O_SCENARIO},
        {"speed", required_argument, NULL, O_SPEED},
        {"once", no_argument, NULL, O_ONCE},
        {"json", no_argument, NULL, O_JSON},
        {"details", no_argument, NULL, O_DETAILS},
        {"utc", no_argument, NULL, O_UTC},
        {"list-contexts", no_argument, NULL, O_LIST_CONTEXTS},
        {"all-contexts", no_argument, NULL, O_ALL_CONTEXTS},
        {"namespace-for", required_argument, NULL, O_NAMESPACE_FOR},
        {"fleet", no_argument, NULL, O_FLEET},
        {"version", no_argument, NULL, O_VERSION},
        {"wait", required_argument, NULL, O_WAIT},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"interval", required_argument, NULL, O_INTERVAL},
        {"no-bell", no_argument, NULL, O_NO_BELL},
        {"notify", required_argument, NULL, O_NOTIFY},
        {"serve", required_argument, NULL, O_SERVE},
        {"web-config", required_argument, NULL, O_WEB_CONFIG},
        {"cacert", required_argument, NULL, O_CACERT},
        {"allow-actions", no_argument, NULL, O_ALLOW_ACTIONS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *kubeconfig = NULL, *context = NULL, *ns = NULL, *scenario = NULL, *cacert = NULL;
    double speed = 0;
    int demo = 0, once = 0, json = 0, details = 0, list_contexts = 0, all_contexts = 0,
        demo_fleet = 0, c;
    /* every --context and --namespace-for value, in order (at most one per argument) */
    const char *specs[argc + 1], *ns_for[argc + 1]; /* on the stack: every return is clean */
    size_t n_specs = 0, n_ns_for = 0;
    const char *wait_for = NULL, *notify = NULL, *serve_addr = NULL, *web_config = NULL;
    double wait_timeout = 0;   /* --timeout: seconds, 0 none */
    double wait_interval = -1; /* --interval: seconds, < 0 not given (WAIT_INTERVAL_S) */
    int bell = 1, utc = 0, allow_actions = 0;
    vl_kind wait_kind = VL_BACKUP;
    char wait_name[300];
    const char *base = strrchr(argv[0], '/');
    if (!strcmp(base ? base + 1 : argv[0], "kubectl-veltop")) prog = "kubectl veltop";
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:h", opts, NULL)) != -1) {
        switch (c) {
        case O_KUBECONFIG:
            kubeconfig = optarg;
            break;
        case O_CONTEXT:
            context = optarg;
            specs[n_specs++] = optarg;
            break;
        case O_ALL_CONTEXTS:
            all_contexts = 1;
            break;
        case O_NAMESPACE_FOR: {
            char *nctx;
            const char *nns;
            if (ctxsel_split_ns_for(optarg, &nctx, &nns)) {
                san_error("--namespace-for '%s': expected CONTEXT=NAMESPACE", optarg);
                return 2;
            }
            free(nctx);
            ns_for[n_ns_for++] = optarg;
            break;
        }
        case O_FLEET:
            demo_fleet = 1;
            break;
        case 'n':
            ns = optarg;
            break;
        case O_DEMO:
            demo = 1;
            break;
        case O_SCENARIO:
            scenario = optarg;
            break;
        case O_SPEED: {
            char *end;
            speed = strtod(optarg, &end);
            if (*end || speed < 0) {
                san_error("invalid --speed '%s' (a number >= 0)", optarg);
                return 2;
            }
            break;
        }
        case O_ONCE:
            once = 1;
            break;
        case O_JSON:
            json = 1;
            break;
        case O_DETAILS:
            details = 1;
            break;
        case O_LIST_CONTEXTS:
            list_contexts = 1;
            break;
        case O_UTC:
            fmt_set_utc(1);
            utc = 1;
            break;
        case O_VERSION:
            printf("veltop %s\n", VELTOP_VERSION);
            return 0;
        case O_WAIT: {
            char werr[400];
            if (wait_parse(optarg, &wait_kind, wait_name, sizeof wait_name, werr, sizeof werr)) {
                san_error("%s", werr);
                return 2;
            }
            wait_for = optarg;
            break;
        }
        case O_TIMEOUT:
            if (cron_parse_duration(optarg, &wait_timeout) || !(wait_timeout > 0)) {
                san_error("invalid --timeout '%s': expected a duration such as 90s, 10m or 1h30m",
                          optarg);
                return 2;
            }
            break;
        case O_INTERVAL:
            if (cron_parse_duration(optarg, &wait_interval) || !(wait_interval >= 0)) {
                san_error("invalid --interval '%s': expected a duration such as 10s, 1m or 0 (a "
                          "line per change)",
                          optarg);
                return 2;
            }
            break;
        case O_NO_BELL:
            bell = 0;
            break;
        case O_NOTIFY:
            notify = optarg;
            break;
        case O_CACERT:
            cacert = optarg;
            break;
        case O_SERVE: {
            struct sockaddr_storage ss;
            socklen_t sl;
            char serr[400];
            if (serve_parse_addr(optarg, &ss, &sl, serr, sizeof serr)) {
                san_error("%s", serr);
                return 2;
            }
            serve_addr = optarg;
            break;
        }
        case O_WEB_CONFIG:
            web_config = optarg;
            break;
        case O_ALLOW_ACTIONS:
            allow_actions = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            san_error("option '%s' needs a value (see veltop --help)", argv[optind - 1]);
            return 2;
        default:
            san_error("unknown option '%s' (see veltop --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        san_error("unexpected argument '%s' (see veltop --help)", argv[optind]);
        return 2;
    }
    if (wait_for && once) {
        san_error("--wait and --once do not go together");
        return 2;
    }
    if (wait_timeout > 0 && !wait_for) {
        san_error("--timeout only goes with --wait");
        return 2;
    }
    if (wait_interval >= 0 && !wait_for) {
        san_error("--interval only goes with --wait");
        return 2;
    }
    if (web_config && !serve_addr) {
        san_error("--web-config only goes with --serve");
        return 2;
    }
    webcfg *web = NULL;
    if (web_config) { /* read once, now: a wrong file is a usage error before anything starts */
        char werr[600];
        if ((web = main_web = webcfg_load(web_config, werr, sizeof werr)))
            atexit(free_web); /* every return below */
        else {
            san_error("%s", werr);
            return 2;
        }
    }
    if (serve_addr && (once || wait_for)) {
        san_error("--serve does not go with --once or --wait");
        return 2;
    }
    if (allow_actions && (once || wait_for || serve_addr || list_contexts)) {
        san_error("--allow-actions only goes with the full screen (--once, --wait and --serve "
                  "never act)");
        return 2;
    }
    if (!once && !wait_for && !serve_addr && !list_contexts) {
        /* who may act: read once, now; a wrong file is a configuration error before anything
         * starts, not a surprise at the first key */
        char aerr[600];
        if ((main_policy = act_policy_load(NULL, allow_actions, aerr, sizeof aerr))) {
            atexit(free_policy);
            tui_actions_set_policy(main_policy);
        } else {
            san_error("%s", aerr);
            return 2;
        }
    }
    if (json && !once) {
        san_error("--json only goes with --once");
        return 2;
    }
    if (details && !once) {
        san_error("--details only goes with --once");
        return 2;
    }
    /* --once prints every run whole (its figures exact), so it waits for every list: in flight
     * first would only add round trips before the history's lists start */
    if (once) app_set_in_flight_first(0);
    if ((scenario || speed > 0) && !demo) {
        san_error("--scenario and --speed only go with --demo");
        return 2;
    }
    if (demo && (kubeconfig || context)) {
        san_error("--demo uses its own cluster; drop --kubeconfig/--context");
        return 2;
    }
    char *ca_pem = NULL;
    size_t ca_len = 0;
    if (cacert && read_cacert(cacert, &ca_pem, &ca_len)) return 2;
    if (list_contexts) return print_contexts(kubeconfig);
    if (!ns || !*ns) ns = getenv("VELERO_NAMESPACE");
    if (!ns || !*ns) ns = "velero";
    if (demo_fleet && !demo) {
        san_error("--fleet only goes with --demo");
        return 2;
    }
    if (demo && (all_contexts || n_ns_for)) {
        san_error("--demo uses its own clusters; drop --all-contexts/--namespace-for");
        return 2;
    }
    /* which contexts: one behaves exactly as before; several make a fleet */
    ctxsel sel = {0};
    int multi = 0;
    char *current = NULL;
    if (!demo && (n_specs || all_contexts || n_ns_for)) {
        kc_config_opts co = {0};
        kc_err cerr;
        size_t nn = 0;
        co.kubeconfig = kubeconfig;
        if (!n_specs && !all_contexts) { /* --namespace-for alone: of the current context */
            kc_rest_config *cur = kc_config_load(&co, &cerr);
            if (!cur) {
                san_error("%s", cerr.msg);
                return 2;
            }
            current = xstrdup(cur->context);
            kc_rest_config_free(cur);
            specs[n_specs++] = current;
        }
        char **names = kc_config_contexts(&co, &nn, &cerr);
        if (!names) {
            san_error("%s", cerr.msg);
            return 2;
        }
        ctxsel_opts so = {specs, n_specs, all_contexts, ns_for, n_ns_for, ns};
        char serr[512];
        int bad = ctxsel_resolve(&so, names, nn, &sel, serr, sizeof serr);
        for (size_t i = 0; i < nn; i++) free(names[i]);
        free(names);
        if (bad) {
            san_error("%s", serr);
            return 2;
        }
        if (sel.n == 1) {
            context = sel.v[0].context;
            ns = sel.v[0].ns;
        } else {
            multi = 1;
        }
    }
    if (multi && wait_for) {
        san_error("--wait follows one run: name one context");
        ctxsel_clear(&sel);
        free(current);
        return 2;
    }
    if (multi && details) { /* DownloadRequests are writes: one cluster at a time, by name */
        san_error("--details writes to the cluster (DownloadRequests): name one context");
        ctxsel_clear(&sel);
        free(current);
        return 2;
    }
    setlocale(LC_ALL, "");
    const char *cs0 = nl_langinfo(CODESET); /* stderr's messages: placeholders for this locale */
    san_set_ascii(!(cs0 && (!strcasecmp(cs0, "UTF-8") || !strcasecmp(cs0, "utf8"))));

    kc_err err;
    kc_err_clear(&err);
    vsim *sim = NULL;
    kc_rest_config *cfg = NULL;
    /* configuration first: a wrong --context is reported as such, with or without a terminal */
    if (!demo && !multi) {
        kc_config_opts co = {0};
        co.kubeconfig = kubeconfig;
        co.context = context;
        cfg = kc_config_load(&co, &err);
        if (!cfg) {
            san_error("%s", err.msg);
            free(ca_pem);
            ctxsel_clear(&sel);
            free(current);
            return 2;
        }
    }
    int screen = !once && !wait_for && !serve_addr;
    if (screen && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        san_error("not a terminal (use --once for a one-shot table)");
        kc_rest_config_free(cfg);
        free(ca_pem);
        ctxsel_clear(&sel);
        free(current);
        return 2;
    }
    char twhy[256];
    if (screen && ui_terminal_check(twhy, sizeof twhy)) {
        san_error("%s", twhy);
        kc_rest_config_free(cfg);
        ctxsel_clear(&sel);
        free(current);
        return 2;
    }

    curl_global_init(CURL_GLOBAL_DEFAULT);
    alert_configure(bell, notify);
    vsim_fleet *vf = NULL;
    if (demo && demo_fleet) { /* the demo fleet: several simulated clusters in-process */
        char serr[512] = "";
        size_t nd;
        const vsim_fleet_def *defs = vsim_fleet_demo(&nd);
        vf = vsim_fleet_start(defs, nd, speed, -1, 1, serr, sizeof serr);
        if (!vf) {
            san_error("cannot start the demo clusters: %s", serr);
            curl_global_cleanup();
            free(ca_pem);
            ctxsel_clear(&sel);
            free(current);
            return 2;
        }
    }
    fleetcli_env env = {kubeconfig, !demo, ns, ns_for, n_ns_for, ca_pem, ca_len};
    /* several contexts, and the full screen over one (a fleet of one, which the picker grows) */
    if (multi || vf || (screen && !demo)) {
        kc_loop *floop = kc_loop_new();
        fleet *f;
        if (vf) {
            f = fleet_new(floop);
            f->summary = !once;
            for (size_t i = 0; i < vsim_fleet_len(vf); i++) {
                const vsim_fleet_def *d = vsim_fleet_member(vf, i);
                kc_rest_config *dc = xcalloc(1, sizeof(*dc));
                dc->context = xstrdup(d->context);
                dc->cluster = xstrdup(d->context);
                dc->user = xstrdup(d->context);
                dc->server = xstrdup(vsim_fleet_url(vf, i));
                if (vsim_fleet_token(vf, i)) dc->token = xstrdup(vsim_fleet_token(vf, i));
                const char *ca = vsim_fleet_ca(vf, i);
                if (ca) {
                    dc->ca_len = strlen(ca);
                    dc->ca_data = xmalloc(dc->ca_len + 1);
                    memcpy(dc->ca_data, ca, dc->ca_len + 1);
                }
                fleet_member *fm = fleet_add(f, d->context, ns, dc, NULL);
                vsim *ms = vsim_fleet_sim(vf, i);
                if (fm->app && ms && speed > 0)
                    model_set_clock(fm->app->model, kc_wall_now(), vsim_clock(ms), speed);
            }
        } else if (multi) {
            f = fleetcli_build(floop, &sel, kubeconfig, !once,
                               serve_addr ? kc_fd_serve_conns(kc_fd_limit()) : 0);
        } else { /* the full screen over one context: a fleet of one, which the picker grows */
            f = fleet_new(floop);
            fleet_add(f, cfg->context, ns, cfg, NULL);
            cfg = NULL;
        }
        fleetcli_set_cacert(f, ca_pem, ca_len);
        int frc = 0;
        /* interactive exec plugins prompt now, with the terminal, before the screen takes it */
        for (size_t i = 0; screen && i < f->n && !frc; i++)
            if (f->m[i]->app && preauth(floop, f->m[i]->app->client)) frc = 1;
        if (!frc && serve_addr) { /* every context's answers on one endpoint */
            app **apps = xcalloc(f->n ? f->n : 1, sizeof *apps);
            size_t na = 0;
            for (size_t i = 0; i < f->n; i++)
                if (f->m[i]->app) apps[na++] = f->m[i]->app;
            char serr[512], nw[160];
            serve_opts so = {kc_fd_serve_conns(kc_fd_limit()), f->not_watched, f->fd_limit, web};
            if (f->not_watched) san_error("%s", fleet_not_watched(f, nw, sizeof nw));
            frc = serve_run(apps, na, serve_addr, &so, serr, sizeof serr);
            if (frc) san_error("%s", serr);
            free(apps);
        } else if (!frc) {
            frc = once ? fleetcli_once(f, json, ONCE_TIMEOUT_MS, stdout, stderr)
                       : fleetcli_tui(f, &env);
        }
        fleet_free(f);
        vsim_fleet_stop(vf);
        kc_loop_free(floop);
        ctxsel_clear(&sel);
        free(current);
        free(ca_pem);
        kc_rest_config_free(cfg);
        curl_global_cleanup();
        die_of_signal(frc);
        return frc;
    }
    if (demo) {
        char serr[512] = "";
        vsim_opts so = {0};
        so.scenario = scenario ? scenario : "demo";
        so.speed = speed;
        so.quiet = 1;
        sim = vsim_start(&so, serr, sizeof serr);
        if (!sim) {
            san_error("cannot start the demo cluster: %s", serr);
            curl_global_cleanup();
            free(ca_pem);
            return 2;
        }
        cfg = xcalloc(1, sizeof(*cfg));
        cfg->context = xstrdup("demo");
        cfg->cluster = xstrdup("veltop-sim");
        cfg->user = xstrdup("demo");
        cfg->server = xstrdup(vsim_url(sim));
    }
    kc_loop *loop = kc_loop_new();
    kc_client *client = kc_client_new(loop, cfg, &err);
    if (!client) {
        san_error("%s", err.msg[0] ? err.msg : "cannot create the client");
        kc_loop_free(loop);
        kc_rest_config_free(cfg);
        vsim_stop(sim);
        curl_global_cleanup();
        free(ca_pem);
        return 2;
    }
    if (!once && !wait_for && preauth(loop, client)) {
        kc_client_free(client);
        kc_loop_free(loop);
        kc_rest_config_free(cfg);
        curl_global_cleanup();
        free(ca_pem);
        return 1;
    }
    app *a = app_new(loop, client, cfg->context, cfg->server, ns);
    a->cacert = ca_pem;
    a->cacert_len = ca_len;
    /* the demo cluster's clock runs --speed times ours: durations read from its timestamps are
     * divided by it, so rates, ETAs and durations on screen are true in wall time */
    if (sim && speed > 0) model_set_clock(a->model, kc_wall_now(), vsim_clock(sim), speed);
    int rc;
    int stop_id = once ? stop_watch(a) : -1;
    if (wait_for) {
        wait_opts wo = {wait_timeout, wait_interval >= 0 ? wait_interval : WAIT_INTERVAL_S,
                        isatty(STDOUT_FILENO), utc};
        rc = wait_run(a, wait_kind, wait_name, &wo, stdout, stderr);
    } else if (once) {
        rc = run_once(a, json, details);
    } else if (serve_addr) {
        char serr[512];
        serve_opts so = {kc_fd_serve_conns(kc_fd_limit()), 0, kc_fd_limit(), web};
        rc = serve_run(&a, 1, serve_addr, &so, serr, sizeof serr);
        if (rc) san_error("%s", serr);
    } else {
        ui *u = ui_new(a, tui_screens);
        rc = ui_run(u);
        ui_free(u);
    }
    if (stop_id >= 0) {
        kc_loop_unwatch_fd(loop, stop_id);
        close(stop_pipe[0]);
        close(stop_pipe[1]);
    }
    app_free(a);
    drain_downloads(loop, client);
    kc_client_free(client);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
    vsim_stop(sim);
    curl_global_cleanup();
    ctxsel_clear(&sel);
    free(current);
    die_of_signal(rc);
    return rc;
}
