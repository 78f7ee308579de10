/* wait.c: --wait: the progress of one run, for scripts and CI (`velero backup create --wait`
 * with progress), on the same reflectors, model and trackers as the screens: its figures are the
 * run's answer (answer.h), as on every other surface. */
#include "wait.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "format.h"
#include "health.h"
#include "logderive.h"
#include "opsfetch.h"
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

/* ---- the progress line -------------------------------------------------------------------- */

/* The line's fields in the order they are written, two spaces apart. */
enum {
    WF_HEAD,    /* "backup NAME" */
    WF_PHASE,   /* as Velero says it */
    WF_ITEMS,   /* "items 120/~400" */
    WF_BYTES,   /* "bytes 1.2 GiB/4.0 GiB" over the run's volumes */
    WF_STALLED, /* "stalled 3m12s (pod volumes shop/db-0:data)" */
    WF_RATE,    /* the rate of what the end waits on */
    WF_ETA,     /* "eta done in ~3m12s (at 17:08:14), more volumes may come" */
    WF_WAITING, /* "waiting on pod volumes shop/db-0:data" */
    WF_STALE,   /* "(cluster not answering since 17:05:02)" */
    WF_N
};

typedef struct wait_field {
    char full[512], shorter[400]; /* shorter "": the field is dropped instead */
    int level;                    /* 0 whole, 1 shorter, 2 dropped */
} wait_field;

/* What gives way first when the line is wider than the terminal, the least important first:
 * each step shortens one field to its shorter text (or drops it when it has none) or drops it.
 * The kind and name, phase, items, stalled and ETA stay; a number is never cut, only written in
 * a shorter whole form (fmt_count_pair, fmt_bytes_pair). */
static const struct {
    int field, level;
} wait_degrade[] = {
    {WF_ETA, 1},     /* the phrase to the list's cell ("3m12s+"); stalled or stale: it goes */
    {WF_WAITING, 1}, /* what the end waits on, without the volume */
    {WF_RATE, 2},    /* the rate */
    {WF_WAITING, 2}, /* what the end waits on */
    {WF_BYTES, 2},   /* the bytes */
    {WF_STALLED, 1}, /* "stalled 3m12s", without what stalled */
    {WF_ITEMS, 1},   /* "items 1.2M/~9.9M" */
    {WF_STALE, 1},   /* "(not answering since T)" */
};

static const char *wait_field_text(const wait_field *f)
{
    return f->level == 0 ? f->full : f->level == 1 ? f->shorter : "";
}

/* The fields joined into line; returns its width in terminal columns. */
static int wait_join(const wait_field *f, char *line, size_t n)
{
    size_t o = 0;
    int w = 0;
    line[0] = 0;
    for (int i = 0; i < WF_N; i++) {
        const char *t = wait_field_text(&f[i]);
        if (!*t) continue;
        int k = snprintf(line + o, o < n ? n - o : 0, "%s%s", o ? "  " : "", t);
        if (k > 0) o += (size_t)k;
        if (o >= n) o = n - 1;
        w += (w ? 2 : 0) + san_width(t);
    }
    return w;
}

/* The part the run waits on (or that stalled), with its volume when it is one and with_vol. */
static void wait_part(char *buf, size_t n, const run_answer *a, re_part p, const model_volume *v,
                      int with_vol)
{
    char lbl[320];
    if (p == RE_DATAMOVER && a->part[RE_DATAMOVER].state == RE_ABSENT && !v) {
        snprintf(buf, n, "plugin operations"); /* another plugin's: only their counts are seen */
    } else if (v && with_vol) {
        char *s = san_str(runeta_vol_label(lbl, sizeof lbl, v));
        snprintf(buf, n, "%s %s", runeta_part_name(p), s);
        free(s);
    } else {
        snprintf(buf, n, "%s", runeta_part_name(p));
    }
}

void wait_describe(const run_answer *a, const model_run *r, int width, char *line, size_t n,
                   char *key, size_t kn)
{
    const vl_run *run = r->run;
    wait_field f[WF_N];
    char b1[64], b2[64];
    memset(f, 0, sizeof f);
    char *nm = san_str(r->name), *ph = san_str(run->phase);
    snprintf(f[WF_HEAD].full, sizeof f[WF_HEAD].full, "%s %s",
             r->kind == VL_BACKUP ? "backup" : "restore", nm);
    snprintf(f[WF_PHASE].full, sizeof f[WF_PHASE].full, "%s", *ph ? ph : "-");
    if (a->items_known) {
        snprintf(f[WF_ITEMS].full, sizeof f[WF_ITEMS].full, "items %s",
                 fmt_count_pair(b1, sizeof b1, a->items_done, a->items_total, a->items_estimated,
                                INT_MAX));
        snprintf(
            f[WF_ITEMS].shorter, sizeof f[WF_ITEMS].shorter, "items %s",
            fmt_count_pair(b1, sizeof b1, a->items_done, a->items_total, a->items_estimated, 0));
    }
    /* bytes as the list row says them: the total "?" while a volume is not sized yet, unknown
     * while a volume list is not visible */
    if (!a->bytes_known) {
        snprintf(f[WF_BYTES].full, sizeof f[WF_BYTES].full, "bytes unknown");
    } else if (a->n_volumes && a->bytes_total_known) {
        snprintf(f[WF_BYTES].full, sizeof f[WF_BYTES].full, "bytes %s",
                 fmt_bytes_pair(b1, sizeof b1, a->bytes_done, a->bytes_total, "/", INT_MAX));
    } else if (a->n_volumes) {
        snprintf(f[WF_BYTES].full, sizeof f[WF_BYTES].full, "bytes %s/?",
                 fmt_bytes(b1, sizeof b1, a->bytes_done));
    }
    int stalled = a->active && a->stalled == ANS_YES;
    if (stalled) {
        char part[360];
        wait_part(part, sizeof part, a, a->stalled_part, a->stalled_vol, 1);
        fmt_duration(b1, sizeof b1, a->stalled_for);
        snprintf(f[WF_STALLED].full, sizeof f[WF_STALLED].full, "stalled %s (%s)", b1, part);
        snprintf(f[WF_STALLED].shorter, sizeof f[WF_STALLED].shorter, "stalled %s", b1);
    } else {
        /* the rate of what the end waits on: bytes/s of a volume or data mover, else items/s;
         * a finished run's whole-run average of its items */
        int bytes = a->active && (a->waiting == RE_PODVOLS || a->waiting == RE_DATAMOVER);
        double rate = a->active ? a->waiting_rate : a->items_rate;
        snprintf(f[WF_RATE].full, sizeof f[WF_RATE].full, "rate %s",
                 bytes ? fmt_byte_rate(b1, sizeof b1, rate) : fmt_rate(b1, sizeof b1, rate));
    }
    /* the ETA as every surface says it: the phrase, and the list's cell when short of room (the
     * cell keeps the caveat's "+"); while stalled "none", which the stall beside it explains,
     * and while stale "unknown: no current data since T", which the note says too */
    char eta[320];
    snprintf(f[WF_ETA].full, sizeof f[WF_ETA].full, "eta %s",
             answer_eta_line(eta, sizeof eta, a, 0));
    if (!stalled && !a->stale) /* stale: the note says it */
        snprintf(f[WF_ETA].shorter, sizeof f[WF_ETA].shorter, "eta %s",
                 answer_eta_cell(b2, sizeof b2, a, !san_ascii()));
    if (a->active && a->waiting_unknown) {
        snprintf(f[WF_WAITING].full, sizeof f[WF_WAITING].full, "waiting on unknown (not visible)");
        snprintf(f[WF_WAITING].shorter, sizeof f[WF_WAITING].shorter, "waiting on ?");
    } else if (a->active) {
        char part[360];
        wait_part(part, sizeof part, a, a->waiting, a->waiting_vol, 1);
        snprintf(f[WF_WAITING].full, sizeof f[WF_WAITING].full, "waiting on %s", part);
        wait_part(part, sizeof part, a, a->waiting, a->waiting_vol, 0);
        snprintf(f[WF_WAITING].shorter, sizeof f[WF_WAITING].shorter, "waiting on %s", part);
    }
    if (a->stale) {
        /* frozen as of the last current data: say so, no countdown */
        fmt_clock(b1, sizeof b1, a->at, 0);
        snprintf(f[WF_STALE].full, sizeof f[WF_STALE].full, "(cluster not answering since %s)", b1);
        snprintf(f[WF_STALE].shorter, sizeof f[WF_STALE].shorter, "(not answering since %s)", b1);
    }
    /* fields with no shorter form keep their text at level 1 (only level 2 drops them), but
     * the ETA's: while stalled it has nothing to shorten to */
    for (int i = 0; i < WF_N; i++) {
        if (f[i].shorter[0] || i == WF_ETA) continue;
        size_t l = strnlen(f[i].full, sizeof f[i].shorter - 1);
        memcpy(f[i].shorter, f[i].full, l);
        f[i].shorter[l] = 0;
    }
    int w = wait_join(f, line, n);
    for (size_t s = 0; width > 0 && w > width && s < sizeof wait_degrade / sizeof wait_degrade[0];
         s++) {
        wait_field *x = &f[wait_degrade[s].field];
        if (x->level < wait_degrade[s].level) x->level = wait_degrade[s].level;
        w = wait_join(f, line, n);
    }
    if (width > 0 && w > width) {
        /* still too wide: the name gives way (cut, with an ellipsis), then whole fields, never
         * part of one, the ETA and the stall last */
        int rest = w - san_width(f[WF_HEAD].full);
        int kw = (int)strlen(r->kind == VL_BACKUP ? "backup " : "restore ");
        int room = width - rest - kw;
        if (room < 8) room = 8;
        char cut[300];
        san_fit_ellipsis(cut, sizeof cut, r->name, room);
        snprintf(f[WF_HEAD].full, sizeof f[WF_HEAD].full, "%s %s",
                 r->kind == VL_BACKUP ? "backup" : "restore", cut);
        w = wait_join(f, line, n);
        static const int last[] = {WF_STALE, WF_ITEMS, WF_PHASE, WF_ETA, WF_STALLED};
        for (size_t i = 0; i < sizeof last / sizeof last[0] && w > width; i++) {
            f[last[i]].level = 2;
            w = wait_join(f, line, n);
        }
    }
    /* what is news when it changes: the phase and the verdict, not the moving figures */
    snprintf(key, kn, "%s %s stalled=%d waiting=%d eta=%s%s", nm, ph, (int)a->stalled,
             a->active ? (int)a->waiting : -1, answer_eta_kind_name(a->eta_kind),
             a->stale ? " stale" : "");
    free(nm);
    free(ph);
}

char *wait_stamp(char *buf, size_t n, double wall, int utc)
{
    time_t t = (time_t)floor(wall);
    struct tm tm;
    char z[16] = "Z";
    if (utc) {
        gmtime_r(&t, &tm);
    } else {
        localtime_r(&t, &tm);
        char off[16]; /* "+0530" -> "+05:30" (RFC 3339) */
        if (strftime(off, sizeof off, "%z", &tm) == 5)
            snprintf(z, sizeof z, "%.3s:%.2s", off, off + 3);
    }
    char d[40];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s%s", d, z);
    return buf;
}

int wait_news(const char *key, const char *last_key, const char *line, const char *last_line,
              double since_last, double interval)
{
    if (strcmp(key, last_key)) return 1;
    return since_last >= interval && strcmp(line, last_line);
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

/* Columns of the terminal out writes to: TIOCGWINSZ, else $COLUMNS, else 80. */
static int wait_columns(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end;
    long v = c ? strtol(c, &end, 10) : 0;
    if (c && *c && !*end && v > 0 && v < 10000) return (int)v;
    return 80;
}

static int wait_follow(app *a, vl_kind kind, const char *name, const wait_opts *o, FILE *out,
                       FILE *err);

/* As the screen and --serve: the run's items are judged on the same facts, the Velero server's
 * live log among them (log-derived rows say when a total is final: "10/10", not "10/~10"). */
int wait_run(app *a, vl_kind kind, const char *name, const wait_opts *o, FILE *out, FILE *err)
{
    int own = !a->derive, own_ops = !a->opsfetch;
    /* the plugin operations of a run waiting on them, as the screen and --serve read them (a
     * DownloadRequest): what moves beside a stalled data mover */
    if (own_ops) a->opsfetch = opsfetch_new(a);
    int rc = wait_follow(a, kind, name, o, out, err);
    if (own) {
        logderive_free(a->derive);
        a->derive = NULL;
    }
    if (own_ops) {
        opsfetch_free(a->opsfetch);
        a->opsfetch = NULL;
    }
    return rc;
}

static int wait_follow(app *a, vl_kind kind, const char *name, const wait_opts *o, FILE *out,
                       FILE *err)
{
    int refl = kind == VL_BACKUP ? APP_R_BACKUPS : APP_R_RESTORES;
    double start = wait_mono(), synced_at = 0, printed_at = 0;
    char last_key[512] = "", last_line[1024] = "", line[1024], key[512];
    int shown = 0; /* tty: a progress line is on screen */
    for (;;) {
        kc_loop_run_once(a->loop, 1000);
        double now = wait_mono();
        const kc_refl_status *st = kc_reflector_status(a->refl[refl]);
        app_conn conn;
        app_connection(a, now, &conn);
        if (o->timeout_s > 0 && now - start >= o->timeout_s) {
            char d[32];
            if (shown) fputc('\n', out);
            model_run *r = model_find_run(a->model, kind, name);
            char *nm = san_str(name), *ph = san_str(r && r->run ? r->run->phase : "not found");
            wait_error(err, "timed out after %s: %s %s is %s",
                       fmt_duration(d, sizeof d, o->timeout_s),
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
        if (!synced_at) {
            synced_at = now;
            /* the first line says what --once says: the log read so far, whole (within --once's
             * 5 s), then followed */
            if (!a->derive) {
                int64_t ms = 5000;
                if (o->timeout_s > 0 && (o->timeout_s - (now - start)) * 1000 < ms)
                    ms = (int64_t)((o->timeout_s - (now - start)) * 1000);
                logderive_once(a, ms > 0 ? ms : 0, 0, NULL, NULL);
                a->derive = logderive_new(a);
            }
            now = wait_mono();
        }
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
        if (c.loading && !app_run_volumes_listed(a, r) &&
            now - synced_at < WAIT_MISSING_S) { /* its volumes first, then a line */
            health_free(h);
            continue;
        }
        run_answer ans;
        answer_run(&c, r, &ans);
        int rc = wait_exit_of(r->run->phase_id);
        if (o->tty) {
            /* one line rewritten in place, within the terminal's width (one column spare: a
             * line that fills the last column would wrap on some terminals) */
            int cols = wait_columns(out);
            wait_describe(&ans, r, cols > 2 ? cols - 1 : 1, line, sizeof line, key, sizeof key);
            if (!shown || strcmp(line, last_line)) fprintf(out, "\r\033[K%s", line);
            snprintf(last_line, sizeof last_line, "%s", line);
            shown = 1;
        } else {
            wait_describe(&ans, r, 0, line, sizeof line, key, sizeof key);
            if (rc >= 0 ||
                wait_news(key, last_key, line, last_line, now - printed_at, o->interval_s)) {
                char ts[48];
                fprintf(out, "%s %s\n", wait_stamp(ts, sizeof ts, wall, o->utc), line);
                printed_at = now;
                snprintf(last_key, sizeof last_key, "%s", key);
                snprintf(last_line, sizeof last_line, "%s", line);
            }
        }
        if (rc >= 0) {
            char dur[32];
            if (o->tty) fputc('\n', out);
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
