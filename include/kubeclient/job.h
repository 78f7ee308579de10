/* job.h: batch/v1 Jobs decoded for repository maintenance: Velero runs each maintenance of a
 * BackupRepository as a Job labelled velero.io/repo-name=<the repository's name, or the hex
 * SHA3-224 of it when longer than 63 characters> (pkg/repository/maintenance/maintenance.go,
 * pkg/label ReturnNameOrHash); its pod carries job-name=<job>. Missing fields are 0/NULL. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

#define KC_JOB_REPO_LABEL "velero.io/repo-name"

typedef struct kc_job {
    char *name, *ns;
    char *repo_label;              /* metadata.labels["velero.io/repo-name"], NULL absent */
    double created;                /* creationTimestamp */
    double started, ended;         /* status.startTime; completionTime, else the Failed condition's
                                      lastTransitionTime; 0 absent */
    int active, succeeded, failed; /* status counts (Kubernetes omits zeros) */
    int complete, failed_cond;     /* condition Complete / Failed is True */
    char *message;                 /* the Failed condition's message (or reason), NULL none */
} kc_job;

kc_job *kc_job_decode(const cJSON *obj); /* NULL only when obj is not an object */
void kc_job_free(kc_job *j);
/* Store adapters. */
void *kc_job_decode_any(const cJSON *obj);
void kc_job_release(void *j);
/* The label value Velero gives a repository's maintenance jobs: name when at most 63 bytes,
 * else the lowercase hex SHA3-224 of it (57 characters) into buf (at least 64 bytes). */
char *kc_job_repo_label(const char *name, char *buf, size_t n);
