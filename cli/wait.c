/* wait.c: --wait: the progress of one run, for scripts and CI (`velero backup create --wait`
 * with progress), on the same reflectors, model and trackers as the screens: its figures are the
 * run's answer (answer.h), as on every other surface. */
#include "wait.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "health.h"
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

void wait_describe(const run_answer *a, const model_run *r, char *line, size_t n, char *key,
                   size_t kn)
{
    const vl_run *run = r->run;
    char ph[64], items[64] = "", bytes[80] = "", b1[32], b2[160], rate[64], eta[320],
                 state[240] = "";
    char *sp = san_str(run->phase);
    snprintf(ph, sizeof ph, "%s", sp);
    free(sp);
    if (a->items_known)
        snprintf(items, sizeof items, "  items %lld/%s%lld", (long long)a->items_done,
                 a->items_estimated ? "~" : "", (long long)a->items_total);
    if (a->n_volumes)
        snprintf(bytes, sizeof bytes, "  bytes %s/%s", fmt_bytes(b1, sizeof b1, a->bytes_done),
                 a->bytes_total_known ? fmt_bytes(b2, sizeof b2, a->bytes_total) : "?");
    fmt_rate(rate, sizeof rate, a->items_rate);
    if (a->active && a->bytes_rate > 0) {
        size_t o = strlen(rate);
        snprintf(rate + o, sizeof rate - o, " %s", fmt_byte_rate(b1, sizeof b1, a->bytes_rate));
    }
    /* the ETA as every surface says it: an estimate (with what may add to it), or none and why */
    if (!a->active) {
        snprintf(eta, sizeof eta, "-");
    } else if (a->eta_kind != ANS_ETA_NONE) {
        answer_eta_cell(eta, sizeof eta, a, 0);
        if (a->eta_caveat) {
            size_t o = strlen(eta);
            snprintf(eta + o, sizeof eta - o, " (%s)", a->eta_caveat);
        }
    } else if (a->eta_why == ANS_WHY_INCOMPLETE) {
        snprintf(eta, sizeof eta, "unknown (%s)", a->missing_text);
    } else {
        snprintf(eta, sizeof eta, "%s (%s)", a->stalled == ANS_YES ? "none" : "unknown",
                 answer_why_text(a->eta_why));
    }
    if (a->active && a->stalled == ANS_YES) {
        char who[160] = "";
        if (a->stalled_vol) {
            char *v = san_str(runeta_vol_label(b2, sizeof b2, a->stalled_vol));
            snprintf(who, sizeof who, ": %s", v);
            free(v);
        }
        snprintf(state, sizeof state, "  stalled %s (%s%s)",
                 fmt_duration(b1, sizeof b1, a->stalled_for), runeta_part_name(a->stalled_part),
                 who);
    }
    char *nm = san_str(r->name);
    snprintf(key, kn, "%s %s%s%s%s %s", nm, ph, items, bytes,
             a->stalled == ANS_YES ? " stalled" : "", answer_eta_kind_name(a->eta_kind));
    snprintf(line, n, "%s %s  %s%s%s%s  rate %s  eta %s",
             r->kind == VL_BACKUP ? "backup" : "restore", nm, ph, items, bytes, state, rate, eta);
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

/* After the end line: why it failed (the failure reason, the diagnosis). */
static void wait_why(FILE *out, const run_answer *a, const vl_run *run)
{
    if (run->failure_reason && *run->failure_reason) {
        char *fr = san_str(run->failure_reason);
        fprintf(out, "failure reason: %s\n", fr);
        free(fr);
    }
    for (size_t i = 0; i < a->n_diag; i++) {
        char *msg = san_str(a->diag[i].message);
        fprintf(out, "diagnosis %s: %s\n", a->diag[i].code, msg);
        free(msg);
    }
}

int wait_run(app *a, vl_kind kind, const char *name, double timeout_s, int tty, FILE *out,
             FILE *err)
{
    int refl = kind == VL_BACKUP ? APP_R_BACKUPS : APP_R_RESTORES;
    double start = wait_mono(), synced_at = 0;
    char last_key[512] = "", line[640], key[512];
    int shown = 0; /* tty: a progress line is on screen */
    for (;;) {
        kc_loop_run_once(a->loop, 1000);
        double now = wait_mono();
        const kc_refl_status *st = kc_reflector_status(a->refl[refl]);
        app_conn conn;
        app_connection(a, now, &conn);
        if (timeout_s > 0 && now - start >= timeout_s) {
            char d[32];
            if (shown) fputc('\n', out);
            model_run *r = model_find_run(a->model, kind, name);
            char *nm = san_str(name), *ph = san_str(r && r->run ? r->run->phase : "not found");
            wait_error(err, "timed out after %s: %s %s is %s", fmt_duration(d, sizeof d, timeout_s),
                       kind == VL_BACKUP ? "backup" : "restore", nm, ph);
            free(nm);
            free(ph);
            return WAIT_TIMEOUT;
        }
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
        double wall = kc_wall_now();
        health *h = health_of_app(a, wall);
        ans_ctx c;
        answer_ctx_of_app(a, h, now, wall, &c);
        if (c.loading && now - synced_at < WAIT_MISSING_S) { /* its volumes first, then a line */
            health_free(h);
            continue;
        }
        run_answer ans;
        answer_run(&c, r, &ans);
        wait_describe(&ans, r, line, sizeof line, key, sizeof key);
        if (c.stale) {
            /* frozen as of the last current data: say so, no countdown */
            char t[40];
            size_t o = strlen(line), ko = strlen(key);
            snprintf(line + o, sizeof line - o, "  (cluster not answering since %s)",
                     fmt_clock(t, sizeof t, ans.at, 0));
            snprintf(key + ko, sizeof key - ko, " stale");
        }
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
                    nm, ph, fmt_duration(dur, sizeof dur, model_run_duration(r, wall)));
            free(nm);
            free(ph);
            if (rc != WAIT_COMPLETED) wait_why(out, &ans, r->run);
            fflush(out);
            health_free(h);
            return rc;
        }
        health_free(h);
        fflush(out);
    }
}
