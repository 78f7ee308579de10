/* main.c: the veltop-sim program: parses options and runs the simulated cluster until killed. */
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbac.h"
#include "simfleet.h"
#include "vsim.h"
#include "kubeclient/util.h"

static const char usage[] =
    "usage: veltop-sim [options]\n"
    "\n"
    "A simulated Kubernetes cluster running Velero, served over the Kubernetes API on loopback.\n"
    "Prints one line, 'listening on URL', once it serves; runs until SIGINT or SIGTERM.\n"
    "\n"
    "  --listen HOST:PORT        address to serve on (default 127.0.0.1:0; port 0 = a free port)\n"
    "  --kubeconfig-out FILE     write a kubeconfig for the sim (CA data and credentials when\n"
    "                            --tls/--auth are on; certificates are generated at start)\n"
    "  --scenario NAME|FILE      demo (default), empty, or a YAML scenario (sim/SCENARIOS.md)\n"
    "  --speed X                 simulated seconds per real second (default 1)\n"
    "  --seed N                  seed for the scenario's random choices (default fixed)\n"
    "  --tls                     serve HTTPS (CA, server and client certificates made at start)\n"
    "  --auth none|token|client-cert\n"
    "                            require a bearer token or a client certificate (401 otherwise);\n"
    "                            kubectl sends credentials only over TLS; client-cert needs --tls\n"
    "  --kube-version 1.NN       minor version reported by /version (default 1.30); the kubectl\n"
    "                            dispatcher picks its kubectl by it\n"
    "  --faults SPEC             comma list of injected faults, counted in GET /debug/stats:\n"
    "                              close-watch=S    close every watch after S seconds\n"
    "                              expire           the first resumed watch gets 410 Expired\n"
    "                              expire-every=S   expire the watch history every S seconds\n"
    "                              error500=N       every Nth API request answers 500\n"
    "                              error429=N       every Nth API request answers 429 + "
    "Retry-After\n"
    "                              expire-always    every watch from a resourceVersion gets 410\n"
    "                              bookmark-close   every watch ends at once (after one BOOKMARK\n"
    "                                               when the client allows bookmarks)\n"
    "                              close-logs       a followed pod log ends after what it had\n"
    "                              log-delay=MS     every pod log answers MS ms late (a slow\n"
    "                                               kubelet; sooner when the client goes)\n"
    "                              log-stall=N      every pod log sends N lines, then nothing\n"
    "                                               until the client goes (a hung kubelet)\n"
    "                              throttle-list=N  the first N lists (GET with limit=) of\n"
    "                                               every path answer 429 + Retry-After\n"
    "                              throttle-watch=N the first N watches of every path answer\n"
    "                                               429 + Retry-After\n"
    "                              retry-after=S    the Retry-After of error429 and throttle-*\n"
    "                                               (default 1)\n"
    "                              stall=MS         delay every response by MS milliseconds\n"
    "                              slow=RESOURCE    requests on RESOURCE (plural) answer 1.5 s "
    "late\n"
    "                              slow-history=MS  whole lists (no labelSelector) of the\n"
    "                                               volume resources answer MS ms late\n"
    "                              malformed-event  write one malformed line into a watch\n"
    "                              forbid=RESOURCE  403 Forbidden for that resource (repeatable)\n"
    "                              dl-drip=BPS      the object store sends artifacts at BPS\n"
    "                                               bytes a second\n"
    "                              dl-hang          the object store answers 200, then nothing\n"
    "                              dl-expired=N     the first N artifact GETs answer S3's 403\n"
    "                                               \"Request has expired\"\n"
    "  --latency MS              emulate a slow link: one-way delay of MS ms (every answer\n"
    "                            starts a round trip after its request, a new connection's\n"
    "                            first one more round trip later, two with --tls)\n"
    "  --bandwidth BYTES_PER_S   emulate a slow link: pace every connection's answers\n"
    "  --no-gzip                 never gzip answers (as kube-apiserver does by default for\n"
    "                            lists and objects over 128 KiB when the client accepts gzip)\n"
    "  --rv0-limit               resourceVersion=0 lists honour limit and page (as a server\n"
    "                            that lists from storage, not a watch cache, does)\n"
    "  --bookmark-interval MS    BOOKMARK events every MS ms on watches that allow them\n"
    "                            (default 60000)\n"
    "  --resource-progress       write status.resourceProgress (per-resource counts that no\n"
    "                            Velero release writes; stock Velero by default)\n"
    "  --no-resource-progress    stock Velero: no status.resourceProgress (the default)\n"
    "  --object-store-tls        serve artifacts (DownloadRequest URLs) from an HTTPS origin of\n"
    "                            their own, with a self-signed CA given base64 in the BSL's\n"
    "                            spec.objectStorage.caCert (as a self-signed MinIO)\n"
    "  --log-format text|json    the Velero server's log format (pod log and stored logs), as its\n"
    "                            --log-format flag (default text)\n"
    "  --layout install|helm     the server and node-agent pods' labels: `velero install`'s\n"
    "                            (deploy=velero; default) or the Helm chart's (name=velero)\n"
    "  --passive                 the controller does not run backups or restores created\n"
    "                            through the API (for API conformance tests)\n"
    "  --context-name NAME       the kubeconfig's context, cluster and user name (default\n"
    "                            veltop-sim)\n"
    "  --velero-namespace NS     Velero's namespace (default velero; OADP: openshift-adp)\n"
    "  --fleet demo              several clusters, one port each: a healthy one, a stalled\n"
    "                            restore, an overdue schedule, an unreachable one, pods\n"
    "                            forbidden, Velero in openshift-adp, an unauthorised user;\n"
    "                            --kubeconfig-out writes one context per cluster; prints\n"
    "                            'listening on URL context NAME' per cluster, then 'fleet ready'\n"
    "  --rbac FILE               authorise every API request as kube-apiserver's RBAC would with\n"
    "                            the rules of the Roles and ClusterRoles in FILE (YAML, other\n"
    "                            kinds skipped; a Role's rules in its namespace only): anything\n"
    "                            they do not allow answers 403 Forbidden with kube's Status\n"
    "                            (counted as rbacDenied in GET /debug/stats); discovery (/api,\n"
    "                            /apis, /version) is always allowed, as system:discovery\n"
    "  --record FILE             append one JSON line per API request that writes (not GET):\n"
    "                            method, path, query, contentType, user and the body as sent\n"
    "                            (parsed when JSON), before it is answered (tests check the\n"
    "                            objects on the wire)\n"
    "  --quiet                   no messages on stderr\n"
    "  --clock-skew SECONDS      the cluster's clock is off the real one by this much (negative:\n"
    "                            behind): every timestamp and the Date header of every answer\n"
    "                            say so\n"
    "  --freeze-at SECONDS       the simulated clock stands still SECONDS past the start, from\n"
    "                            the start: every run is where the scenario has it then and\n"
    "                            stays there (tests that compare two reads; with --fleet, every\n"
    "                            cluster)\n"
    "  --help                    this text\n"
    "\n"
    "Besides the Kubernetes API (discovery, velero.io/v1 and v2alpha1 resources, the Velero\n"
    "server pod and its log), it serves GET /download/TOKEN (DownloadRequest artifacts),\n"
    "GET /debug/stats (request, watch and fault counters, JSON), POST /debug/faults-off (from "
    "then\n"
    "on no fault is injected) and GET /healthz.\n";

/* --fleet demo: the demo fleet, one kubeconfig for all of it, until a signal. */
static int run_fleet(const vsim_opts *o, sigset_t *set)
{
    char err[1024] = "";
    size_t n;
    const vsim_fleet_def *defs = vsim_fleet_demo(&n);
    vsim_fleet *f = vsim_fleet_start(defs, n, o->speed, o->freeze ? o->freeze_at : -1, o->quiet,
                                     err, sizeof err);
    if (!f) {
        fprintf(stderr, "veltop-sim: %s\n", err);
        return 1;
    }
    if (o->kubeconfig_out) {
        char *kc = vsim_fleet_kubeconfig(f);
        int fd = open(o->kubeconfig_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL; /* it holds tokens: owner only */
        int ok = out && fputs(kc, out) >= 0;
        if (out && fclose(out)) ok = 0;
        free(kc);
        if (!ok) {
            fprintf(stderr, "veltop-sim: cannot write kubeconfig %s\n", o->kubeconfig_out);
            vsim_fleet_stop(f);
            return 1;
        }
    }
    for (size_t i = 0; i < vsim_fleet_len(f); i++)
        printf("listening on %s context %s\n", vsim_fleet_url(f, i),
               vsim_fleet_member(f, i)->context);
    printf("fleet ready\n");
    fflush(stdout);
    int sig = 0;
    sigwait(set, &sig);
    vsim_fleet_stop(f);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"kubeconfig-out", required_argument, NULL, 'k'},
        {"scenario", required_argument, NULL, 's'},
        {"layout", required_argument, NULL, 'Y'},
        {"speed", required_argument, NULL, 'x'},
        {"seed", required_argument, NULL, 'r'},
        {"tls", no_argument, NULL, 't'},
        {"auth", required_argument, NULL, 'a'},
        {"kube-version", required_argument, NULL, 'v'},
        {"faults", required_argument, NULL, 'f'},
        {"bookmark-interval", required_argument, NULL, 'b'},
        {"resource-progress", no_argument, NULL, 'R'},
        {"latency", required_argument, NULL, 'D'},
        {"bandwidth", required_argument, NULL, 'B'},
        {"no-gzip", no_argument, NULL, 'Z'},
        {"rv0-limit", no_argument, NULL, '0'},
        {"no-resource-progress", no_argument, NULL, 'n'},
        {"log-format", required_argument, NULL, 'L'},
        {"object-store-tls", no_argument, NULL, 'O'},
        {"passive", no_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"clock-skew", required_argument, NULL, 'K'},
        {"freeze-at", required_argument, NULL, 1000},
        {"context-name", required_argument, NULL, 'C'},
        {"velero-namespace", required_argument, NULL, 'N'},
        {"fleet", required_argument, NULL, 'F'},
        {"rbac", required_argument, NULL, 'A'},
        {"record", required_argument, NULL, 'W'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    vsim_opts o = {0};
    int bookmark_ms = 0, fleet = 0;
    const char *rbac_file = NULL;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            o.listen = optarg;
            break;
        case 'k':
            o.kubeconfig_out = optarg;
            break;
        case 's':
            o.scenario = optarg;
            break;
        case 'x':
            o.speed = strtod(optarg, &end);
            if (*end || o.speed <= 0) {
                fprintf(stderr, "veltop-sim: bad --speed '%s': expected a positive number\n",
                        optarg);
                return 2;
            }
            break;
        case 1000:
            o.freeze_at = strtod(optarg, &end);
            if (!*optarg || *end || !isfinite(o.freeze_at) || o.freeze_at < 0) {
                fprintf(stderr, "veltop-sim: bad --freeze-at '%s': expected seconds (0 or more)\n",
                        optarg);
                return 2;
            }
            o.freeze = 1;
            break;
        case 'K':
            o.clock_skew = strtod(optarg, &end);
            if (!*optarg || *end || !isfinite(o.clock_skew)) {
                fprintf(stderr, "veltop-sim: bad --clock-skew '%s': expected seconds\n", optarg);
                return 2;
            }
            break;
        case 'r':
            o.seed = (unsigned)strtoul(optarg, &end, 10);
            if (!*optarg || *end) {
                fprintf(stderr, "veltop-sim: bad --seed '%s': expected a number\n", optarg);
                return 2;
            }
            break;
        case 't':
            o.tls = 1;
            break;
        case 'a':
            o.auth = optarg;
            break;
        case 'v': {
            const char *m = strncmp(optarg, "1.", 2) ? optarg : optarg + 2;
            long minor = strtol(m, &end, 10);
            if (*end || minor < 1 || minor > 99) {
                fprintf(stderr, "veltop-sim: bad --kube-version '%s': expected 1.NN\n", optarg);
                return 2;
            }
            o.kube_minor = (int)minor;
            break;
        }
        case 'f':
            o.faults = optarg;
            break;
        case 'b':
            bookmark_ms = (int)strtol(optarg, &end, 10);
            if (*end || bookmark_ms <= 0) {
                fprintf(stderr,
                        "veltop-sim: bad --bookmark-interval '%s': expected milliseconds > 0\n",
                        optarg);
                return 2;
            }
            break;
        case 'R':
            o.resource_progress = 1;
            break;
        case 'D':
            o.latency_ms = (int)strtol(optarg, &end, 10);
            if (!*optarg || *end || o.latency_ms < 0 || o.latency_ms > 60000) {
                fprintf(stderr, "veltop-sim: bad --latency '%s': expected milliseconds 0-60000\n",
                        optarg);
                return 2;
            }
            break;
        case 'B':
            o.bandwidth = strtol(optarg, &end, 10);
            if (!*optarg || *end || o.bandwidth < 0) {
                fprintf(stderr, "veltop-sim: bad --bandwidth '%s': expected bytes per second\n",
                        optarg);
                return 2;
            }
            break;
        case 'Z':
            o.no_gzip = 1;
            break;
        case '0':
            o.rv0_limit = 1;
            break;
        case 'n':
            o.resource_progress = 0;
            break;
        case 'O':
            o.object_store_tls = 1;
            break;
        case 'L':
            if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
                fprintf(stderr, "veltop-sim: bad --log-format '%s': expected text or json\n",
                        optarg);
                return 2;
            }
            o.log_json = !strcmp(optarg, "json");
            break;
        case 'Y':
            if (strcmp(optarg, "install") && strcmp(optarg, "helm")) {
                fprintf(stderr, "veltop-sim: bad --layout '%s': expected install or helm\n",
                        optarg);
                return 2;
            }
            o.helm = !strcmp(optarg, "helm");
            break;
        case 'P':
            o.passive = 1;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'C':
            o.context_name = optarg;
            break;
        case 'N':
            o.velero_ns = optarg;
            break;
        case 'F':
            if (strcmp(optarg, "demo")) {
                fprintf(stderr, "veltop-sim: bad --fleet '%s': expected demo\n", optarg);
                return 2;
            }
            fleet = 1;
            break;
        case 'A':
            rbac_file = optarg;
            break;
        case 'W':
            o.record = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "veltop-sim: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    /* every thread inherits the blocked signals; the main thread takes them with sigwait */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    char err[1024] = "";
    sim_rbac *rbac = NULL;
    if (rbac_file) {
        if (fleet) {
            fprintf(stderr, "veltop-sim: --rbac is for one cluster, not --fleet\n");
            return 2;
        }
        rbac = sim_rbac_load(rbac_file, err, sizeof err);
        if (!rbac) {
            fprintf(stderr, "veltop-sim: --rbac %s\n", err);
            return 2;
        }
        o.rbac = rbac;
    }
    if (fleet) return run_fleet(&o, &set);
    vsim *v = vsim_start(&o, err, sizeof err);
    if (!v) {
        fprintf(stderr, "veltop-sim: %s\n", err);
        sim_rbac_free(rbac);
        return 1;
    }
    if (bookmark_ms > 0) vsim_set_bookmark_ms(v, bookmark_ms);
    printf("listening on %s\n", vsim_url(v));
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    if (!o.quiet) fprintf(stderr, "veltop-sim: %s, stopping\n", strsignal(sig));
    vsim_stop(v);
    sim_rbac_free(rbac);
    return 0;
}
