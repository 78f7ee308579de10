/* wait.c: --wait: the progress of one run, for scripts and CI (`velero backup create --wait`
 * with progress), on the same reflectors, model and trackers as the screens. */
#include "wait.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "kubeclient/util.h"
#include "sanitize.h"

/* A message for err, made safe as every stderr message of veltop (san_message). */
static void wait_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wait_error(FILE *err, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *m = san_message("%s", text);
    fputs(m, err);
    free(m);
}

#define WAIT_LIST_TIMEOUT_S 15.0 /* the first list (as --once) */
#define WAIT_MISSING_S      15.0 /* the run must exist by then after the list */
#define WAIT_DOWN_S         60.0 /* the connection down this long: unreachable */

int wait_parse(const char *target, vl_kind *kind, char *name, size_t n, char *err, size_t errlen)
{
    static const struct {
        const char *prefix;
        vl_kind kind;
    } pre[] = {{"backup/", VL_BACKUP},
               {"backups/", VL_BACKUP},
               {"restore/", VL_RESTORE},
               {"restores/", VL_RESTORE}};
    for (size_t i = 0; target && i < sizeof pre / sizeof pre[0]; i++) {
        size_t pl = strlen(pre[i].prefix);
        if (strncmp(target, pre[i].prefix, pl)) continue;
        const char *nm = target + pl;
        if (!*nm || strlen(nm) >= n || strlen(nm) > 253 || strchr(nm, '/')) break;
        *kind = pre[i].kind;
        snprintf(name, n, "%s", nm);
        return 0;
    }
    snprintf(err, errlen, "invalid --wait '%s': expected backup/NAME or restore/NAME",
             target ? target : "");
    return -1;
}

static double wait_mono(void)
{
    return (double)kc_now_ms() / 1000.0;
}

/* The progress line: phase, items, bytes, rate, ETA. key gets the part whose change is news. */
static void wait_line(app *a, model_run *r, double now, char *line, size_t n, char *key, size_t kn)
{
    const vl_run *run = r->run;
    model_refresh_volumes(a->model);
    char ph[64], items[64] = "", bytes[80] = "", b1[32], b2[32], rate[32], eta[32];
    char *sp = san_str(run->phase);
    snprintf(ph, sizeof ph, "%s", sp);
    free(sp);
    if (run->items_total > 0 || run->items_done > 0)
        snprintf(items, sizeof items, "  items %lld/%s%lld", (long long)run->items_done,
                 model_run_total_estimated(r) ? "~" : "", (long long)run->items_total);
    if (r->vols.n)
        snprintf(bytes, sizeof bytes, "  bytes %s/%s", fmt_bytes(b1, sizeof b1, r->vols.bytes_done),
                 fmt_bytes(b2, sizeof b2, r->vols.bytes_total));
    double rt = model_run_rate(r, now), et = model_run_eta(r, now);
    fmt_rate(rate, sizeof rate, rt);
    fmt_eta(eta, sizeof eta, vl_phase_active(run->phase_id) ? et : -1);
    char *nm = san_str(r->name);
    snprintf(key, kn, "%s %s%s%s", nm, ph, items, bytes);
    snprintf(line, n, "%s %s  %s%s%s  rate %s  eta %s", r->kind == VL_BACKUP ? "backup" : "restore",
             nm, ph, items, bytes, rate, eta);
    free(nm);
}

static int wait_exit_of(vl_phase p)
{
    switch (p) {
    case VL_PH_COMPLETED:
        return WAIT_COMPLETED;
    case VL_PH_PARTIALLY_FAILED:
        return WAIT_PARTIALLY_FAILED;
    case VL_PH_FAILED:
    case VL_PH_FAILED_VALIDATION:
        return WAIT_FAILED;
    default:
        return -1;
    }
}

int wait_run(app *a, vl_kind kind, const char *name, int tty, FILE *out, FILE *err)
{
    int refl = kind == VL_BACKUP ? APP_R_BACKUPS : APP_R_RESTORES;
    double start = wait_mono(), synced_at = 0;
    char last_key[512] = "", line[512], key[512];
    int shown = 0; /* tty: a progress line is on screen */
    for (;;) {
        kc_loop_run_once(a->loop, 1000);
        double now = wait_mono();
        const kc_refl_status *st = kc_reflector_status(a->refl[refl]);
        app_conn conn;
        app_connection(a, now, &conn);
        if (!st->synced) {
            /* a list the server asked to wait for (Retry-After) is tried again (client.h):
             * not timed out while that goes on, as kubectl waits for it */
            if (st->state == KC_REFL_FAILED ||
                (now - start > WAIT_LIST_TIMEOUT_S && !st->throttled)) {
                if (shown) fputc('\n', out);
                wait_error(err, "%s",
                           st->last_error[0] ? st->last_error
                                             : "timed out listing Velero's resources");
                return WAIT_UNREACHABLE;
            }
            continue;
        }
        if (!synced_at) synced_at = now;
        if (conn.stale_since > 0 && now - conn.stale_since > WAIT_DOWN_S) {
            if (shown) fputc('\n', out);
            wait_error(err, "the cluster has been unreachable for %.0f s: %s",
                       now - conn.stale_since, conn.error[0] ? conn.error : "no answer");
            return WAIT_UNREACHABLE;
        }
        model_run *r = model_find_run(a->model, kind, name);
        if (!r || !r->run) {
            if (now - synced_at > WAIT_MISSING_S) {
                wait_error(err, "%s %s not found in namespace %s",
                           kind == VL_BACKUP ? "backup" : "restore", name, a->ns);
                return WAIT_UNREACHABLE;
            }
            continue;
        }
        wait_line(a, r, now, line, sizeof line, key, sizeof key);
        int rc = wait_exit_of(r->run->phase_id);
        if (tty) {
            fprintf(out, "\r\033[K%s", line);
            shown = 1;
        } else if (strcmp(key, last_key) || rc >= 0) {
            fprintf(out, "%s\n", line);
        }
        snprintf(last_key, sizeof last_key, "%s", key);
        if (rc >= 0) {
            char dur[32];
            if (tty) fputc('\n', out);
            char *nm = san_str(name), *ph = san_str(r->run->phase);
            fprintf(out, "%s %s finished: %s after %s\n", kind == VL_BACKUP ? "backup" : "restore",
                    nm, ph, fmt_duration(dur, sizeof dur, model_run_duration(r, kc_wall_now())));
            free(nm);
            free(ph);
            fflush(out);
            return rc;
        }
        fflush(out);
    }
}
