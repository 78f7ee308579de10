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
