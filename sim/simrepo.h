/* simrepo.h: the sim's BackupRepositories (velero.io/v1), built from a scenario's
 * `repositories:` as Velero's repository controller leaves them. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

#include "scenario.h"

/* Go's time.Duration.String() of s seconds ("1h0m0s", "168h0m0s", "30m0s", "45s") into buf. */
char *simrepo_go_duration(double s, char *buf, size_t n);
/* The BackupRepository of r in namespace ns, its times offsets from epoch (unix seconds): a new
 * object without managedFields. */
cJSON *simrepo_object(const scn_repo *r, const char *ns, double epoch);
/* The name Velero gives a maintenance job started at t (unix seconds): GenerateJobName,
 * "<repo>-maintain-job-<unix ms>", "repo-maintain-job-<ms>" when that is over 63 characters. */
char *simrepo_job_name(const scn_repo *r, const scn_repo_job *j, double t, char *buf, size_t n);
/* The batch/v1 Job of job j of repository r (named name), its times offsets from epoch. */
cJSON *simrepo_job(const scn_repo *r, const scn_repo_job *j, const char *name, const char *ns,
                   double epoch);
/* Its pod (named pod, labelled job-name=<name>): Succeeded, Failed or Running (j->result; a
 * Running job's end is its result with j->ends, simctl's step_jobs). */
cJSON *simrepo_job_pod(const scn_repo *r, const scn_repo_job *j, const char *name, const char *pod,
                       const char *ns, double epoch);
