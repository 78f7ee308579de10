/* main.c: the veltop program's entry point: options, configuration, then either one snapshot
 * (--once) or the full-screen event loop; --demo watches an in-process veltop-sim. */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "alert.h"
#include "app.h"
#include "format.h"
#include "logderive.h"
#include "sanitize.h"
#include "kubeclient/caps.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
#include "snapshot.h"
#include "ui.h"
#include "veltop_version.h"
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
        "  --context NAME        use this kubeconfig context\n"
        "  -n, --namespace NS    Velero's namespace (default: $VELERO_NAMESPACE, else velero)\n"
        "  --cacert FILE         trust these PEM certificates for the object store's TLS too\n"
        "                        (stored logs, resource lists), beside the BSL's caCert\n"
        "  --demo                watch a simulated Velero cluster run in-process (no kubeconfig)\n"
        "  --scenario S          with --demo: demo (default), empty, or a scenario YAML file\n"
        "  --speed N             with --demo: simulated seconds per real second (default 1)\n"
        "  --once                print a table of the runs once and exit\n"
        "  --json                with --once: print one JSON object instead of a table\n"
        "  --utc                 show times in UTC (default: the local zone, shown beside them)\n"
        "  --list-contexts       print the kubeconfig's context names (* the current one, on a\n"
        "                        terminal) and exit\n"
        "  --version             print the version and exit\n"
        "  -h, --help            print this help and exit\n"
        "  --wait backup/NAME    no full screen: follow one backup (or restore/NAME) to its end,\n"
        "                        printing progress; exit 0 Completed, 3 PartiallyFailed,\n"
        "                        4 Failed, 1 unreachable or not found\n"
        "  --no-bell             no terminal bell or title when a run finishes, fails or stalls\n"
        "  --notify CMD          run CMD (sh -c) when a run finishes, fails or stalls, with\n"
        "                        VELTOP_EVENT, VELTOP_KIND, VELTOP_RUN, VELTOP_PHASE set\n"
        "\n"
        "Exit status: 0 ok, 1 cluster unreachable (--once, --wait), 2 usage or configuration\n"
        "error or no usable terminal; --wait: 3 PartiallyFailed, 4 Failed.\n"
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

static int once_ready(void *arg)
{
    app *a = arg;
    if (app_synced(a)) return 1;
    /* the runs themselves cannot be listed: give up at once with the reason */
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (st->state == KC_REFL_FAILED || (st->state == KC_REFL_RETRYING && !st->synced)) return 1;
    }
    return 0;
}

static int run_once(app *a, int json)
{
    kc_loop_run_until(a->loop, once_ready, a, ONCE_TIMEOUT_MS);
    /* the real cause (403, 500, 429 with the server's message) of whichever list failed, not
     * "timed out" because the other one was still on its way */
    const kc_refl_status *failed = NULL;
    int unlisted = 0;
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (st->synced) continue;
        unlisted = 1;
        if (!failed && st->last_error[0]) failed = st;
    }
    if (unlisted) {
        san_error("%s", failed ? failed->last_error : "timed out listing Velero's resources");
        return 1;
    }
    if (app_no_velero(a))
        san_error("no Velero found in namespace %s: no backup storage location, backup or restore "
                  "there (-n names Velero's namespace)",
                  a->ns);
    logderive_once(a, 5000); /* per-resource rows for runs without resourceProgress */
    model_refresh_volumes(a->model);
    /* the table is for this terminal: ASCII placeholders in a non-UTF-8 locale, as on screen;
     * JSON is UTF-8 whatever the locale */
    const char *cs = nl_langinfo(CODESET);
    san_set_ascii(!json && !(cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"))));
    double wall = kc_wall_now();
    char *out = json ? snapshot_json(a->model, a->context, a->server, a->ns, wall)
                     : snapshot_table(a->model, wall);
    if (json) { /* health and diagnosis (issue 12) */
        char *full = snapshot_health_json(a, out, (double)kc_now_ms() / 1000.0, wall);
        free(out);
        out = full;
    }
    fputs(out, stdout);
    free(out);
    return 0;
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

int main(int argc, char **argv)
{
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
        O_LIST_CONTEXTS
    };
    enum { O_WAIT = 512, O_NO_BELL, O_NOTIFY }; /* issue 12 */
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"namespace", required_argument, NULL, 'n'},
        {"demo", no_argument, NULL, O_DEMO},
        {"scenario", required_argument, NULL, O_SCENARIO},
        {"speed", required_argument, NULL, O_SPEED},
        {"once", no_argument, NULL, O_ONCE},
        {"json", no_argument, NULL, O_JSON},
        {"utc", no_argument, NULL, O_UTC},
        {"list-contexts", no_argument, NULL, O_LIST_CONTEXTS},
        {"version", no_argument, NULL, O_VERSION},
        {"wait", required_argument, NULL, O_WAIT},
        {"no-bell", no_argument, NULL, O_NO_BELL},
        {"notify", required_argument, NULL, O_NOTIFY},
        {"cacert", required_argument, NULL, O_CACERT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *kubeconfig = NULL, *context = NULL, *ns = NULL, *scenario = NULL, *cacert = NULL;
    double speed = 0;
    int demo = 0, once = 0, json = 0, list_contexts = 0, c;
    const char *wait_for = NULL, *notify = NULL;
    int bell = 1;
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
        case O_LIST_CONTEXTS:
            list_contexts = 1;
            break;
        case O_UTC:
            fmt_set_utc(1);
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
        case O_NO_BELL:
            bell = 0;
            break;
        case O_NOTIFY:
            notify = optarg;
            break;
        case O_CACERT:
            cacert = optarg;
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
    if (json && !once) {
        san_error("--json only goes with --once");
        return 2;
    }
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
    setlocale(LC_ALL, "");
    const char *cs0 = nl_langinfo(CODESET); /* stderr's messages: placeholders for this locale */
    san_set_ascii(!(cs0 && (!strcasecmp(cs0, "UTF-8") || !strcasecmp(cs0, "utf8"))));

    kc_err err;
    kc_err_clear(&err);
    vsim *sim = NULL;
    kc_rest_config *cfg = NULL;
    /* configuration first: a wrong --context is reported as such, with or without a terminal */
    if (!demo) {
        kc_config_opts co = {0};
        co.kubeconfig = kubeconfig;
        co.context = context;
        cfg = kc_config_load(&co, &err);
        if (!cfg) {
            san_error("%s", err.msg);
            free(ca_pem);
            return 2;
        }
    }
    if (!once && !wait_for && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        san_error("not a terminal (use --once for a one-shot table)");
        kc_rest_config_free(cfg);
        free(ca_pem);
        return 2;
    }
    char twhy[256];
    if (!once && !wait_for && ui_terminal_check(twhy, sizeof twhy)) {
        san_error("%s", twhy);
        kc_rest_config_free(cfg);
        return 2;
    }

    curl_global_init(CURL_GLOBAL_DEFAULT);
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
    app *a = app_new(loop, client, cfg->context, cfg->server, ns);
    a->cacert = ca_pem;
    a->cacert_len = ca_len;
    /* the demo cluster's clock runs --speed times ours: durations read from its timestamps are
     * divided by it, so rates, ETAs and durations on screen are true in wall time */
    if (sim && speed > 0) model_set_clock(a->model, kc_wall_now(), vsim_clock(sim), speed);
    int rc;
    alert_configure(bell, notify);
    if (wait_for) {
        rc = wait_run(a, wait_kind, wait_name, isatty(STDOUT_FILENO), stdout, stderr);
    } else if (once) {
        rc = run_once(a, json);
    } else {
        ui *u = ui_new(a, tui_screens);
        rc = ui_run(u);
        ui_free(u);
    }
    app_free(a);
    kc_client_free(client);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
    vsim_stop(sim);
    curl_global_cleanup();
    return rc;
}
