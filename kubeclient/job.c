/* job.c: decodes batch/v1 Jobs (job.h) as repository maintenance is judged on them, and the
 * label Velero gives a repository's maintenance jobs. */
#include "kubeclient/job.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static const cJSON *jb_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *jb_str(const cJSON *o, const char *key)
{
    const cJSON *v = jb_get(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static int jb_int(const cJSON *o, const char *key)
{
    const cJSON *v = jb_get(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e9 ? (int)v->valuedouble
                                                                           : 0;
}

static double jb_time(const cJSON *o, const char *key)
{
    double t = 0;
    const char *s = jb_str(o, key);
    if (s && kc_parse_time(s, &t)) t = 0;
    return t;
}

kc_job *kc_job_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    kc_job *j = xcalloc(1, sizeof *j);
    const cJSON *md = jb_get(obj, "metadata"), *st = jb_get(obj, "status");
    j->name = xstrdup(jb_str(md, "name"));
    j->ns = xstrdup(jb_str(md, "namespace"));
    j->repo_label = xstrdup(jb_str(jb_get(md, "labels"), KC_JOB_REPO_LABEL));
    j->created = jb_time(md, "creationTimestamp");
    j->started = jb_time(st, "startTime");
    j->ended = jb_time(st, "completionTime");
    j->active = jb_int(st, "active");
    j->succeeded = jb_int(st, "succeeded");
    j->failed = jb_int(st, "failed");
    const cJSON *c, *conds = jb_get(st, "conditions");
    if (!cJSON_IsArray(conds)) conds = NULL;
    cJSON_ArrayForEach(c, conds)
    {
        const char *type = jb_str(c, "type"), *status = jb_str(c, "status");
        if (!type || !status || strcmp(status, "True")) continue;
        if (!strcmp(type, "Complete")) {
            j->complete = 1;
        } else if (!strcmp(type, "Failed")) {
            j->failed_cond = 1;
            if (!j->ended) j->ended = jb_time(c, "lastTransitionTime");
            const char *m = jb_str(c, "message");
            if (!m) m = jb_str(c, "reason");
            free(j->message);
            j->message = xstrdup(m);
        }
    }
    return j;
}

void kc_job_free(kc_job *j)
{
    if (!j) return;
    free(j->name);
    free(j->ns);
    free(j->repo_label);
    free(j->message);
    free(j);
}

void *kc_job_decode_any(const cJSON *obj)
{
    return kc_job_decode(obj);
}

void kc_job_release(void *j)
{
    kc_job_free(j);
}

char *kc_job_repo_label(const char *name, char *buf, size_t n)
{
    if (!n) return buf;
    if (!name) name = "";
    if (strlen(name) <= 63) {
        snprintf(buf, n, "%s", name);
        return buf;
    }
    /* Velero's ReturnNameOrHash: SHA3-224, hex (OpenSSL's, not hand-written) */
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    buf[0] = 0;
    if (!EVP_Digest(name, strlen(name), md, &len, EVP_sha3_224(), NULL)) return buf;
    size_t k = 0;
    for (unsigned int i = 0; i < len && k + 3 <= n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%02x", md[i]);
    return buf;
}
