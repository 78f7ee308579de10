/* restic.c: runs the real restic over generated data for restic-real volumes: `restic init` then
 * `restic backup --json` in a temporary repository, as fork/exec'd children whose stdout is read
 * without blocking (never through a shell; the password goes in the environment only). */
#include "restic.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kubeclient/util.h"

#define MAX_DATA (64LL << 20) /* generated data is capped: the sim is not a disk benchmark */

struct restic_job {
    char *tmp, *data, *repo, *bin;
    char *env[6];
    pid_t pid;
    int fd;
    int stage; /* 1 init, 2 backup, 3 done */
    kc_buf line;
    int64_t total, done;
    char snapshot[80];
    char last_err[256];
};

/* Looks restic up in PATH (before fork: the child only calls execve). */
static char *find_restic(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path), *save = NULL;
    char *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = xasprintf("%s/restic", *d ? d : ".");
        if (access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

static int write_data(const char *dir, int64_t size, uint64_t seed, char *err, size_t errlen)
{
    if (size > MAX_DATA) size = MAX_DATA;
    if (size < 1) size = 1;
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    static unsigned char buf[1 << 16];
    for (int f = 0; size > 0; f++) {
        char *p = xasprintf("%s/file-%03d.bin", dir, f);
        FILE *fp = fopen(p, "wb");
        free(p);
        if (!fp) {
            snprintf(err, errlen, "cannot write restic test data: %s", strerror(errno));
            return -1;
        }
        int64_t n = size < (1 << 20) ? size : (1 << 20);
        for (int64_t w = 0; w < n;) {
            size_t chunk = (size_t)(n - w < (int64_t)sizeof buf ? n - w : (int64_t)sizeof buf);
            for (size_t i = 0; i + 8 <= sizeof buf; i += 8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                memcpy(buf + i, &x, 8);
            }
            fwrite(buf, 1, chunk, fp);
            w += (int64_t)chunk;
        }
        fclose(fp);
        size -= n;
    }
    return 0;
}

static int spawn(restic_job *j, char *const argv[], char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot create a pipe for restic: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        snprintf(err, errlen, "cannot fork restic: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* child: async-signal-safe calls only */
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull >= 0 ? devnull : p[1], 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        execve(j->bin, argv, j->env);
        _exit(127);
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    j->pid = pid;
    j->fd = p[0];
    return 0;
}

static int start_stage(restic_job *j, char *err, size_t errlen)
{
    char *init[] = {"restic", "--no-cache", "init", NULL};
    char *backup[] = {"restic", "--no-cache", "backup", "--json", j->data, NULL};
    return spawn(j, j->stage == 1 ? init : backup, err, errlen);
}

restic_job *restic_job_start(const char *path, int64_t size, uint64_t seed, char *err,
                             size_t errlen)
{
    char *bin = path ? xstrdup(path) : find_restic();
    if (bin && access(bin, X_OK)) {
        snprintf(err, errlen, "restic not found at %s", bin);
        free(bin);
        return NULL;
    }
    if (!bin) {
        snprintf(err, errlen, "restic not found in PATH");
        return NULL;
    }
    char tmpl[] = "/tmp/vsim-restic-XXXXXX";
    if (!mkdtemp(tmpl)) {
        free(bin);
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return NULL;
    }
    restic_job *j = xcalloc(1, sizeof *j);
    j->bin = bin;
    j->tmp = xstrdup(tmpl);
    j->data = xasprintf("%s/data", tmpl);
    j->repo = xasprintf("%s/repo", tmpl);
    j->fd = -1;
    j->pid = -1;
    /* a random password per job, in the environment only */
    j->env[0] = xasprintf("RESTIC_PASSWORD=vsim-%016llx",
                          (unsigned long long)(seed * 0xbf58476d1ce4e5b9ULL ^ (uint64_t)getpid()));
    j->env[1] = xasprintf("RESTIC_REPOSITORY=%s", j->repo);
    j->env[2] = xasprintf("HOME=%s", tmpl);
    j->env[3] = xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    j->env[4] = xasprintf("TMPDIR=%s", tmpl);
    if (mkdir(j->data, 0700) || write_data(j->data, size, seed, err, errlen)) {
        if (!*err) snprintf(err, errlen, "cannot create %s: %s", j->data, strerror(errno));
        restic_job_free(j);
        return NULL;
    }
    j->stage = 1;
    if (start_stage(j, err, errlen)) {
        restic_job_free(j);
        return NULL;
    }
    return j;
}

static void parse_line(restic_job *j, const char *line)
{
    cJSON *o = line[0] == '{' ? cJSON_Parse(line) : NULL;
    if (!o) {
        if (*line) snprintf(j->last_err, sizeof j->last_err, "%s", line);
        return;
    }
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "message_type"));
    cJSON *tb = cJSON_GetObjectItemCaseSensitive(o, "total_bytes");
    cJSON *bd = cJSON_GetObjectItemCaseSensitive(o, "bytes_done");
    if (type && !strcmp(type, "status")) {
        if (cJSON_IsNumber(tb)) j->total = (int64_t)tb->valuedouble;
        if (cJSON_IsNumber(bd) && (int64_t)bd->valuedouble > j->done)
            j->done = (int64_t)bd->valuedouble;
    } else if (type && !strcmp(type, "summary")) {
        cJSON *tp = cJSON_GetObjectItemCaseSensitive(o, "total_bytes_processed");
        if (cJSON_IsNumber(tp)) j->total = j->done = (int64_t)tp->valuedouble;
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "snapshot_id"));
        if (id) snprintf(j->snapshot, sizeof j->snapshot, "%s", id);
    }
    cJSON_Delete(o);
}

int restic_job_poll(restic_job *j, int64_t *total, int64_t *done, char *snapshot, size_t snaplen,
                    char *err, size_t errlen)
{
    if (j->stage == 3) goto finished;
    char buf[4096];
    for (;;) {
        ssize_t n = read(j->fd, buf, sizeof buf);
        if (n > 0) {
            kc_buf_append(&j->line, buf, (size_t)n);
            char *start = j->line.data, *nl;
            size_t left = j->line.len;
            while ((nl = memchr(start, '\n', left))) {
                *nl = '\0';
                parse_line(j, start);
                left -= (size_t)(nl + 1 - start);
                start = nl + 1;
            }
            memmove(j->line.data, start, left);
            j->line.len = left;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break; /* nothing more for now */
        /* EOF: the child is done writing; reap it */
        int status;
        pid_t w = waitpid(j->pid, &status, WNOHANG);
        if (w == 0) break; /* not exited yet: next poll */
        close(j->fd);
        j->fd = -1;
        j->pid = -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            snprintf(err, errlen, "restic %s failed: %s", j->stage == 1 ? "init" : "backup",
                     j->last_err[0] ? j->last_err : "non-zero exit");
            return -1;
        }
        j->line.len = 0;
        if (j->stage == 1) {
            j->stage = 2;
            if (start_stage(j, err, errlen)) return -1;
            continue;
        }
        j->stage = 3;
        goto finished;
    }
    *total = j->total;
    *done = j->done;
    return 0;
finished:
    *total = j->total;
    *done = j->done;
    snprintf(snapshot, snaplen, "%s", j->snapshot);
    return 1;
}

static int make_writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_D) chmod(path, (st->st_mode & 07777) | 0700);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Removes the job's temporary tree (restic makes some of it read-only). */
static void rmrf(const char *path)
{
    nftw(path, make_writable, 16, FTW_PHYS);
    nftw(path, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

void restic_job_free(restic_job *j)
{
    if (!j) return;
    if (j->pid > 0) {
        kill(j->pid, SIGTERM);
        waitpid(j->pid, NULL, 0);
    }
    if (j->fd >= 0) close(j->fd);
    rmrf(j->tmp);
    for (int i = 0; i < 6; i++) free(j->env[i]);
    kc_buf_free(&j->line);
    free(j->tmp);
    free(j->data);
    free(j->repo);
    free(j->bin);
    free(j);
}
