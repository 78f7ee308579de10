/* auth.c: request credentials: static token, tokenFile, basic auth, client certificates as memory
 * blobs, and exec credential plugins run as non-blocking children of the event loop. */
#include "kubeclient/auth.h"
#include "kubeclient/caps.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define AUTH_TOKEN_FILE_INTERVAL_MS 60000
#define AUTH_EXEC_MAX_STDOUT        (1024 * 1024)
#define AUTH_EXEC_MAX_STDERR        (64 * 1024)
/* kubectl (client-go) waits for an exec plugin for ever: its maintainers declined a timeout so
 * as not to kill slow logins (kubernetes/kubernetes#108849). veltop cannot sit on "connecting"
 * for ever either: a minute is far beyond what a token plugin takes (aws, gke-gcloud-auth-plugin,
 * kubelogin with a cached token: well under a few seconds) and leaves time for a browser login. */
#define AUTH_EXEC_TIMEOUT_MS 60000
/* A plugin that has the terminal waits for a person (a code typed, a browser login): ten minutes,
 * and they see its prompt and can stop it with Ctrl-C. */
#define AUTH_EXEC_INTERACTIVE_TIMEOUT_MS 600000
#define AUTH_EXEC_WATCH_MS               250 /* how often a running plugin is looked at */

typedef struct {
    kc_auth_ready_fn cb;
    void *arg;
    unsigned gen; /* the plugin run whose result it waits for */
} auth_waiter;

struct kc_auth {
    const kc_rest_config *cfg;
    kc_loop *loop;
    int tls; /* credentials are only sent over https, as kubectl */
    int64_t (*mono_ms)(void *);
    double (*wall)(void *);
    void *clock_arg;

    /* tokenFile */
    char *file_token;
    int64_t file_read_at;
    int file_read_once;
    int file_forced; /* invalidate asked for a re-read that has not happened yet */
    int64_t file_interval;

    /* exec credential */
    int have_cred;
    char *cred_token;
    unsigned char *cred_cert, *cred_key;
    size_t cred_cert_len, cred_key_len;
    double cred_expiry; /* 0: process lifetime */
    int cred_invalidated;
    unsigned runs;

    /* the running plugin */
    pid_t pid;
    int out_fd, err_fd;
    int out_watch, err_watch;
    kc_buf out, err;
    uint64_t reap_timer;
    int64_t reap_delay;
    uint64_t watch_timer;    /* looks at the running plugin: exited, or out of time */
    int64_t exec_started;    /* monotonic ms */
    int64_t exec_timeout_ms; /* AUTH_EXEC_TIMEOUT_MS unless a test says otherwise */
    int64_t run_timeout_ms;  /* the running plugin's: the above, longer when interactive */
    unsigned gen;            /* generation of the current (or next) run */
    char *pending_err;       /* a failure found before the child ran, delivered from a timer */
    uint64_t pending_timer;

    /* stdin as the plugin sees it (client-go's isInteractive): stdin_tty -1 = ask isatty(0) at
     * each run; stdin_unavailable: veltop itself uses the terminal (the screen is up) */
    int stdin_tty;
    char *stdin_unavailable;

    auth_waiter *waiters;
    size_t nwait, capwait;
    int depth; /* > 0 while calling back */
    int dead;  /* kc_auth_free was called from a callback */
};

static int64_t auth_mono(kc_auth *a)
{
    return a->mono_ms ? a->mono_ms(a->clock_arg) : kc_now_ms();
}

static double auth_wall(const kc_auth *a)
{
    return a->wall ? a->wall(a->clock_arg) : kc_wall_now();
}

static int auth_cred_valid(const kc_auth *a);

kc_auth *kc_auth_new(const kc_rest_config *cfg, kc_loop *loop)
{
    kc_auth *a = xcalloc(1, sizeof *a);
    a->cfg = cfg;
    a->loop = loop;
    a->tls = cfg->server && strncmp(cfg->server, "https://", 8) == 0;
    a->file_interval = AUTH_TOKEN_FILE_INTERVAL_MS;
    a->exec_timeout_ms = AUTH_EXEC_TIMEOUT_MS;
    a->pid = -1;
    a->out_fd = a->err_fd = -1;
    a->gen = 1;
    a->stdin_tty = -1;
    return a;
}

void kc_auth_set_clocks(kc_auth *a, int64_t (*mono_ms)(void *), double (*wall)(void *), void *arg)
{
    a->mono_ms = mono_ms;
    a->wall = wall;
    a->clock_arg = arg;
}

void kc_auth_set_token_file_interval(kc_auth *a, int64_t ms)
{
    a->file_interval = ms;
}

void kc_auth_set_exec_timeout(kc_auth *a, int64_t ms)
{
    a->exec_timeout_ms = ms > 0 ? ms : AUTH_EXEC_TIMEOUT_MS;
}

unsigned kc_auth_exec_runs(const kc_auth *a)
{
    return a->runs;
}

const char *kc_auth_exec_running(const kc_auth *a, double *secs)
{
    if (!a || a->pid <= 0 || !a->cfg->exec) return NULL;
    if (secs) *secs = (double)(kc_now_ms() - a->exec_started) / 1000.0;
    return a->cfg->exec->command;
}

void kc_auth_set_stdin_terminal(kc_auth *a, int is_terminal)
{
    a->stdin_tty = is_terminal < 0 ? -1 : !!is_terminal;
}

void kc_auth_set_stdin_unavailable(kc_auth *a, const char *why)
{
    free(a->stdin_unavailable);
    a->stdin_unavailable = why ? xstrdup(why) : NULL;
}

/* client-go plugin/pkg/client/auth/exec/exec.go isInteractive: Never: no; IfAvailable: when stdin
 * is a terminal nobody else uses; Always: that, or an error (-1 with why set). */
static int auth_interactive(const kc_auth *a, char *why, size_t n)
{
    const kc_exec_config *x = a->cfg->exec;
    if (!x || !x->interactive_mode || !strcmp(x->interactive_mode, "Never")) return 0;
    int tty = a->stdin_tty >= 0 ? a->stdin_tty : isatty(STDIN_FILENO);
    if (!strcmp(x->interactive_mode, "IfAvailable")) return tty && !a->stdin_unavailable;
    if (!tty) {
        snprintf(why, n, "standard input is not a terminal");
        return -1;
    }
    if (a->stdin_unavailable) {
        snprintf(why, n, "standard input is unavailable: %s", a->stdin_unavailable);
        return -1;
    }
    return 1;
}

int kc_auth_wants_terminal(const kc_auth *a)
{
    char why[256];
    return a->tls && a->cfg->exec && !auth_cred_valid(a) &&
           auth_interactive(a, why, sizeof why) == 1;
}

static void auth_drop_cred(kc_auth *a)
{
    free(a->cred_token);
    free(a->cred_cert);
    free(a->cred_key);
    a->cred_token = NULL;
    a->cred_cert = a->cred_key = NULL;
    a->cred_cert_len = a->cred_key_len = 0;
    a->cred_expiry = 0;
    a->have_cred = 0;
}

static void auth_close_child_fds(kc_auth *a)
{
    if (a->out_fd >= 0) {
        kc_loop_unwatch_fd(a->loop, a->out_watch);
        close(a->out_fd);
        a->out_fd = -1;
    }
    if (a->err_fd >= 0) {
        kc_loop_unwatch_fd(a->loop, a->err_watch);
        close(a->err_fd);
        a->err_fd = -1;
    }
}

static void auth_destroy(kc_auth *a)
{
    auth_close_child_fds(a);
    if (a->pid > 0) {
        /* Freed while the plugin runs: stop it and its children, reap it: no zombie is left. */
        kill(-a->pid, SIGKILL);
        kill(a->pid, SIGKILL);
        while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    if (a->reap_timer) kc_loop_cancel(a->loop, a->reap_timer);
    if (a->watch_timer) kc_loop_cancel(a->loop, a->watch_timer);
    if (a->pending_timer) kc_loop_cancel(a->loop, a->pending_timer);
    kc_buf_free(&a->out);
    kc_buf_free(&a->err);
    free(a->pending_err);
    free(a->stdin_unavailable);
    auth_drop_cred(a);
    free(a->file_token);
    free(a->waiters);
    free(a);
}

void kc_auth_free(kc_auth *a)
{
    if (!a) return;
    if (a->depth > 0) {
        a->dead = 1;
        return;
    }
    auth_destroy(a);
}

/* ---- tokenFile ---- */

static char *auth_read_file(const char *path, kc_err *err, const char *what)
{
    char *s = kc_read_file(path, KC_CAP_FILE_BYTES, NULL);
    if (!s) {
        char buf[128];
        kc_err_set(err, "cannot read %s %s: %s", what, path,
                   kc_read_file_strerror(errno, KC_CAP_FILE_BYTES, "a file the kubeconfig names",
                                         buf, sizeof buf));
    }
    return s;
}

static char *auth_trim(char *s)
{
    char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r')) n--;
    char *out = xstrndup(p, n);
    free(s);
    return out;
}

/* Re-reads the token file when the interval has passed (or a 401 asked for it). On failure the
 * previous token stays in use, as client-go's cached file token source does. Returns 0 when a
 * token is available, -1 with err set when none could ever be read. */
static int auth_refresh_token_file(kc_auth *a, kc_err *err)
{
    const char *path = a->cfg->token_file;
    if (!path || a->cfg->token) return 0;
    int64_t now = auth_mono(a);
    if (a->file_read_once && !a->file_forced && now - a->file_read_at < a->file_interval) return 0;
    kc_err e = {0};
    char *s = auth_read_file(path, &e, "token file");
    if (!s) {
        if (a->file_token) return 0;
        if (err) *err = e;
        return -1;
    }
    free(a->file_token);
    a->file_token = auth_trim(s);
    a->file_read_at = now;
    a->file_read_once = 1;
    a->file_forced = 0;
    return 0;
}

/* ---- waiters ---- */

static void auth_add_waiter(kc_auth *a, kc_auth_ready_fn cb, void *arg)
{
    if (a->nwait == a->capwait) {
        a->capwait = a->capwait ? a->capwait * 2 : 4;
        a->waiters = xrealloc(a->waiters, a->capwait * sizeof *a->waiters);
    }
    a->waiters[a->nwait++] = (auth_waiter){cb, arg, a->gen};
}

void kc_auth_forget(kc_auth *a, void *arg)
{
    size_t j = 0;
    for (size_t i = 0; i < a->nwait; i++)
        if (a->waiters[i].arg != arg) a->waiters[j++] = a->waiters[i];
    a->nwait = j;
}

/* Calls back everyone waiting for run gen (one at a time, so that a callback may forget others,
 * start a new run or free the auth). */
static void auth_notify(kc_auth *a, unsigned gen, const kc_err *err)
{
    a->depth++;
    for (;;) {
        size_t i;
        for (i = 0; i < a->nwait; i++)
            if (a->waiters[i].gen <= gen) break;
        if (i == a->nwait || a->dead) break;
        auth_waiter w = a->waiters[i];
        memmove(&a->waiters[i], &a->waiters[i + 1], (a->nwait - i - 1) * sizeof *a->waiters);
        a->nwait--;
        w.cb(w.arg, err);
    }
    a->depth--;
    if (a->dead && a->depth == 0) auth_destroy(a);
}

/* ---- exec plugin ---- */

static const char *auth_cmd(kc_auth *a)
{
    return a->cfg->exec->command;
}

/* Keeps the first lines of the plugin's stderr, made safe to print on one line. */
static char *auth_stderr_summary(const kc_buf *b)
{
    kc_buf o = {0};
    int lines = 0;
    size_t i = 0;
    while (i < b->len && lines < 3 && o.len < 400) {
        size_t j = i;
        while (j < b->len && b->data[j] != '\n') j++;
        size_t s = i, e = j;
        while (s < e && (b->data[s] == ' ' || b->data[s] == '\t' || b->data[s] == '\r')) s++;
        while (e > s && (b->data[e - 1] == ' ' || b->data[e - 1] == '\t' || b->data[e - 1] == '\r'))
            e--;
        if (e > s) {
            if (o.len) kc_buf_append(&o, "; ", 2);
            for (size_t k = s; k < e && o.len < 400; k++) {
                unsigned char c = (unsigned char)b->data[k];
                char ch = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
                kc_buf_append(&o, &ch, 1);
            }
            lines++;
        }
        i = j + 1;
    }
    return kc_buf_cstr(&o);
}

/* Makes text one line: control characters and runs of blanks become one space, ends trimmed. */
static char *auth_one_line(const char *s)
{
    kc_buf b = {0};
    int space = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p <= ' ' || *p == 0x7f) {
            space = 1;
            continue;
        }
        if (space && b.len) kc_buf_append(&b, " ", 1);
        space = 0;
        kc_buf_append(&b, p, 1);
    }
    return kc_buf_cstr(&b);
}

/* Parses the ExecCredential the plugin printed; never quotes it (it holds the secret). */
static int auth_parse_cred(kc_auth *a, kc_err *err)
{
    const char *cmd = auth_cmd(a);
    cJSON *j = cJSON_ParseWithLength(a->out.data ? a->out.data : "", a->out.len);
    if (!j || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        kc_err_set(err, "exec plugin \"%s\" printed no valid ExecCredential JSON", cmd);
        return -1;
    }
    int rc = -1;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "apiVersion");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "ExecCredential") != 0) {
        kc_err_set(err, "exec plugin \"%s\" returned kind other than ExecCredential", cmd);
        goto out;
    }
    if (!cJSON_IsString(ver) || strcmp(ver->valuestring, a->cfg->exec->api_version) != 0) {
        kc_err_set(err, "exec plugin \"%s\" returned apiVersion %s, expected %s", cmd,
                   cJSON_IsString(ver) ? ver->valuestring : "(none)", a->cfg->exec->api_version);
        goto out;
    }
    if (!cJSON_IsObject(st)) {
        kc_err_set(err, "exec plugin \"%s\" returned no status", cmd);
        goto out;
    }
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(st, "token");
    const cJSON *cert = cJSON_GetObjectItemCaseSensitive(st, "clientCertificateData");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(st, "clientKeyData");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(st, "expirationTimestamp");
    int has_tok = cJSON_IsString(tok) && tok->valuestring[0];
    int has_cert = cJSON_IsString(cert) && cert->valuestring[0];
    int has_key = cJSON_IsString(key) && key->valuestring[0];
    if (has_cert != has_key) {
        kc_err_set(err, "exec plugin \"%s\" returned %s without %s", cmd,
                   has_cert ? "clientCertificateData" : "clientKeyData",
                   has_cert ? "clientKeyData" : "clientCertificateData");
        goto out;
    }
    if (!has_tok && !has_cert) {
        kc_err_set(err, "exec plugin \"%s\" returned neither a token nor a client certificate",
                   cmd);
        goto out;
    }
    double expiry = 0;
    if (cJSON_IsString(exp) && exp->valuestring[0]) {
        if (kc_parse_time(exp->valuestring, &expiry) < 0) {
            char *e = auth_one_line(exp->valuestring);
            kc_err_set(err, "exec plugin \"%s\" returned a malformed expirationTimestamp \"%.64s\"",
                       cmd, e);
            free(e);
            goto out;
        }
    } else if (exp && !cJSON_IsNull(exp) && !cJSON_IsString(exp)) {
        kc_err_set(err, "exec plugin \"%s\" returned a malformed expirationTimestamp", cmd);
        goto out;
    }
    auth_drop_cred(a);
    a->have_cred = 1;
    a->cred_invalidated = 0;
    a->cred_expiry = expiry;
    if (has_tok) a->cred_token = xstrdup(tok->valuestring);
    if (has_cert) {
        a->cred_cert_len = strlen(cert->valuestring);
        a->cred_cert = (unsigned char *)xstrdup(cert->valuestring);
        a->cred_key_len = strlen(key->valuestring);
        a->cred_key = (unsigned char *)xstrdup(key->valuestring);
    }
    rc = 0;
out:
    cJSON_Delete(j);
    return rc;
}

/* The run is over (status as waitpid gives it): turn it into a credential or an error.
 * timed_out: it was killed after exec_timeout_ms. */
static void auth_finish_run(kc_auth *a, int status, int timed_out)
{
    kc_err err = {0};
    const char *cmd = auth_cmd(a);
    if (a->watch_timer) kc_loop_cancel(a->loop, a->watch_timer);
    a->watch_timer = 0;
    /* whatever the plugin left behind (a helper holding its stdout) goes with it */
    if (a->pid > 0) kill(-a->pid, SIGKILL);
    if (timed_out) {
        kc_err_set(&err, "exec plugin \"%s\" did not answer within %g s (stopped)", cmd,
                   (double)a->run_timeout_ms / 1000.0);
    } else if (a->out.len > AUTH_EXEC_MAX_STDOUT) {
        /* before the exit status: veltop killed it for this, the signal is ours */
        kc_err_set(&err, "exec plugin \"%s\" printed more than %d bytes", cmd,
                   AUTH_EXEC_MAX_STDOUT);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        char *s = auth_stderr_summary(&a->err);
        if (*s)
            kc_err_set(&err, "exec plugin \"%s\" failed with exit status %d: %s", cmd,
                       WEXITSTATUS(status), s);
        else
            kc_err_set(&err, "exec plugin \"%s\" failed with exit status %d", cmd,
                       WEXITSTATUS(status));
        free(s);
    } else if (WIFSIGNALED(status)) {
        kc_err_set(&err, "exec plugin \"%s\" was killed by signal %d", cmd, WTERMSIG(status));
    } else {
        auth_parse_cred(a, &err);
    }
    kc_buf_free(&a->out);
    kc_buf_free(&a->err);
    a->pid = -1;
    unsigned gen = a->gen++;
    auth_notify(a, gen, &err);
}

static void auth_finish(kc_auth *a, int status)
{
    auth_finish_run(a, status, 0);
}

static void auth_try_reap(void *arg)
{
    kc_auth *a = arg;
    a->reap_timer = 0;
    int status = 0;
    pid_t r = waitpid(a->pid, &status, WNOHANG);
    if (r == 0) {
        /* Pipes closed but the child has not exited yet: look again shortly. */
        a->reap_delay = a->reap_delay ? (a->reap_delay < 200 ? a->reap_delay * 2 : 200) : 2;
        a->reap_timer = kc_loop_timer(a->loop, a->reap_delay, auth_try_reap, a);
        return;
    }
    if (r < 0) status = 0; /* ECHILD: SIGCHLD is ignored; judge by the output alone */
    auth_finish(a, status);
}

/* What auth_read found. */
enum { AUTH_PIPE_EMPTY, AUTH_PIPE_CLOSED, AUTH_PIPE_OVER };

/* Reads what pipe fd (the plugin's stdout or stderr) holds now, without waiting, into its buffer:
 * stderr keeps its first AUTH_EXEC_MAX_STDERR bytes, stdout one byte past its limit so the finish
 * can report the size, and reading stops as soon as stdout is past it (AUTH_PIPE_OVER).
 * AUTH_PIPE_EMPTY: nothing more for now; AUTH_PIPE_CLOSED: EOF or a read error. */
static int auth_read(kc_auth *a, int fd)
{
    int is_out = fd == a->out_fd;
    kc_buf *b = is_out ? &a->out : &a->err;
    size_t cap = is_out ? AUTH_EXEC_MAX_STDOUT + 1 : AUTH_EXEC_MAX_STDERR;
    char tmp[8192];
    for (;;) {
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n > 0) {
            size_t room = b->len < cap ? cap - b->len : 0;
            kc_buf_append(b, tmp, (size_t)n < room ? (size_t)n : room);
            if (is_out && b->len > AUTH_EXEC_MAX_STDOUT) return AUTH_PIPE_OVER;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return AUTH_PIPE_EMPTY;
        return AUTH_PIPE_CLOSED;
    }
}

static void auth_on_pipe(void *arg, int fd, short revents)
{
    (void)revents;
    kc_auth *a = arg;
    int is_out = fd == a->out_fd;
    int r = auth_read(a, fd);
    if (r == AUTH_PIPE_EMPTY) return;
    /* stdout past its limit: stop the plugin, treat as closed; the finish reports the size */
    if (r == AUTH_PIPE_OVER) kill(a->pid, SIGKILL);
    if (is_out) {
        kc_loop_unwatch_fd(a->loop, a->out_watch);
        close(a->out_fd);
        a->out_fd = -1;
    } else {
        kc_loop_unwatch_fd(a->loop, a->err_watch);
        close(a->err_fd);
        a->err_fd = -1;
    }
    if (a->out_fd < 0 && a->err_fd < 0) {
        a->reap_delay = 0;
        auth_try_reap(a);
    }
}

/* A plugin that has exited while its pipes are still open (a child of its own holds them) is
 * done: what it printed is in the pipes. A plugin that runs past its time is stopped, with its
 * process group, and named in the error. */
static void auth_watch_exec(void *arg)
{
    kc_auth *a = arg;
    a->watch_timer = 0;
    if (a->pid <= 0) return;
    int status = 0;
    pid_t r = waitpid(a->pid, &status, WNOHANG);
    int timed_out = r == 0 && kc_now_ms() - a->exec_started >= a->run_timeout_ms;
    if (r == 0 && !timed_out) {
        a->watch_timer = kc_loop_timer(a->loop, AUTH_EXEC_WATCH_MS, auth_watch_exec, a);
        return;
    }
    if (r == 0) {
        kill(-a->pid, SIGKILL);
        kill(a->pid, SIGKILL);
        while (waitpid(a->pid, &status, 0) < 0 && errno == EINTR) {
        }
    } else {
        if (a->out_fd >= 0) auth_read(a, a->out_fd);
        if (a->err_fd >= 0) auth_read(a, a->err_fd);
        if (r < 0) status = 0; /* ECHILD: SIGCHLD is ignored; judge by the output alone */
    }
    auth_close_child_fds(a);
    if (a->reap_timer) kc_loop_cancel(a->loop, a->reap_timer);
    a->reap_timer = 0;
    auth_finish_run(a, status, timed_out);
}

static void auth_pending_fire(void *arg)
{
    kc_auth *a = arg;
    a->pending_timer = 0;
    kc_err err = {0};
    kc_err_set(&err, "%s", a->pending_err);
    free(a->pending_err);
    a->pending_err = NULL;
    unsigned gen = a->gen++;
    auth_notify(a, gen, &err);
}

/* A failure before the plugin could run is still reported through the callback, later. */
static void auth_fail_later(kc_auth *a, const char *msg)
{
    if (a->pending_err) return;
    a->pending_err = xstrdup(msg);
    a->pending_timer = kc_loop_timer(a->loop, 0, auth_pending_fire, a);
}

/* KUBERNETES_EXEC_INFO as client-go builds it. */
static char *auth_exec_info(kc_auth *a, int interactive)
{
    const kc_rest_config *c = a->cfg;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kind", "ExecCredential");
    cJSON_AddStringToObject(j, "apiVersion", c->exec->api_version);
    cJSON *spec = cJSON_AddObjectToObject(j, "spec");
    if (c->exec->provide_cluster_info) {
        cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
        cJSON_AddStringToObject(cl, "server", c->server ? c->server : "");
        if (c->tls_server_name) cJSON_AddStringToObject(cl, "tls-server-name", c->tls_server_name);
        if (c->insecure_skip_tls_verify) cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify");
        if (c->ca_data) {
            char *b64 = kc_base64_encode(c->ca_data, c->ca_len);
            cJSON_AddStringToObject(cl, "certificate-authority-data", b64);
            free(b64);
        }
        if (c->proxy_url) cJSON_AddStringToObject(cl, "proxy-url", c->proxy_url);
        if (c->disable_compression) cJSON_AddTrueToObject(cl, "disable-compression");
        /* the cluster's client.authentication.k8s.io/exec extension (null when none) */
        cJSON *conf = c->exec->cluster_config ? cJSON_Parse(c->exec->cluster_config) : NULL;
        cJSON_AddItemToObject(cl, "config", conf ? conf : cJSON_CreateNull());
    }
    cJSON_AddBoolToObject(spec, "interactive", interactive);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *out = xstrdup(s);
    cJSON_free(s);
    return out;
}

/* The host's environment, then the kubeconfig's env (replacing same names), then
 * KUBERNETES_EXEC_INFO. */
static char **auth_exec_env(kc_auth *a, int interactive)
{
    const kc_exec_config *x = a->cfg->exec;
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = xcalloc(n + x->nenv + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int replaced = nl == strlen("KUBERNETES_EXEC_INFO") &&
                       strncmp(environ[i], "KUBERNETES_EXEC_INFO", nl) == 0;
        for (size_t e = 0; e < x->nenv && !replaced; e++)
            if (strlen(x->env_names[e]) == nl && strncmp(environ[i], x->env_names[e], nl) == 0)
                replaced = 1;
        if (!replaced) env[k++] = xstrdup(environ[i]);
    }
    for (size_t e = 0; e < x->nenv; e++)
        env[k++] = xasprintf("%s=%s", x->env_names[e], x->env_values[e] ? x->env_values[e] : "");
    char *info = auth_exec_info(a, interactive);
    env[k++] = xasprintf("KUBERNETES_EXEC_INFO=%s", info);
    free(info);
    env[k] = NULL;
    return env;
}

static void auth_free_strv(char **v)
{
    if (!v) return;
    for (size_t i = 0; v[i]; i++) free(v[i]);
    free(v);
}

/* Finds the executable as Go's exec.LookPath does (client-go's error for a missing plugin comes
 * from there): a name with '/' is used as is, others are searched in $PATH. Looking first also
 * gives a reliable ENOENT where posix_spawn could only report the child's exit status 127. */
static int auth_look_path(const char *cmd, char **out)
{
    if (strchr(cmd, '/')) {
        if (access(cmd, X_OK) < 0) return errno;
        *out = xstrdup(cmd);
        return 0;
    }
    const char *path = getenv("PATH");
    char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    int rc = ENOENT;
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char *full = xasprintf("%s/%s", *dir ? dir : ".", cmd);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
            *out = full;
            rc = 0;
            break;
        }
        free(full);
    }
    free(copy);
    return rc;
}

/* Starts the plugin with posix_spawn (no shell); its output is read from the loop. */
static void auth_start_exec(kc_auth *a)
{
    const kc_exec_config *x = a->cfg->exec;
    char why[300];
    int interactive = auth_interactive(a, why, sizeof why);
    if (interactive < 0) {
        char *m =
            xasprintf("exec plugin \"%s\" cannot support interactive mode: %s", x->command, why);
        auth_fail_later(a, m);
        free(m);
        return;
    }
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) < 0) {
        char *m = xasprintf("cannot run exec plugin \"%s\": %s", x->command, strerror(errno));
        auth_fail_later(a, m);
        free(m);
        return;
    }
    if (pipe2(pe, O_CLOEXEC) < 0) {
        char *m = xasprintf("cannot run exec plugin \"%s\": %s", x->command, strerror(errno));
        close(po[0]);
        close(po[1]);
        auth_fail_later(a, m);
        free(m);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    /* interactive (client-go: cmd.Stdin = os.Stdin, cmd.Stderr = os.Stderr): the plugin has the
     * terminal, to prompt on stderr and read the answer; otherwise stdin is /dev/null and stderr
     * is kept for the error message */
    if (!interactive) posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    if (!interactive) posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    char **argv = xcalloc(x->nargs + 2, sizeof *argv);
    argv[0] = x->command;
    for (size_t i = 0; i < x->nargs; i++) argv[i + 1] = x->args[i];
    char **env = auth_exec_env(a, interactive);
    pid_t pid;
    char *path = NULL;
    int rc = auth_look_path(x->command, &path);
    /* its own process group: a timeout stops the plugin and whatever it started; but an
     * interactive one stays in ours, the terminal's foreground group, or reading the terminal
     * would stop it (SIGTTIN) */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (!interactive) {
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
    }
    /* the plugin gets the open-file limit veltop was started with, as Go gives its children:
     * posix_spawn takes no rlimit, so it is lowered around the call (this thread is the only one
     * opening descriptors but --serve's, whose accept() waits out an EMFILE) */
    kc_fd_child_begin();
    if (rc == 0) rc = posix_spawn(&pid, path, &fa, &attr, argv, env);
    kc_fd_child_end();
    posix_spawnattr_destroy(&attr);
    free(path);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    auth_free_strv(env);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        char *m;
        if (rc == ENOENT) {
            char *hint = auth_one_line(x->install_hint);
            m = *hint ? xasprintf("exec plugin \"%s\" not found: %s", x->command, hint)
                      : xasprintf("exec plugin \"%s\" not found", x->command);
            free(hint);
        } else {
            m = xasprintf("cannot run exec plugin \"%s\": %s", x->command, strerror(rc));
        }
        auth_fail_later(a, m);
        free(m);
        return;
    }
    a->runs++;
    a->pid = pid;
    a->out_fd = po[0];
    a->err_fd = pe[0];
    fcntl(a->out_fd, F_SETFL, fcntl(a->out_fd, F_GETFL) | O_NONBLOCK);
    fcntl(a->err_fd, F_SETFL, fcntl(a->err_fd, F_GETFL) | O_NONBLOCK);
    a->out_watch = kc_loop_watch_fd(a->loop, a->out_fd, POLLIN, auth_on_pipe, a);
    a->err_watch = kc_loop_watch_fd(a->loop, a->err_fd, POLLIN, auth_on_pipe, a);
    a->exec_started = kc_now_ms(); /* real time, whatever clock the tests inject */
    a->run_timeout_ms = a->exec_timeout_ms;
    if (interactive && a->run_timeout_ms < AUTH_EXEC_INTERACTIVE_TIMEOUT_MS)
        a->run_timeout_ms = AUTH_EXEC_INTERACTIVE_TIMEOUT_MS;
    a->watch_timer = kc_loop_timer(a->loop, AUTH_EXEC_WATCH_MS, auth_watch_exec, a);
}

static int auth_cred_valid(const kc_auth *a)
{
    if (!a->have_cred) return 0;
    return a->cred_expiry == 0 || auth_wall(a) < a->cred_expiry;
}

int kc_auth_ready(kc_auth *a, kc_auth_ready_fn cb, void *arg)
{
    if (!a->tls) return 1; /* kubectl sends no credentials over plain http */
    if (!a->cfg->exec) {
        kc_err err = {0};
        if (auth_refresh_token_file(a, &err) == 0) return 1;
        auth_add_waiter(a, cb, arg);
        auth_fail_later(a, err.msg);
        return 0;
    }
    if (auth_cred_valid(a)) return 1;
    auth_add_waiter(a, cb, arg);
    if (a->pid < 0 && !a->pending_err) auth_start_exec(a);
    return 0;
}

/* The verification name for tls-server-name. libcurl has no option to verify against another
 * name than the URL's host, so curl's own host check is turned off and OpenSSL is told to check
 * this name during the handshake (libcurl is built on OpenSSL; the SSL_CTX is OpenSSL's). */
static CURLcode auth_ssl_ctx(CURL *easy, void *sslctx, void *arg)
{
    (void)easy;
    kc_auth *a = arg;
    X509_VERIFY_PARAM *p = SSL_CTX_get0_param((SSL_CTX *)sslctx);
    if (!p || X509_VERIFY_PARAM_set1_host(p, a->cfg->tls_server_name, 0) != 1)
        return CURLE_SSL_CONNECT_ERROR;
    return CURLE_OK;
}

static void auth_set_blob(CURL *easy, CURLoption opt, const unsigned char *data, size_t len)
{
    struct curl_blob blob = {.data = (void *)data, .len = len, .flags = CURL_BLOB_COPY};
    curl_easy_setopt(easy, opt, &blob);
}

/* client-go transport/round_trippers.go headerKeyEscape: bytes that are not an HTTP token
 * character, and '%', are %-encoded (upper-case hex) in an Impersonate-Extra- header's name. */
static void auth_key_escape(kc_buf *b, const char *k)
{
    for (const unsigned char *p = (const unsigned char *)k; *p; p++) {
        int legal = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                    (*p >= 'A' && *p <= 'Z') || (*p && strchr("!#$&'*+-.^_`|~", *p));
        if (legal)
            kc_buf_append(b, p, 1);
        else
            kc_buf_printf(b, "%%%02X", *p);
    }
}

/* Impersonate-User, -Uid, one Impersonate-Group per group, Impersonate-Extra-<key> per value
 * (client-go transport/round_trippers.go impersonatingRoundTripper). */
static struct curl_slist *auth_impersonate(const kc_rest_config *c, struct curl_slist *h)
{
    if (!c->as_user) return h;
    kc_buf b = {0};
    kc_buf_printf(&b, "Impersonate-User: %s", c->as_user);
    h = curl_slist_append(h, kc_buf_cstr(&b));
    if (c->as_uid) {
        b.len = 0;
        kc_buf_printf(&b, "Impersonate-Uid: %s", c->as_uid);
        h = curl_slist_append(h, kc_buf_cstr(&b));
    }
    for (size_t i = 0; i < c->n_as_groups; i++) {
        b.len = 0;
        /* an empty value needs curl's "Name;" form, or curl drops the header */
        if (*c->as_groups[i])
            kc_buf_printf(&b, "Impersonate-Group: %s", c->as_groups[i]);
        else
            kc_buf_printf(&b, "Impersonate-Group;");
        h = curl_slist_append(h, kc_buf_cstr(&b));
    }
    for (size_t i = 0; i < c->n_as_extra; i++) {
        b.len = 0;
        kc_buf_printf(&b, "Impersonate-Extra-");
        auth_key_escape(&b, c->as_extra_keys[i]);
        if (*c->as_extra_values[i])
            kc_buf_printf(&b, ": %s", c->as_extra_values[i]);
        else
            kc_buf_printf(&b, ";");
        h = curl_slist_append(h, kc_buf_cstr(&b));
    }
    kc_buf_free(&b);
    return h;
}

struct curl_slist *kc_auth_apply(kc_auth *a, CURL *easy, struct curl_slist *headers)
{
    const kc_rest_config *c = a->cfg;
    if (c->proxy_url) curl_easy_setopt(easy, CURLOPT_PROXY, c->proxy_url);
    if (c->disable_compression) curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, NULL);
    /* impersonation: set whether or not the server is https (client-go
     * tools/clientcmd/client_config.go sets it before its TLS-only credentials) */
    headers = auth_impersonate(c, headers);
    if (!a->tls) return headers;

    int https_proxy = c->proxy_url && strncasecmp(c->proxy_url, "https://", 8) == 0;
    if (c->insecure_skip_tls_verify) {
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
        if (https_proxy) {
            curl_easy_setopt(easy, CURLOPT_PROXY_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(easy, CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
        }
    } else {
        if (c->ca_data) auth_set_blob(easy, CURLOPT_CAINFO_BLOB, c->ca_data, c->ca_len);
        /* Go's transport dials an https proxy with the same TLS settings (net/http transport.go
         * addTLS with TLSClientConfig): the kubeconfig's CA verifies the proxy too */
        if (c->ca_data && https_proxy)
            auth_set_blob(easy, CURLOPT_PROXY_CAINFO_BLOB, c->ca_data, c->ca_len);
        if (c->tls_server_name) {
            curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
            /* Go copies ServerName into the https proxy's TLS config too (addTLS only sets it
             * when empty): the proxy is verified against tls-server-name, not its own name.
             * libcurl runs the SSL_CTX callback below for the proxy's handshake as well, so
             * its own name check is the one turned off here */
            if (https_proxy) curl_easy_setopt(easy, CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
            curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, auth_ssl_ctx);
            curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, a);
        }
    }

    const unsigned char *cert = c->client_cert_data, *key = c->client_key_data;
    size_t cert_len = c->client_cert_len, key_len = c->client_key_len;
    const char *token = c->token;
    if (c->exec && a->have_cred) {
        if (a->cred_cert) {
            cert = a->cred_cert;
            cert_len = a->cred_cert_len;
            key = a->cred_key;
            key_len = a->cred_key_len;
        }
        if (a->cred_token) token = a->cred_token;
    }
    if (cert && key) {
        auth_set_blob(easy, CURLOPT_SSLCERT_BLOB, cert, cert_len);
        curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
        auth_set_blob(easy, CURLOPT_SSLKEY_BLOB, key, key_len);
        curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (!token && c->token_file && !c->exec) {
        auth_refresh_token_file(a, NULL);
        token = a->file_token;
    }
    if (token && *token) {
        char *h = xasprintf("Authorization: Bearer %s", token);
        headers = curl_slist_append(headers, h);
        memset(h, 0, strlen(h));
        free(h);
    } else if (c->username || c->password) {
        curl_easy_setopt(easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(easy, CURLOPT_USERNAME, c->username ? c->username : "");
        curl_easy_setopt(easy, CURLOPT_PASSWORD, c->password ? c->password : "");
    }
    return headers;
}

int kc_auth_invalidate(kc_auth *a)
{
    if (!a->tls) return 0;
    if (a->cfg->exec) {
        if (!a->have_cred || a->cred_invalidated) return 0;
        auth_drop_cred(a);
        a->cred_invalidated = 1;
        return 1;
    }
    if (a->cfg->token_file && !a->cfg->token) {
        if (a->file_forced) return 0;
        a->file_forced = 1;
        return 1;
    }
    return 0;
}
