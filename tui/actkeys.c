/* actkeys.c: the action keys (backup now, pause/unpause, cancel a transfer, delete a backup) and
 * their confirmation dialog, and the key that copies the selected object's command by OSC 52.
 * The requests are core/actions.c's; this file picks the object, asks, sends and says the
 * server's answer on the status line. */
#include "actkeys.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "kubeclient/client.h"
#include "kubeclient/util.h"
#include "sanitize.h"
#include "widgets.h"

static const act_policy *tk_policy;

void tui_actions_set_policy(const act_policy *p)
{
    tk_policy = p;
}

static int tk_on(ui *u)
{
    return act_policy_allows(tk_policy, ui_app(u)->context);
}

const char *tui_actions_mode(ui *u)
{
    return tk_on(u) ? "actions on" : "read-only";
}

/* ---- the request in flight (one at a time) ------------------------------------------------ */

typedef struct tk_flight {
    ui *u;
    app *a;
    act_kind kind;
    act_obj obj;
    act_req req;
    char name[300]; /* backup now: the Backup's name */
    kc_request *r;
} tk_flight;

static tk_flight *tk_fly;

static void tk_flight_free(tk_flight *f)
{
    if (!f) return;
    act_req_clear(&f->req);
    free(f);
    if (tk_fly == f) tk_fly = NULL;
}

void tui_actions_shutdown(void)
{
    if (!tk_fly) return;
    if (tk_fly->r) kc_request_cancel(tk_fly->r);
    tk_flight_free(tk_fly);
}

static void tk_say(tk_flight *f, long status, const char *msg, const char *created)
{
    char out[1024];
    act_answer(f->kind, &f->obj, created, status, msg, kc_client_user(f->a->client), out,
               sizeof out);
    char *safe = san_str(out);
    ui_message(f->u, "%s", safe);
    free(safe);
    ui_invalidate(f->u);
}

static void tk_sent(void *arg, const kc_response *resp, const kc_err *err)
{
    tk_flight *f = arg;
    f->r = NULL;
    const char *created = f->kind == ACT_BACKUP_NOW ? f->name : NULL;
    cJSON *o = NULL;
    if (!err->msg[0] && f->kind == ACT_DELETE_BACKUP && resp->body) {
        o = cJSON_Parse(resp->body); /* the generated name of the DeleteBackupRequest */
        created = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(o, "metadata"), "name"));
    }
    tk_say(f, err->msg[0] ? err->code : resp->status, err->msg[0] ? err->msg : NULL, created);
    cJSON_Delete(o);
    tk_flight_free(f);
}

static void tk_send(tk_flight *f)
{
    kc_request_opts o = {0};
    o.method = f->req.method;
    o.path = f->req.path;
    o.body = f->req.body;
    o.body_len = strlen(f->req.body);
    o.content_type = f->req.content_type;
    o.timeout_ms = 30000;
    f->r = kc_client_request(f->a->client, &o, NULL, tk_sent, f);
}

/* backup now, step 1: the schedule as the server has it (the CLI reads it too) */
static void tk_schedule_read(void *arg, const kc_response *resp, const kc_err *err)
{
    tk_flight *f = arg;
    f->r = NULL;
    if (err->msg[0]) {
        tk_say(f, err->code, err->msg, NULL);
        tk_flight_free(f);
        return;
    }
    cJSON *s = cJSON_ParseWithLength(resp->body, resp->body_len);
    char why[300];
    act_req_clear(&f->req);
    if (act_backup_now(s, f->name, &f->req, why, sizeof why)) {
        cJSON_Delete(s);
        tk_say(f, 0, why, NULL);
        tk_flight_free(f);
        return;
    }
    cJSON_Delete(s);
    tk_send(f);
}

static void tk_go(tk_flight *f)
{
    tk_fly = f;
    ui_message(f->u, "sent: %s %s", f->req.method, f->req.path);
    if (f->kind == ACT_BACKUP_NOW) {
        char path[1024];
        act_obj_path(&f->obj, path, sizeof path);
        kc_request_opts o = {0};
        o.path = path;
        o.timeout_ms = 30000;
        f->r = kc_client_request(f->a->client, &o, NULL, tk_schedule_read, f);
        return;
    }
    tk_send(f);
}

/* ---- the dialog --------------------------------------------------------------------------- */

typedef struct tk_dialog {
    tk_flight *f; /* owned until confirmed */
    char title[200];
    int drawn; /* keys before the dialog was on the screen never answer it */
} tk_dialog;

static int tk_row(WINDOW *w, int y, int rows, int cols, const char *label, const char *text,
                  attr_t a)
{
    if (y >= rows) return y;
    w_print(w, y, 2, 12, A_BOLD, "%s", label);
    int lw = cols - 14 > 10 ? cols - 14 : 10;
    return y + w_wrap(w, y, 14, lw, 0, rows - y, text, a);
}

static void tk_dialog_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    tk_dialog *d = s->data;
    tk_flight *f = d->f;
    char obj[600], req[1200];
    (void)u;
    werase(w);
    /* the answer keys always show, on the last row when the rest does not fit */
    int room = rows - 1, y = 1;
    w_print(w, y, 2, cols - 4, w_attr(W_WARN) | A_BOLD, "Confirm: ");
    y += w_wrap(w, y, 11, cols - 13, 0, room - y > 2 ? 2 : 1, d->title, w_attr(W_WARN) | A_BOLD);
    if (y + 1 < room) y++;
    y = tk_row(w, y, room, cols, "context", f->a->context, 0);
    y = tk_row(w, y, room, cols, "namespace", f->obj.ns, 0);
    snprintf(obj, sizeof obj, "%s %s", act_obj_kind(&f->obj), f->obj.name);
    y = tk_row(w, y, room, cols, "object", obj, 0);
    snprintf(req, sizeof req, "%s %s", f->req.method, f->req.path);
    y = tk_row(w, y, room, cols, "request", req, 0);
    y = tk_row(w, y, room, cols, "body", f->req.summary, 0);
    if (y + 1 < room) y++;
    w_print(w, y < rows ? y : rows - 1, 2, cols - 4, A_BOLD,
            "y: yes, do it    any other key (Enter, Esc, n): no");
    d->drawn = 1;
}

static int tk_dialog_key(ui_screen *s, ui *u, int ch)
{
    tk_dialog *d = s->data;
    if (!d->drawn) return UI_NOTHING; /* typed before it showed: not an answer */
    tk_flight *f = d->f;
    char title[sizeof d->title];
    snprintf(title, sizeof title, "%s", d->title);
    d->f = NULL;
    ui_pop(u); /* frees s and d */
    if (ch == 'y') {
        tk_go(f);
    } else {
        char *safe = san_str(title);
        ui_message(u, "not done (only y confirms): %s", safe);
        free(safe);
        tk_flight_free(f);
    }
    return UI_REDRAW;
}

static void tk_dialog_free(ui_screen *s)
{
    tk_dialog *d = s->data;
    if (d->f) tk_flight_free(d->f);
    free(d);
    free(s);
}

static const char *tk_dialog_hint(ui_screen *s, ui *u)
{
    (void)s, (void)u;
    return "y:yes  any other key:no";
}

static int tk_ask(ui *u, tk_flight *f, const char *title)
{
    ui_screen *s = xcalloc(1, sizeof *s);
    tk_dialog *d = xcalloc(1, sizeof *d);
    d->f = f;
    snprintf(d->title, sizeof d->title, "%s", title);
    s->title = "Confirm";
    s->data = d;
    s->draw = tk_dialog_draw;
    s->on_key = tk_dialog_key;
    s->free = tk_dialog_free;
    s->hint = tk_dialog_hint;
    ui_push(u, s);
    /* a key typed ahead (a laggy ssh link, a double press) must not answer what it never saw:
     * drop what is buffered now, and keys until the dialog is drawn */
    flushinp();
    return UI_REDRAW;
}

/* ---- the keys ----------------------------------------------------------------------------- */

/* The selected object of the screen (its own, else the current run); -1 with a message. */
static int tk_object(ui *u, ui_screen *s, act_obj *o)
{
    char path[1024];
    if (s && s->fleet_wide) {
        ui_message(u, "pick a cluster first (Enter): actions are on one cluster's objects");
        return -1;
    }
    if (s && s->object) {
        if (s->object(s, u, path, sizeof path) || act_obj_parse(path, o)) {
            ui_message(u, "nothing selected");
            return -1;
        }
        return 0;
    }
    model_run *r = ui_current_run(u);
    if (!r) {
        ui_message(u, "no run selected");
        return -1;
    }
    act_obj_of_kind(r->kind, r->run->meta.ns ? r->run->meta.ns : ui_app(u)->ns, r->name, o);
    return 0;
}

static int tk_allowed(ui *u)
{
    if (tk_on(u)) return 1;
    char *ctx = san_str(ui_app(u)->context);
    ui_message(u,
               "read-only: --allow-actions, or contexts.%s.actions: true in %s, turns actions on",
               ctx, act_policy_file(tk_policy));
    free(ctx);
    return 0;
}

static tk_flight *tk_flight_new(ui *u, act_kind k, const act_obj *o)
{
    tk_flight *f = xcalloc(1, sizeof *f);
    f->u = u;
    f->a = ui_app(u);
    f->kind = k;
    f->obj = *o;
    return f;
}

static int tk_busy(ui *u)
{
    if (!tk_fly) return 0;
    ui_message(u, "an action is still waiting for the server's answer");
    return 1;
}

static int tk_want(ui *u, const act_obj *o, const char *plural, const char *what)
{
    if (!strcmp(o->plural, plural)) return 1;
    ui_message(u, "%s: select a %s (this is a %s)", what,
               !strcmp(plural, "schedules") ? "schedule (H: health lists them)" : "backup",
               act_obj_kind(o));
    return 0;
}

int tui_act_backup_now(ui *u, ui_screen *s)
{
    act_obj o;
    if (!tk_allowed(u) || tk_busy(u) || tk_object(u, s, &o)) return UI_REDRAW;
    if (!tk_want(u, &o, "schedules", "backup now")) return UI_REDRAW;
    tk_flight *f = tk_flight_new(u, ACT_BACKUP_NOW, &o);
    act_backup_name(o.name, ui_wall(u), f->name, sizeof f->name);
    act_backup_now_preview(&o, f->name, &f->req);
    char t[400];
    snprintf(t, sizeof t, "back up now from schedule %s", o.name);
    return tk_ask(u, f, t);
}

int tui_act_pause(ui *u, ui_screen *s)
{
    act_obj o;
    if (!tk_allowed(u) || tk_busy(u) || tk_object(u, s, &o)) return UI_REDRAW;
    if (!tk_want(u, &o, "schedules", "pause/unpause")) return UI_REDRAW;
    const vl_schedule *sc = kc_store_get(ui_app(u)->stores[APP_R_SCHEDULES], o.ns, o.name);
    if (!sc) {
        ui_message(u, "schedule %s is not in the list (yet): its state is unknown", o.name);
        return UI_REDRAW;
    }
    int pause = !sc->paused;
    tk_flight *f = tk_flight_new(u, pause ? ACT_PAUSE : ACT_UNPAUSE, &o);
    act_pause(&o, pause, &f->req);
    char t[400];
    snprintf(t, sizeof t, "%s schedule %s", pause ? "pause" : "unpause", o.name);
    return tk_ask(u, f, t);
}

int tui_act_cancel(ui *u, ui_screen *s)
{
    act_obj o;
    if (!tk_allowed(u) || tk_busy(u) || tk_object(u, s, &o)) return UI_REDRAW;
    const struct health *h = ui_health(u);
    const char *version = h && h->server ? h->server->version : NULL;
    tk_flight *f = tk_flight_new(u, ACT_CANCEL, &o);
    char why[400];
    if (act_cancel(&o, version, &f->req, why, sizeof why)) {
        ui_message(u, "%s", why);
        tk_flight_free(f);
        return UI_REDRAW;
    }
    char t[400];
    snprintf(t, sizeof t, "cancel %s %s", act_obj_kind(&o), o.name);
    return tk_ask(u, f, t);
}

int tui_act_delete(ui *u, ui_screen *s)
{
    act_obj o;
    if (!tk_allowed(u) || tk_busy(u) || tk_object(u, s, &o)) return UI_REDRAW;
    if (!tk_want(u, &o, "backups", "delete")) return UI_REDRAW;
    model_run *r = model_find_run(ui_model(u), VL_BACKUP, o.name);
    const char *uid = r && r->run ? r->run->meta.uid : NULL;
    tk_flight *f = tk_flight_new(u, ACT_DELETE_BACKUP, &o);
    act_delete_backup(o.ns, o.name, uid, &f->req);
    char t[400];
    snprintf(t, sizeof t, "delete backup %s (its data in the storage location too)", o.name);
    return tk_ask(u, f, t);
}

/* ---- copy the command --------------------------------------------------------------------- */

/* OSC 52 "set the clipboard": the terminal (xterm, kitty, iTerm2, Windows Terminal...) puts the
 * text on the clipboard of the machine it runs on, so it works over ssh. Inside tmux it takes
 * `set -g set-clipboard on` (tmux then keeps a buffer and passes it on); tmux's passthrough
 * (allow-passthrough) is not used: it is off by default and would bypass tmux's own buffer. */
static void tk_osc52(const char *text)
{
    char *b64 = kc_base64_encode((const unsigned char *)text, strlen(text));
    char *seq = xasprintf("\033]52;c;%s\a", b64);
    size_t n = strlen(seq), off = 0;
    fflush(stdout);
    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, seq + off, n - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    free(seq);
    free(b64);
}

int tui_act_copy(ui *u, ui_screen *s)
{
    act_obj o;
    if (tk_object(u, s, &o)) return UI_REDRAW;
    char *cmd = act_copy_command(&o, ui_app(u)->context);
    tk_osc52(cmd);
    char *safe = san_str(cmd);
    ui_message(u, "copied: %s", safe);
    free(safe);
    free(cmd);
    return UI_REDRAW;
}
