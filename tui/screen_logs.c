/* screen_logs.c: the log pager of one run: the stored log (DownloadRequest BackupLog/RestoreLog)
 * of a finished run, or the live log of the Velero server pod filtered to the run while it is in
 * progress; search, level filter, level colours, wrap, next error, follow, write to a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drill.h"
#include "format.h"
#include <cjson/cJSON.h>

#include "kubeclient/client.h"
#include "kubeclient/caps.h"
#include "kubeclient/download.h"
#include "kubeclient/pod.h"
#include "kubeclient/podlog.h"
#include "kubeclient/store.h"
#include "kubeclient/util.h"
#include "logbuf.h"
#include "logparse.h"
#include "objtext.h"
#include "sanitize.h"
#include "widgets.h"

enum { LOGS_PROMPT_NONE, LOGS_PROMPT_SEARCH, LOGS_PROMPT_WRITE };
enum { DESC_JSON, DESC_YAML, DESC_SUMMARY, DESC_NFMT };
#define DESC_REFRESH_S 2.0 /* describe follows the object: fetched again this often */
static const char *const desc_fmt_name[DESC_NFMT] = {"JSON", "YAML", "velero describe"};

typedef struct logs_state {
    vl_kind kind;
    char *name, *ref; /* ref: "<ns>/<name>" as in the log's backup=/restore= field */
    ui *u;
    int started, live;
    int switched; /* the stored log replaced the live log when the run finished */
    logbuf *lb;
    kc_download *dl;
    int dl_done;
    kc_err dl_err;
    kc_podlog *pl;
    char *pod;    /* a pod's whole log (screen_podlog_new: a maintenance job's), not a run's */
    int pod_live; /* the pod ran when opened: its log is followed until the pod ends */
    lp_line scratch;
    size_t top;   /* first view row shown */
    long cur;     /* view row of the current match / error, -1 none */
    int follow;   /* stick to the end (G) */
    int wrap, hx; /* wrap long lines; else horizontal scroll in columns */
    int rows;     /* body rows at the last draw (for paging) */
    int reveal;   /* bring the current match into view sideways at the next draw */
    int hcols;    /* body columns at the last draw */
    /* describe mode (d, y): one object fetched from path, pretty-printed, instead of a log; fetched
     * again every DESC_REFRESH_S while shown (live), the reader's place kept */
    char *desc_path, *desc_what, *desc_name;
    kc_request *req;
    cJSON *desc_obj;     /* the object as last fetched */
    int desc_fmt;        /* DESC_JSON, DESC_YAML, DESC_SUMMARY (= UI_DESC_*) */
    int desc_fmt_set;    /* desc_fmt is the opening key's (d, y), read when first shown */
    double desc_at;      /* unix seconds it was fetched (0 never) */
    double desc_next;    /* monotonic: the next fetch */
    char desc_fail[256]; /* the last refresh failed: why (the text shown is the older one) */
    kc_buf desc_text;    /* the text shown (a refresh that changes nothing redraws nothing) */
    char search[512];
    /* the match counter ("match 3 of 41"): matching view rows, kept while the search, the level
     * filter and the lines are the same (a growing live log adds its new rows) */
    size_t m_total, m_rows, m_dropped, m_cur_row, m_cur_idx;
    lp_level m_filter;
    char m_search[512];
    int m_valid, m_cur_valid;
    int prompt;
    char input[512];
    size_t ilen;
    kc_buf sb; /* sanitising scratch */
} logs_state;

/* ---- data sources ---- */

static void logs_dl_data(void *arg, const char *data, size_t n)
{
    logs_state *st = arg;
    logbuf_append(st->lb, data, n);
    ui_invalidate(st->u);
}

static void logs_dl_done(void *arg, const kc_err *err)
{
    logs_state *st = arg;
    logbuf_flush(st->lb);
    st->dl_done = 1;
    st->dl_err = *err;
    ui_invalidate(st->u);
}

static void logs_pl_line(void *arg, const char *line, size_t n)
{
    logs_state *st = arg;
    if (st->pod) { /* a pod's own log: every line */
        logbuf_append_line(st->lb, line, n);
        ui_invalidate(st->u);
        return;
    }
    if (lp_parse(&st->scratch, line, n)) return;
    const char *ref = lp_get(&st->scratch, st->kind == VL_BACKUP ? "backup" : "restore");
    if (!ref || strcmp(ref, st->ref)) return;
    logbuf_append_line(st->lb, line, n);
    ui_invalidate(st->u);
}

static void logs_pl_status(void *arg, kc_podlog *p)
{
    (void)p;
    logs_state *st = arg;
    ui_invalidate(st->u);
}

/* The pod's containers have all exited for good (a Job's pod: Succeeded or Failed). */
static int logs_pod_ended(const kc_pod *p)
{
    return p->phase && (!strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed"));
}

/* A followed pod's log: once the pod has ended (or is gone), read to its end and stop. */
static void logs_pod_check(logs_state *st, app *a)
{
    if (!st->pod_live || !st->pl) return;
    const kc_pod *p = kc_store_get(a->stores[APP_R_PODS], a->ns, st->pod);
    if (!p || logs_pod_ended(p)) kc_podlog_finish(st->pl);
}

static void logs_start_stored(logs_state *st, app *a)
{
    kc_download_opts o = {.ns = a->ns,
                          .kind = st->kind == VL_BACKUP ? "BackupLog" : "RestoreLog",
                          .target = st->name,
                          .max_bytes = KC_CAP_LOG_BYTES};
    st->dl = app_download(a, &o, logs_dl_data, logs_dl_done, st);
}

/* The object as text in the format chosen: JSON pretty-printed (two spaces a level), YAML as
 * kubectl prints it, or velero describe's summary; without metadata.managedFields. Replaces the
 * pager's lines only when the text changed, keeping the reader's place (top, sideways, search). */
static void logs_desc_render(logs_state *st)
{
    if (!st->desc_obj) return;
    kc_buf out = {0};
    if (st->desc_fmt == DESC_YAML) {
        if (objtext_yaml(st->desc_obj, &out)) {
            out.len = 0;
            kc_buf_append(&out, "(the YAML emitter failed: o shows JSON)\n", 40);
        }
    } else if (st->desc_fmt == DESC_SUMMARY) {
        /* a run: its pod volumes as --details lists them, from the volumes veltop watches */
        const char *kind =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st->desc_obj, "kind"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(st->desc_obj, "metadata"), "name"));
        int restore = kind && !strcmp(kind, "Restore");
        model_run *r = kind && name && (restore || !strcmp(kind, "Backup"))
                           ? model_find_run(ui_model(st->u), restore ? VL_RESTORE : VL_BACKUP, name)
                           : NULL;
        if (r) {
            size_t n = model_run_volumes(ui_model(st->u), r, NULL, 0);
            model_volume **mv = xcalloc(n ? n : 1, sizeof *mv);
            const vl_volume **vv = xcalloc(n ? n : 1, sizeof *vv);
            model_run_volumes(ui_model(st->u), r, mv, n);
            for (size_t i = 0; i < n; i++) vv[i] = mv[i]->vol;
            objtext_describe_run(st->desc_obj, vv, n, &out);
            free(vv);
            free(mv);
        } else {
            objtext_describe(st->desc_obj, &out);
        }
    } else {
        char *txt = cJSON_Print(st->desc_obj);
        for (const char *p = txt; *p;) {
            while (*p == '\t') {
                kc_buf_append(&out, "  ", 2);
                p++;
            }
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
            kc_buf_append(&out, p, n);
            p += n;
        }
        kc_buf_append(&out, "\n", 1);
        cJSON_free(txt);
    }
    if (out.len != st->desc_text.len || memcmp(out.data, st->desc_text.data, out.len)) {
        logbuf_clear(st->lb);
        logbuf_append(st->lb, out.data, out.len);
        logbuf_flush(st->lb);
        st->desc_text.len = 0;
        kc_buf_append(&st->desc_text, out.data, out.len);
        st->m_valid = 0; /* the match counter counts again */
        ui_invalidate(st->u);
    }
    kc_buf_free(&out);
}

static void logs_desc_done(void *arg, const kc_response *resp, const kc_err *err)
{
    logs_state *st = arg;
    st->req = NULL;
    st->dl_done = 1;
    cJSON *o = err->msg[0] ? NULL : cJSON_ParseWithLength(resp->body, resp->body_len);
    kc_err e = {0};
    if (err->msg[0])
        e = *err;
    else if (!cJSON_IsObject(o))
        kc_err_set(&e, "the answer is not a JSON object");
    if (e.msg[0]) {
        if (st->desc_obj) /* a refresh failed: the older text stays, said to be a snapshot */
            snprintf(st->desc_fail, sizeof st->desc_fail, "%.255s", e.msg);
        else
            st->dl_err = e;
        cJSON_Delete(o);
        ui_invalidate(st->u);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"),
                                            "managedFields");
    cJSON_Delete(st->desc_obj);
    st->desc_obj = o;
    st->desc_at = kc_wall_now();
    st->desc_fail[0] = 0;
    st->dl_err = (kc_err){0};
    logs_desc_render(st);
    ui_invalidate(st->u); /* the "updated" time moved */
}

static void logs_start(logs_state *st, ui *u)
{
    app *a = ui_app(u);
    if (st->desc_path) {
        if (st->desc_path[0] != '/') { /* a run: "<plural>/<name>" in the run's namespace */
            model_run *r = model_find_run(ui_model(u), st->kind, st->name);
            char *p =
                xasprintf("/apis/velero.io/v1/namespaces/%s/%s",
                          r && r->run && r->run->meta.ns ? r->run->meta.ns : a->ns, st->desc_path);
            free(st->desc_path);
            st->desc_path = p;
        }
        kc_request_opts o = {.path = st->desc_path, .timeout_ms = 20000};
        st->started = 1;
        st->desc_next = ui_now(u) + DESC_REFRESH_S;
        st->req = kc_client_request(a->client, &o, NULL, logs_desc_done, st);
        return;
    }
    if (st->pod) { /* the kubelet's log of that pod: followed while it runs, as a run's live
                    * log (kc_podlog, follow=true), until it ends; an ended pod's read once */
        const kc_pod *p = kc_store_get(a->stores[APP_R_PODS], a->ns, st->pod);
        st->pod_live = p && !logs_pod_ended(p);
        kc_podlog_opts o = {.ns = a->ns, .pod = st->pod, .no_follow = !st->pod_live};
        st->started = 1;
        st->live = 1;
        st->follow = st->pod_live;
        st->pl = kc_podlog_start(a->client, &o, logs_pl_line, logs_pl_status, st);
        return;
    }
    model_run *r = model_find_run(ui_model(u), st->kind, st->name);
    st->started = 1;
    free(st->ref);
    st->ref =
        xasprintf("%s/%s", r && r->run && r->run->meta.ns ? r->run->meta.ns : a->ns, st->name);
    st->live = r && r->run && !drill_log_stored(r->run);
    if (st->live) {
        kc_podlog_opts o = {.ns = a->ns};
        double since = r->run->started > 0 ? r->run->started : r->run->meta.created;
        o.since = since > 2 ? since - 1 : 0;
        st->follow = 1;
        st->pl = kc_podlog_start(a->client, &o, logs_pl_line, logs_pl_status, st);
    } else {
        logs_start_stored(st, a);
    }
}

/* The run of a live log reached a phase with a stored log (Velero uploaded it at the end of the
 * item pass): show the stored log instead, the whole of it, keeping filter, search and follow. */
static void logs_check_finished(logs_state *st, ui *u)
{
    if (!st->live) return;
    model_run *r = model_find_run(ui_model(u), st->kind, st->name);
    if (!r || !r->run || !drill_log_stored(r->run)) return;
    kc_podlog_free(st->pl);
    st->pl = NULL;
    logbuf_clear(st->lb);
    st->live = 0;
    st->switched = 1;
    st->top = 0;
    st->cur = -1;
    logs_start_stored(st, ui_app(u));
    ui_message(u, "%s %s finished (%s): showing its stored log",
               st->kind == VL_BACKUP ? "backup" : "restore", st->name,
               r->run->phase ? r->run->phase : "?");
}

/* ---- drawing ---- */

static int logs_icase(const char *needle)
{
    for (const char *p = needle; *p; p++)
        if (*p >= 'A' && *p <= 'Z') return 0;
    return 1;
}

static const char *logs_find(const char *s, size_t n, const char *needle, int icase)
{
    size_t nl = strlen(needle);
    if (!nl || nl > n) return NULL;
    for (size_t i = 0; i + nl <= n; i++) {
        size_t j = 0;
        if (icase)
            while (j < nl &&
                   (s[i + j] | (s[i + j] >= 'A' && s[i + j] <= 'Z' ? 0x20 : 0)) == needle[j])
                j++;
        else
            while (j < nl && s[i + j] == needle[j]) j++;
        if (j == nl) return s + i;
    }
    return NULL;
}

/* Draws s[0..n) at y,x with the search matches reversed. */
static void logs_put(logs_state *st, WINDOW *w, int y, int x, const char *s, size_t n, attr_t a)
{
    wmove(w, y, x);
    int icase = logs_icase(st->search);
    while (n > 0) {
        const char *m = st->search[0] ? logs_find(s, n, st->search, icase) : NULL;
        size_t pre = m ? (size_t)(m - s) : n;
        wattrset(w, a);
        if (pre) waddnstr(w, s, (int)pre);
        if (!m) break;
        size_t ml = strlen(st->search);
        wattrset(w, a | A_REVERSE);
        waddnstr(w, m, (int)ml);
        s = m + ml;
        n -= pre + ml;
    }
    wattrset(w, A_NORMAL);
}

static attr_t logs_level_attr(lp_level l)
{
    switch (l) {
    case LP_ERROR:
    case LP_FATAL:
    case LP_PANIC:
        return w_attr(W_BAD);
    case LP_WARNING:
        return w_attr(W_WARN);
    case LP_DEBUG:
    case LP_TRACE:
        return w_attr(W_DIM);
    default:
        return A_NORMAL;
    }
}

static const char *logs_safe(logs_state *st, size_t li, size_t *n)
{
    size_t len;
    const char *line = logbuf_line(st->lb, li, &len);
    st->sb.len = 0;
    san_append(&st->sb, line, len);
    kc_buf_cstr(&st->sb);
    *n = st->sb.len;
    return st->sb.data;
}

/* Screen rows the line at view row vi takes. */
static int logs_line_rows(logs_state *st, size_t vi, int cols)
{
    if (!st->wrap) return 1;
    size_t n;
    const char *s = logs_safe(st, logbuf_view_line(st->lb, vi), &n);
    int r = 0;
    do {
        size_t k = w_cut(s, n, cols, NULL);
        if (k == 0) k = n; /* a character wider than the screen */
        s += k;
        n -= k;
        r++;
    } while (n > 0);
    return r;
}

/* The top row so that the last lines fill the body. */
static size_t logs_end_top(logs_state *st, int body, int cols)
{
    size_t nv = logbuf_view_count(st->lb);
    if (!st->wrap) return nv > (size_t)body ? nv - (size_t)body : 0;
    int used = 0;
    size_t top = nv;
    while (top > 0) {
        int r = logs_line_rows(st, top - 1, cols);
        if (used + r > body) break;
        used += r;
        top--;
    }
    return top;
}

static void logs_status_line(logs_state *st, WINDOW *w, int cols)
{
    char b1[32];
    const char *what = st->kind == VL_BACKUP ? "backup" : "restore";
    size_t nlines = logbuf_count(st->lb);
    int x;
    if (st->desc_path) {
        x = w_print(w, 0, 0, cols, A_BOLD, "Describe %s ", st->desc_what);
        x += w_text(w, 0, x, cols - x, st->desc_name, A_BOLD);
        char clock[32];
        if (!st->desc_obj) {
            x += w_print(w, 0, x, cols - x, w_attr(st->dl_done ? W_DIM : W_ACTIVE), "  %s",
                         st->dl_done ? "" : "fetching...");
        } else if (st->desc_fail[0]) { /* said plainly: what is shown is older */
            x += w_print(w, 0, x, cols - x, w_attr(W_WARN) | A_BOLD, "  snapshot of %s",
                         fmt_clock(clock, sizeof clock, st->desc_at, 0));
            x += w_print(w, 0, x, cols - x, w_attr(W_WARN), " (refresh failed: ");
            x += w_text(w, 0, x, cols - x - 1, st->desc_fail, w_attr(W_WARN));
            x += w_print(w, 0, x, cols - x, w_attr(W_WARN), ")");
        } else {
            x += w_print(w, 0, x, cols - x, w_attr(W_GOOD), "  live (%s)",
                         fmt_clock(clock, sizeof clock, st->desc_at, 0));
        }
        if (st->desc_obj)
            x += w_print(w, 0, x, cols - x, w_attr(W_DIM), "  %zu lines as %s", nlines,
                         desc_fmt_name[st->desc_fmt]);
    } else if (st->pod) {
        kc_pl_state ps = st->pl ? kc_podlog_state(st->pl) : KC_PL_FAILED;
        int going = st->pod_live && ps != KC_PL_FAILED; /* followed, and not ended */
        char count[64], state[48];
        snprintf(count, sizeof count, "  %zu lines%s", nlines,
                 going && st->follow ? ", following" : "");
        snprintf(state, sizeof state, "  (%s)",
                 ps == KC_PL_CONNECTING  ? "connecting"
                 : ps == KC_PL_STREAMING ? (st->pod_live ? "the pod runs" : "reading")
                 : ps == KC_PL_RETRYING  ? "reconnecting"
                 : st->pod_live && !strcmp(kc_podlog_error(st->pl), "end of log")
                     ? "the pod ended: its whole log"
                     : "as of now");
        x = w_print(w, 0, 0, cols, A_BOLD, "Log of pod ");
        /* a Job's pod name is long: cut in its middle, so that the count and whether it is
         * followed still show at 80 columns */
        int room = cols - x - (int)strlen(count) - (int)strlen(state);
        x += w_text_mid(w, 0, x, room > 12 ? room : 12, st->pod, A_BOLD);
        x += w_print(w, 0, x, cols - x, A_NORMAL, "%s", count);
        x += w_print(w, 0, x, cols - x, w_attr(W_DIM), "%s", state);
    } else if (st->live) {
        x = w_print(w, 0, 0, cols, w_attr(W_ACTIVE) | A_BOLD, "LIVE log of %s ", what);
        x += w_text(w, 0, x, cols - x, st->name, A_BOLD);
        const char *pod = st->pl ? kc_podlog_pod(st->pl) : NULL;
        kc_pl_state ps = st->pl ? kc_podlog_state(st->pl) : KC_PL_FAILED;
        const char *state = ps == KC_PL_FINDING_POD  ? "finding the Velero server pod"
                            : ps == KC_PL_CONNECTING ? "connecting"
                            : ps == KC_PL_STREAMING  ? "streaming"
                            : ps == KC_PL_RETRYING   ? "reconnecting"
                                                     : "stopped";
        x += w_print(w, 0, x, cols - x, A_NORMAL, "  %zu lines%s", nlines,
                     st->follow ? ", following" : "");
        x += w_print(w, 0, x, cols - x, w_attr(W_DIM), "  (in progress, no stored log yet; %s",
                     state);
        if (pod) {
            x += w_print(w, 0, x, cols - x, w_attr(W_DIM), " from pod ");
            x += w_text(w, 0, x, cols - x, pod, w_attr(W_DIM));
        }
        x += w_print(w, 0, x, cols - x, w_attr(W_DIM), ")");
    } else {
        x = w_print(w, 0, 0, cols, A_BOLD, "Log of %s ", what);
        x += w_text(w, 0, x, cols - x, st->name, A_BOLD);
        if (!st->dl_done && st->dl) {
            kc_dl_state ds = kc_download_state(st->dl);
            x += w_print(w, 0, x, cols - x, w_attr(W_ACTIVE), "  %s: %s received, %zu lines",
                         kc_download_state_name(ds),
                         fmt_bytes(b1, sizeof b1, (int64_t)kc_download_bytes_in(st->dl)), nlines);
        } else {
            x += w_print(w, 0, x, cols - x, w_attr(W_DIM), "  stored log, %zu lines (%s)", nlines,
                         fmt_bytes(b1, sizeof b1, (int64_t)logbuf_bytes(st->lb)));
        }
        if (st->switched)
            x += w_print(w, 0, x, cols - x, w_attr(W_ACTIVE),
                         "  (the run finished: stored log replaces the live one)");
    }
    lp_level f = logbuf_filter(st->lb);
    if (f != LP_UNKNOWN)
        x += w_print(w, 0, x, cols - x, w_attr(W_WARN), "  level>=%s", lp_level_name(f));
    if (st->search[0]) {
        x += w_print(w, 0, x, cols - x, w_attr(W_DIM), "  /");
        w_text(w, 0, x, cols - x, st->search, w_attr(W_DIM));
    }
}

/* How many view rows match the search, and (*idx) the current match's number among them (0: the
 * current row is no match). Counted again only when the search, the filter or the lines change
 * (rows appended to a live log: only those). */
static size_t logs_match_count(logs_state *st, size_t *idx)
{
    size_t nv = logbuf_view_count(st->lb), dropped = logbuf_dropped(st->lb);
    lp_level f = logbuf_filter(st->lb);
    if (!st->m_valid || strcmp(st->m_search, st->search) || st->m_filter != f ||
        st->m_dropped != dropped || nv < st->m_rows) {
        st->m_total = logbuf_count_matches(st->lb, st->search, 0, nv);
        snprintf(st->m_search, sizeof st->m_search, "%s", st->search);
        st->m_filter = f;
        st->m_dropped = dropped;
        st->m_valid = 1;
        st->m_cur_valid = 0;
    } else if (nv > st->m_rows) {
        st->m_total += logbuf_count_matches(st->lb, st->search, st->m_rows, nv);
    }
    st->m_rows = nv;
    *idx = 0;
    if (st->cur < 0 || (size_t)st->cur >= nv) return st->m_total;
    size_t cur = (size_t)st->cur;
    if (!st->m_cur_valid || st->m_cur_row != cur) {
        size_t before = logbuf_count_matches(st->lb, st->search, 0, cur);
        int here = logbuf_count_matches(st->lb, st->search, cur, cur + 1) == 1;
        st->m_cur_idx = here ? before + 1 : 0;
        st->m_cur_row = cur;
        st->m_cur_valid = 1;
    }
    *idx = st->m_cur_idx;
    return st->m_total;
}

/* Draws a message over at most maxrows rows of width cols, cut at spaces (the last row ends in an
 * ellipsis when it does not fit); returns the rows used. */
static int logs_wrap_text(WINDOW *w, int y, int x, int cols, int maxrows, const char *msg, attr_t a)
{
    char row[1024];
    const char *p = msg;
    int used = 0;
    while (*p && used < maxrows && cols > 0) {
        size_t n = strlen(p);
        if (n > (size_t)cols && used < maxrows - 1) {
            size_t cut = (size_t)cols;
            while (cut > 0 && p[cut] != ' ') cut--;
            n = cut ? cut : (size_t)cols;
        }
        if (n >= sizeof row) n = sizeof row - 1;
        memcpy(row, p, n);
        row[n] = '\0';
        w_text(w, y + used++, x, cols, row, a);
        p += n;
        while (*p == ' ') p++;
    }
    return used;
}

static void logs_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    logs_state *st = s->data;
    st->u = u;
    if (!st->started) logs_start(st, u);
    /* describe follows the object: fetched again while shown (one request at a time) */
    if (st->desc_path && !st->req && st->desc_obj && ui_now(u) >= st->desc_next) {
        kc_request_opts o = {.path = st->desc_path, .timeout_ms = 20000};
        st->desc_next = ui_now(u) + DESC_REFRESH_S;
        st->req = kc_client_request(ui_app(u)->client, &o, NULL, logs_desc_done, st);
    }
    logs_check_finished(st, u);
    logs_pod_check(st, ui_app(u));
    logs_status_line(st, w, cols);
    int body = rows - 2;
    if (body < 1) body = 1;
    st->rows = body;
    size_t nv = logbuf_view_count(st->lb);
    if (st->follow) {
        st->top = logs_end_top(st, body, cols);
    } else if (st->top > 0 && st->top + (size_t)body > nv) {
        size_t end = logs_end_top(st, body, cols); /* keep the page full at the end */
        if (st->top > end) st->top = end;
    }
    if (st->top >= nv) st->top = nv ? nv - 1 : 0;
    int y = 1;
    if (st->dl_done && st->dl_err.msg[0] && st->dl_err.code != KC_ERR_CAPPED) {
        w_print(w, y, 0, cols, w_attr(W_BAD),
                "cannot fetch the %s: ", st->desc_path ? "object" : "log");
        y += 1 + logs_wrap_text(w, y + 1, 2, cols - 2, 4, st->dl_err.msg, w_attr(W_BAD)) + 1;
    }
    if (st->live && st->pl && kc_podlog_error(st->pl)[0]) {
        w_text(w, rows - 1, 0, cols, kc_podlog_error(st->pl), w_attr(W_WARN));
    }
    if (nv == 0 && y == 1) {
        size_t all = logbuf_count(st->lb);
        lp_level f = logbuf_filter(st->lb);
        if (all && f != LP_UNKNOWN)
            w_print(w, y, 0, cols, w_attr(W_DIM),
                    "the level filter (%s or worse) matches none of the %zu line%s%s",
                    lp_level_name(f), all, all == 1 ? "" : "s", st->live ? " so far" : "");
        else
            w_print(w, y, 0, cols, w_attr(W_DIM), "%s",
                    st->pod && st->pl && kc_podlog_state(st->pl) == KC_PL_FAILED
                        ? "the pod's log is empty"
                    : st->pod       ? "reading the pod's log..."
                    : st->live      ? "waiting for log lines of this run..."
                    : st->dl_done   ? "the log is empty"
                    : st->desc_path ? "fetching the object..."
                                    : "fetching the stored log...");
    }
    /* a match past either edge of an unwrapped line: scroll sideways only as far as it needs
     * (its end and a few columns after it in view), so the rows keep their start in sight */
    if (st->reveal && !st->wrap && st->cur >= 0 && (size_t)st->cur < nv && st->search[0]) {
        size_t n;
        const char *s0 = logs_safe(st, logbuf_view_line(st->lb, (size_t)st->cur), &n);
        const char *m = logs_find(s0, n, st->search, logs_icase(st->search));
        if (m) {
            int col, mw, margin = cols > 40 ? 8 : 2;
            w_cut(s0, (size_t)(m - s0), 1 << 30, &col);
            w_cut(m, strlen(st->search), 1 << 30, &mw);
            if (col + mw + margin <= cols)
                st->hx = 0; /* in view unscrolled */
            else if (col < st->hx || col + mw > st->hx + cols)
                st->hx = col + mw + margin - cols;
            if (st->hx > col) st->hx = col; /* a match wider than the screen: its start */
        }
    }
    st->reveal = 0;
    for (size_t vi = st->top; vi < nv && y <= body; vi++) {
        size_t li = logbuf_view_line(st->lb, vi), n;
        attr_t a = logs_level_attr(logbuf_level(st->lb, li));
        if ((long)vi == st->cur) a |= A_BOLD;
        const char *s0 = logs_safe(st, li, &n), *p = s0;
        if (!st->wrap) {
            size_t skip = st->hx ? w_cut(p, n, st->hx, NULL) : 0;
            p += skip;
            n -= skip;
            size_t k = w_cut(p, n, cols, NULL);
            logs_put(st, w, y, 0, p, k, a);
            y++;
            continue;
        }
        do {
            size_t k = w_cut(p, n, cols, NULL);
            if (k == 0) k = n;
            logs_put(st, w, y, 0, p, k, a);
            p += k;
            n -= k;
            y++;
        } while (n > 0 && y <= body);
    }
    /* bottom line: prompt or position */
    if (st->prompt) {
        w_clear_line(w, rows - 1, 0, cols, A_NORMAL);
        int x = w_print(w, rows - 1, 0, cols, A_BOLD, "%s",
                        st->prompt == LOGS_PROMPT_SEARCH ? "/" : "write log to: ");
        x += w_text(w, rows - 1, x, cols - x - 1, st->input, A_NORMAL);
        w_print(w, rows - 1, x, cols - x, A_REVERSE, " ");
    } else if (!(st->live && st->pl && kc_podlog_error(st->pl)[0])) {
        size_t last = st->top + (size_t)body;
        if (last > nv) last = nv;
        char cut[64] = "";
        if (logbuf_cut(st->lb))
            snprintf(cut, sizeof cut, " (%zu lines cut at %zu KiB)", logbuf_cut(st->lb),
                     KC_CAP_LOG_LINE_BYTES >> 10);
        int x = w_print(w, rows - 1, 0, cols, w_attr(W_DIM), "rows %zu-%zu of %zu%s%s%s",
                        nv ? st->top + 1 : 0, last, nv,
                        logbuf_dropped(st->lb) ? " (oldest lines dropped)" : "", cut,
                        st->wrap ? "  wrap" : "");
        if (st->search[0]) {
            size_t idx, total = logs_match_count(st, &idx);
            if (idx)
                x += w_print(w, rows - 1, x, cols - x, A_BOLD, "  match %zu of %zu", idx, total);
            else
                x += w_print(w, rows - 1, x, cols - x, w_attr(W_DIM), "  %zu match%s", total,
                             total == 1 ? "" : "es");
        }
        if (st->dl_done && st->dl_err.code == KC_ERR_CAPPED) /* the stored log passed caps.h */
            w_print(w, rows - 1, x, cols - x, w_attr(W_WARN),
                    "  log truncated at %zu MiB, veltop's limit for a stored log",
                    KC_CAP_LOG_BYTES >> 20);
    }
}

/* ---- keys ---- */

static void logs_goto(logs_state *st, long vi)
{
    st->follow = 0;
    st->reveal = 1;
    st->cur = vi;
    st->top = vi > 3 ? (size_t)vi - 3 : 0;
}

static int logs_scroll(logs_state *st, long d)
{
    size_t nv = logbuf_view_count(st->lb);
    long t = (long)st->top + d;
    if (t < 0) t = 0;
    if (nv && t > (long)nv - 1) t = (long)nv - 1;
    st->top = (size_t)t;
    st->follow = 0;
    return UI_REDRAW;
}

#define LOGS_ST(s) ((logs_state *)(s)->data)

static int logs_down(ui *u, ui_screen *s)
{
    (void)u;
    return logs_scroll(LOGS_ST(s), 1);
}
static int logs_up(ui *u, ui_screen *s)
{
    (void)u;
    return logs_scroll(LOGS_ST(s), -1);
}
static int logs_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    return logs_scroll(LOGS_ST(s), LOGS_ST(s)->rows > 1 ? LOGS_ST(s)->rows - 1 : 1);
}
static int logs_pgup(ui *u, ui_screen *s)
{
    (void)u;
    return logs_scroll(LOGS_ST(s), -(LOGS_ST(s)->rows > 1 ? LOGS_ST(s)->rows - 1 : 1));
}
static int logs_home(ui *u, ui_screen *s)
{
    (void)u;
    LOGS_ST(s)->top = 0;
    LOGS_ST(s)->follow = 0;
    return UI_REDRAW;
}
static int logs_end(ui *u, ui_screen *s)
{
    (void)u;
    LOGS_ST(s)->follow = 1;
    return UI_REDRAW;
}

static int logs_search_step(ui *u, logs_state *st, int dir, int skip)
{
    if (!st->search[0]) {
        ui_message(u, "no search yet: press /");
        return UI_REDRAW;
    }
    size_t from = st->cur >= 0 ? (size_t)st->cur : st->top;
    long r = logbuf_search(st->lb, st->search, from, dir, skip);
    if (r < 0)
        ui_message(u, "pattern not found: %s", st->search);
    else
        logs_goto(st, r);
    return UI_REDRAW;
}

static int logs_next(ui *u, ui_screen *s)
{
    return logs_search_step(u, LOGS_ST(s), 1, 1);
}
static int logs_prev(ui *u, ui_screen *s)
{
    return logs_search_step(u, LOGS_ST(s), -1, 1);
}

static int logs_next_error(ui *u, ui_screen *s)
{
    logs_state *st = LOGS_ST(s);
    size_t from = st->cur >= 0 ? (size_t)st->cur : (st->top ? st->top - 1 : 0);
    if (st->cur < 0 && st->top == 0) from = logbuf_view_count(st->lb) - 1; /* start at the top */
    long r = logbuf_next_level(st->lb, from, LP_ERROR);
    if (r < 0)
        ui_message(u, "no error lines");
    else
        logs_goto(st, r);
    return UI_REDRAW;
}

static int logs_filter(ui *u, ui_screen *s)
{
    static const lp_level cycle[] = {LP_UNKNOWN, LP_ERROR, LP_WARNING, LP_INFO, LP_DEBUG};
    logs_state *st = LOGS_ST(s);
    lp_level f = logbuf_filter(st->lb);
    size_t i = 0;
    while (i < 5 && cycle[i] != f) i++;
    lp_level nf = cycle[(i + 1) % 5];
    size_t li = logbuf_view_line(st->lb, st->top);
    logbuf_set_filter(st->lb, nf);
    st->top = logbuf_view_find(st->lb, li);
    st->cur = -1;
    ui_message(u, "level filter: %s", nf == LP_UNKNOWN ? "all lines" : lp_level_name(nf));
    return UI_REDRAW;
}

static int logs_wrap(ui *u, ui_screen *s)
{
    (void)u;
    LOGS_ST(s)->wrap = !LOGS_ST(s)->wrap;
    LOGS_ST(s)->hx = 0;
    return UI_REDRAW;
}

static int logs_left(ui *u, ui_screen *s)
{
    (void)u;
    logs_state *st = LOGS_ST(s);
    st->hx = st->hx > 20 ? st->hx - 20 : 0;
    return UI_REDRAW;
}

static int logs_right(ui *u, ui_screen *s)
{
    (void)u;
    logs_state *st = LOGS_ST(s);
    if (!st->wrap) st->hx += 20;
    return UI_REDRAW;
}

static int logs_prompt(logs_state *st, int kind, const char *init)
{
    st->prompt = kind;
    snprintf(st->input, sizeof st->input, "%s", init);
    st->ilen = strlen(st->input);
    return UI_REDRAW;
}

static int logs_search(ui *u, ui_screen *s)
{
    (void)u;
    return logs_prompt(LOGS_ST(s), LOGS_PROMPT_SEARCH, "");
}

static int logs_write(ui *u, ui_screen *s)
{
    (void)u;
    logs_state *st = LOGS_ST(s);
    char def[300];
    static const char *const ext[DESC_NFMT] = {"json", "yaml", "txt"};
    snprintf(def, sizeof def, "%s.%s", st->desc_path ? st->desc_name : st->name,
             st->desc_path ? ext[st->desc_fmt] : "log");
    return logs_prompt(st, LOGS_PROMPT_WRITE, def);
}

/* f: follow the end of a live log (as G), or stop following */
static int logs_follow(ui *u, ui_screen *s)
{
    logs_state *st = LOGS_ST(s);
    st->follow = !st->follow;
    ui_message(u, "follow %s", st->follow ? "on: the view stays at the end" : "off");
    return UI_REDRAW;
}

static int logs_prev_run(ui *u, ui_screen *s)
{
    (void)s;
    return drill_step(u, -1, screen_logs_new);
}
static int logs_next_run(ui *u, ui_screen *s)
{
    (void)s;
    return drill_step(u, 1, screen_logs_new);
}

static void logs_commit(ui *u, logs_state *st)
{
    int kind = st->prompt;
    st->prompt = LOGS_PROMPT_NONE;
    if (kind == LOGS_PROMPT_SEARCH) {
        if (!st->input[0]) return;
        snprintf(st->search, sizeof st->search, "%s", st->input);
        st->cur = -1;
        long r = logbuf_search(st->lb, st->search, st->top, 1, 0);
        if (r < 0)
            ui_message(u, "pattern not found: %s", st->search);
        else
            logs_goto(st, r);
    } else if (kind == LOGS_PROMPT_WRITE && st->input[0]) {
        /* the absolute path in every message (~/ is the home directory); never overwrite */
        char cwd[4096], *path;
        const char *home = getenv("HOME");
        if (!strncmp(st->input, "~/", 2) && home && *home)
            path = xasprintf("%s/%s", home, st->input + 2);
        else if (st->input[0] == '/' || !getcwd(cwd, sizeof cwd))
            path = xstrdup(st->input);
        else
            path = xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", st->input);
        size_t lines;
        lp_level f = logbuf_filter(st->lb);
        if (!logbuf_write(st->lb, path, &lines))
            ui_message(u, "wrote %zu line%s%s%s to %s", lines, lines == 1 ? "" : "s",
                       f == LP_UNKNOWN ? "" : " at level ", f == LP_UNKNOWN ? "" : lp_level_name(f),
                       path);
        else if (errno == EEXIST)
            ui_message(u, "%s exists: not overwritten (w again with another name)", path);
        else
            ui_message(u, "cannot write %s: %s", path, strerror(errno));
        free(path);
    }
}

static int logs_on_key(ui_screen *s, ui *u, int ch)
{
    logs_state *st = s->data;
    if (!st->prompt) return UI_UNHANDLED;
    if (ch == 27) {
        st->prompt = LOGS_PROMPT_NONE;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        logs_commit(u, st);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        while (st->ilen > 0 && ((unsigned char)st->input[st->ilen - 1] & 0xc0) == 0x80) st->ilen--;
        if (st->ilen > 0) st->ilen--;
        st->input[st->ilen] = '\0';
    } else if (ch == 21) { /* Ctrl-U */
        st->ilen = 0;
        st->input[0] = '\0';
    } else if (ch >= 32 && ch < 256 && st->ilen + 1 < sizeof st->input) {
        st->input[st->ilen++] = (char)ch;
        st->input[st->ilen] = '\0';
    }
    return UI_REDRAW;
}

static const ui_key logs_keys[] = {
    {UI_C_DOWN, "scroll down", logs_down},
    {UI_C_UP, "scroll up", logs_up},
    {UI_C_PGDN, NULL, logs_pgdn},
    {UI_C_PGUP, NULL, logs_pgup},
    {UI_C_TOP, "first line", logs_home},
    {UI_C_BOTTOM, "last line (and follow a live log)", logs_end},
    {UI_C_FIND, "search (smartcase)", logs_search},
    {UI_C_NEXT_MATCH, NULL, logs_next},
    {UI_C_PREV_MATCH, NULL, logs_prev},
    {UI_C_NEXT_ERROR, NULL, logs_next_error},
    {UI_C_LEVEL, NULL, logs_filter},
    {UI_C_FOLLOW, "follow the end of a live log (toggle)", logs_follow},
    {UI_C_WRAP, NULL, logs_wrap},
    {UI_C_LEFT, NULL, logs_left},
    {UI_C_RIGHT, NULL, logs_right},
    {UI_C_WRITE, "write the lines shown (level filter applied) to a new file", logs_write},
    {UI_C_PREV_RUN, "previous run's log (in the list's order)", logs_prev_run},
    {UI_C_NEXT_RUN, "next run's log", logs_next_run},
    {UI_C_VOLUMES, "volumes of this run", drill_open_volumes},
    {UI_C_RESULTS, "results of this run", drill_open_results},
    {UI_C_DESCRIBE, "describe this run", drill_open_describe},
    {UI_C_NONE, NULL, NULL},
};

static void logs_enter(ui_screen *s, ui *u)
{
    logs_state *st = s->data;
    st->u = u;
    if (st->desc_path && !st->desc_fmt_set) { /* d: velero describe, y: YAML */
        st->desc_fmt = ui_describe_format(u);
        st->desc_fmt_set = 1;
        logs_desc_render(st);
    }
    if (st->name[0]) ui_set_current_run(u, st->kind, st->name); /* "": not about a run */
}

static void logs_free(ui_screen *s)
{
    logs_state *st = s->data;
    kc_download_free(st->dl);
    kc_podlog_free(st->pl);
    if (st->req) kc_request_cancel(st->req);
    free(st->desc_path);
    free(st->desc_what);
    free(st->desc_name);
    cJSON_Delete(st->desc_obj);
    kc_buf_free(&st->desc_text);
    logbuf_free(st->lb);
    lp_line_free(&st->scratch);
    kc_buf_free(&st->sb);
    free(st->name);
    free(st->pod);
    free(st->ref);
    free(st);
    free(s);
}

static const char *logs_hint(ui_screen *s, ui *u)
{
    (void)u;
    logs_state *st = s->data;
    if (st->prompt) return "Enter:accept  Esc:cancel";
    return "/:search  n/N:match  L:level  f:follow  w:write  Esc:back  " UI_HINT_END;
}

ui_screen *screen_logs_new(vl_kind kind, const char *name)
{
    ui_screen *s = xcalloc(1, sizeof *s);
    logs_state *st = xcalloc(1, sizeof *st);
    st->kind = kind;
    st->name = xstrdup(name);
    st->ref = NULL;
    st->lb = logbuf_new(0);
    st->cur = -1;
    s->title = "Logs";
    s->keys = logs_keys;
    s->draw = logs_draw;
    s->on_key = logs_on_key;
    s->enter = logs_enter;
    s->free = logs_free;
    s->hint = logs_hint;
    s->data = st;
    return s;
}

/* the pager's keys without those about one run (a pod's log is not a run's) */
static const ui_key podlog_keys[] = {
    {UI_C_DOWN, "scroll down", logs_down},
    {UI_C_UP, "scroll up", logs_up},
    {UI_C_PGDN, NULL, logs_pgdn},
    {UI_C_PGUP, NULL, logs_pgup},
    {UI_C_TOP, "first line", logs_home},
    {UI_C_BOTTOM, "last line", logs_end},
    {UI_C_FIND, "search (smartcase)", logs_search},
    {UI_C_NEXT_MATCH, NULL, logs_next},
    {UI_C_PREV_MATCH, NULL, logs_prev},
    {UI_C_WRAP, NULL, logs_wrap},
    {UI_C_LEFT, NULL, logs_left},
    {UI_C_RIGHT, NULL, logs_right},
    {UI_C_WRITE, "write the log to a new file", logs_write},
    {UI_C_FOLLOW, "follow the end of a running pod's log (toggle)", logs_follow},
    {UI_C_NONE, NULL, NULL},
};

static const char *podlog_hint(ui_screen *s, ui *u)
{
    (void)u;
    logs_state *st = s->data;
    if (st->prompt) return "Enter:accept  Esc:cancel";
    if (st->pod_live && st->pl && kc_podlog_state(st->pl) != KC_PL_FAILED) /* followed */
        return "/:search  n/N:match  f:follow  W:wrap  w:write  Esc:back  " UI_HINT_END;
    return "/:search  n/N:match  W:wrap  w:write  Esc:back  " UI_HINT_END;
}

ui_screen *screen_podlog_new(const char *pod)
{
    if (!pod || !*pod) return NULL;
    ui_screen *s = screen_logs_new(VL_BACKUP, pod);
    logs_state *st = s->data;
    st->pod = xstrdup(pod);
    s->title = "Pod log";
    s->keys = podlog_keys;
    s->hint = podlog_hint;
    return s;
}

/* ---- describe (d, y): the whole object in this pager ---- */

static int logs_desc_prev(ui *u, ui_screen *s)
{
    ui_set_describe_format(u, LOGS_ST(s)->desc_fmt); /* the neighbour in the same format */
    return drill_step(u, -1, screen_describe_run_new);
}
static int logs_desc_next(ui *u, ui_screen *s)
{
    ui_set_describe_format(u, LOGS_ST(s)->desc_fmt);
    return drill_step(u, 1, screen_describe_run_new);
}

/* o: the next format (JSON, YAML, velero describe), the reader's place kept */
static int logs_desc_format(ui *u, ui_screen *s)
{
    logs_state *st = LOGS_ST(s);
    st->desc_fmt = (st->desc_fmt + 1) % DESC_NFMT;
    logs_desc_render(st);
    ui_message(u, "describe as %s", desc_fmt_name[st->desc_fmt]);
    return UI_REDRAW;
}

/* the pager's keys without those about logs (level, errors, live follow): the rows every
 * describe screen has, first in its table (help lists them in this order); kept one row per
 * line like the tables, hence clang-format off */
// clang-format off
#define DESC_PAGER_KEYS                                               \
    {UI_C_DOWN, "scroll down", logs_down},                            \
    {UI_C_UP, "scroll up", logs_up},                                  \
    {UI_C_PGDN, NULL, logs_pgdn},                                     \
    {UI_C_PGUP, NULL, logs_pgup},                                     \
    {UI_C_TOP, "first line", logs_home},                              \
    {UI_C_BOTTOM, "last line", logs_end},                             \
    {UI_C_FIND, "search (smartcase)", logs_search},                   \
    {UI_C_NEXT_MATCH, NULL, logs_next},                               \
    {UI_C_PREV_MATCH, NULL, logs_prev},                               \
    {UI_C_WRAP, NULL, logs_wrap},                                     \
    {UI_C_LEFT, NULL, logs_left},                                     \
    {UI_C_RIGHT, NULL, logs_right},                                   \
    {UI_C_FORMAT, NULL, logs_desc_format},                            \
    {UI_C_WRITE, "write the object as shown to a new file", logs_write}
// clang-format on

static const ui_key desc_run_keys[] = {
    DESC_PAGER_KEYS,
    {UI_C_PREV_RUN, "describe the previous run (in the list's order)", logs_desc_prev},
    {UI_C_NEXT_RUN, "describe the next run", logs_desc_next},
    {UI_C_VOLUMES, "volumes of this run", drill_open_volumes},
    {UI_C_LOGS, "log of this run", drill_open_logs},
    {UI_C_RESULTS, "results of this run", drill_open_results},
    {UI_C_NONE, NULL, NULL},
};
static const ui_key desc_vol_keys[] = {
    DESC_PAGER_KEYS,
    {UI_C_NONE, NULL, NULL},
};
/* an object that is not about one run (a storage location, a schedule, a pod) */
static const ui_key desc_obj_keys[] = {
    DESC_PAGER_KEYS,
    {UI_C_NONE, NULL, NULL},
};

static const char *desc_hint(ui_screen *s, ui *u)
{
    (void)u;
    logs_state *st = s->data;
    if (st->prompt) return "Enter:accept  Esc:cancel";
    return "o:format  /:search  n/N:match  W:wrap  w:write  Esc:back  " UI_HINT_END;
}

/* the object described, for the action and copy keys (actkeys.c) */
static int desc_object(ui_screen *s, ui *u, char *path, size_t n)
{
    logs_state *st = s->data;
    if (!st->desc_path) return -1;
    if (st->desc_path[0] == '/')
        snprintf(path, n, "%s", st->desc_path);
    else /* not started yet: a run's "<plural>/<name>" */
        snprintf(path, n, "/apis/velero.io/v1/namespaces/%s/%s", ui_app(u)->ns, st->desc_path);
    return 0;
}

static ui_screen *describe_new(vl_kind run_kind, const char *run_name, const char *path,
                               const char *what, const char *name, const ui_key *keys)
{
    ui_screen *s = screen_logs_new(run_kind, run_name);
    logs_state *st = s->data;
    st->desc_path = xstrdup(path);
    st->desc_what = xstrdup(what);
    st->desc_name = xstrdup(name);
    st->wrap = 1;
    s->title = "Describe";
    s->keys = keys;
    s->hint = desc_hint;
    s->object = desc_object;
    return s;
}

ui_screen *screen_describe_run_new(vl_kind kind, const char *name)
{
    /* the namespace is the app's: the path is completed when the screen starts (ns unknown
     * here), so keep a marker and the name */
    char *path = xasprintf("%s/%s", kind == VL_BACKUP ? "backups" : "restores", name);
    ui_screen *s = describe_new(kind, name, path, kind == VL_BACKUP ? "backup" : "restore", name,
                                desc_run_keys);
    free(path);
    return s;
}

ui_screen *screen_describe_volume_new(const model_volume *mv, const char *ns)
{
    const vl_volume *v = mv->vol;
    const char *plural =
        v->kind == VL_PVB   ? "/apis/velero.io/v1/namespaces/%s/podvolumebackups/%s"
        : v->kind == VL_PVR ? "/apis/velero.io/v1/namespaces/%s/podvolumerestores/%s"
        : v->kind == VL_DU  ? "/apis/velero.io/v2alpha1/namespaces/%s/datauploads/%s"
                            : "/apis/velero.io/v2alpha1/namespaces/%s/datadownloads/%s";
    char *path = xasprintf(plural, v->meta.ns ? v->meta.ns : ns, mv->name);
    vl_kind rk = (v->kind == VL_PVB || v->kind == VL_DU) ? VL_BACKUP : VL_RESTORE;
    ui_screen *s = describe_new(rk, v->run_name ? v->run_name : "", path, vl_kind_name(v->kind),
                                mv->name, desc_vol_keys);
    free(path);
    return s;
}

/* The words for an API path's resource ("backupstoragelocations" -> "storage location"). */
static const char *desc_word(const char *plural)
{
    static const struct {
        const char *plural, *word;
    } words[] = {
        {"backupstoragelocations", "storage location"},
        {"volumesnapshotlocations", "volume snapshot location"},
        {"schedules", "schedule"},
        {"pods", "pod"},
        {"daemonsets", "daemonset"},
        {"backuprepositories", "repository"},
        {"backups", "backup"},
        {"restores", "restore"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(words[i].plural, plural)) return words[i].word;
    return plural;
}

ui_screen *screen_describe_path_new(const char *path)
{
    /* ".../<plural>/<name>": the last two segments say what it is */
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash || slash == path || !slash[1]) return NULL;
    const char *p0 = slash - 1;
    while (p0 > path && p0[-1] != '/') p0--;
    char plural[64];
    snprintf(plural, sizeof plural, "%.*s", (int)(slash - p0), p0);
    return describe_new(VL_BACKUP, "", path, desc_word(plural), slash + 1, desc_obj_keys);
}
