/* alert.c: run events (finished, failed, stalled) from the model, delivered as a bell, the
 * terminal title and a --notify command (alert.h). Children run with /dev/null for their stdio
 * so they never write over the screen, and are reaped with waitpid(WNOHANG) from the loop. */
#include "alert.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kubeclient/fdbudget.h"
#include "kubeclient/util.h"
#include "sanitize.h"

static struct {
    int bell;
    char *notify;
    pid_t *kids;
    size_t nkids, capkids;
} alert_cfg = {1, NULL, NULL, 0, 0};

void alert_configure(int bell, const char *notify_cmd)
{
    alert_cfg.bell = bell;
    free(alert_cfg.notify);
    alert_cfg.notify = notify_cmd && *notify_cmd ? xstrdup(notify_cmd) : NULL;
}

static int alert_failed_phase(vl_phase p)
{
    return p == VL_PH_FAILED || p == VL_PH_PARTIALLY_FAILED || p == VL_PH_FAILED_VALIDATION;
}

alert_event alert_classify(vl_phase before, int stalled_before, vl_phase now, int stalled_now)
{
    if (!vl_phase_terminal(before) && vl_phase_terminal(now))
        return alert_failed_phase(now) ? ALERT_FAILED : ALERT_FINISHED;
    if (vl_phase_active(now) && stalled_now && !stalled_before) return ALERT_STALLED;
    return ALERT_NONE;
}

const char *alert_event_name(alert_event e)
{
    return e == ALERT_FINISHED  ? "finished"
           : e == ALERT_FAILED  ? "failed"
           : e == ALERT_STALLED ? "stalled"
                                : "none";
}

pid_t alert_notify(const char *cmd, alert_event e, vl_kind kind, const char *run, const char *phase)
{
    return alert_notify_ctx(cmd, e, NULL, kind, run, phase);
}

pid_t alert_notify_ctx(const char *cmd, alert_event e, const char *context, vl_kind kind,
                       const char *run, const char *phase)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
            if (fd > 2) close(fd);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        kc_fd_child_restore(); /* the open-file limit veltop was started with (fdbudget.h) */
        setenv("VELTOP_EVENT", alert_event_name(e), 1);
        setenv("VELTOP_KIND", kind == VL_RESTORE ? "restore" : "backup", 1);
        setenv("VELTOP_RUN", run ? run : "", 1);
        setenv("VELTOP_PHASE", phase ? phase : "", 1);
        if (context) setenv("VELTOP_CONTEXT", context, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (alert_cfg.nkids == alert_cfg.capkids) {
        alert_cfg.capkids = alert_cfg.capkids ? alert_cfg.capkids * 2 : 4;
        alert_cfg.kids = xrealloc(alert_cfg.kids, alert_cfg.capkids * sizeof *alert_cfg.kids);
    }
    alert_cfg.kids[alert_cfg.nkids++] = pid;
    return pid;
}

int alert_reap(void)
{
    size_t j = 0;
    for (size_t i = 0; i < alert_cfg.nkids; i++) {
        pid_t r = waitpid(alert_cfg.kids[i], NULL, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR)) alert_cfg.kids[j++] = alert_cfg.kids[i];
    }
    alert_cfg.nkids = j;
    return (int)j;
}

int alert_scan(const ans_ctx *c, model *m, char *title, size_t titlen, int *bell)
{
    return alert_scan_ctx(c, m, NULL, 0, title, titlen, bell);
}

int alert_scan_ctx(const ans_ctx *c, model *m, const char *context, int in_title, char *title,
                   size_t titlen, int *bell)
{
    int fired = 0;
    if (bell) *bell = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *r = m->runs[i];
        if (!r->run) continue;
        vl_phase ph = r->run->phase_id;
        /* stalled as the run's answer says (never judged on data that is not current) */
        int stalled = 0;
        if (!c->stale && vl_phase_active(ph)) {
            run_answer a;
            answer_run(c, r, &a);
            stalled = a.stalled == ANS_YES;
        }
        if (!r->alert_seen) {
            r->alert_seen = 1;
            r->alert_phase = (int)ph;
            r->alert_stalled = stalled;
            continue;
        }
        alert_event e = alert_classify((vl_phase)r->alert_phase, r->alert_stalled, ph, stalled);
        int resumed = !c->stale && r->alert_stalled && !stalled && ph == (vl_phase)r->alert_phase;
        r->alert_phase = (int)ph;
        if (!c->stale) r->alert_stalled = stalled;
        if (resumed && title && titlen) {
            /* the title said it stalled: it says it moves again (no bell, no --notify) */
            char *nm = san_str(r->name);
            char *cx = in_title && context ? san_str(context) : NULL;
            snprintf(title, titlen, "veltop: %s%s%s %s moving again", cx ? cx : "", cx ? ": " : "",
                     r->kind == VL_BACKUP ? "backup" : "restore", nm);
            free(cx);
            free(nm);
        }
        if (e == ALERT_NONE) continue;
        fired++;
        if (bell) *bell = alert_cfg.bell;
        if (title && titlen) {
            char *nm = san_str(r->name), *p = san_str(r->run->phase);
            char *cx = in_title && context ? san_str(context) : NULL;
            snprintf(title, titlen, "veltop: %s%s%s %s %s", cx ? cx : "", cx ? ": " : "",
                     r->kind == VL_BACKUP ? "backup" : "restore", nm,
                     e == ALERT_STALLED ? "stalled" : p);
            free(cx);
            free(nm);
            free(p);
        }
        if (alert_cfg.notify)
            alert_notify_ctx(alert_cfg.notify, e, context, r->kind, r->name, r->run->phase);
    }
    alert_reap();
    return fired;
}

void alert_ui_tick(const ans_ctx *c, model *m)
{
    alert_ui_tick_ctx(c, m, NULL, 0);
}

void alert_ui_tick_ctx(const ans_ctx *c, model *m, const char *context, int in_title)
{
    char title[600] = "";
    int bell = 0;
    alert_scan_ctx(c, m, context, in_title, title, sizeof title, &bell);
    if (!alert_cfg.bell || !title[0]) return;
    if (bell) beep();
    if (title[0]) { /* OSC 2: the window title; the text is sanitised, BEL ends it */
        printf("\033]2;%s\007", title);
        fflush(stdout);
    }
}
