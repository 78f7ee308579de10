/* backuprepo.h: velero.io/v1 BackupRepositories (`repo`), decoded to what repository maintenance
 * is judged on: phase and message, maintenanceFrequency, lastMaintenanceTime and the
 * recentMaintenance results (pkg/apis/velero/v1/backup_repository_types.go). */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

#define KC_REPO_RECENT_MAX 32 /* recentMaintenance entries kept (Velero keeps 25) */

/* One status.recentMaintenance entry. */
typedef struct kc_repo_maint {
    int failed;                /* result "Failed" (else "Succeeded", or another word: result) */
    char *result, *message;    /* as given (NULL when absent) */
    double started, completed; /* startTimestamp, completeTimestamp; 0 absent */
} kc_repo_maint;

typedef struct kc_repo {
    char *name, *ns;
    char *volume_ns, *bsl, *type; /* spec volumeNamespace, backupStorageLocation, repositoryType */
    char *frequency;         /* spec.maintenanceFrequency as given (a Go duration), NULL none */
    char *phase, *message;   /* status (phase NULL: not set yet, Velero's "New") */
    double last_maintenance; /* status.lastMaintenanceTime (last success); 0 absent */
    double created;
    kc_repo_maint *recent; /* oldest first, as Velero appends them; the newest KC_REPO_RECENT_MAX */
    size_t n_recent;
} kc_repo;

kc_repo *kc_repo_decode(const cJSON *obj); /* NULL only when obj is not an object */
void kc_repo_free(kc_repo *r);
/* Store adapters. */
void *kc_repo_decode_any(const cJSON *obj);
void kc_repo_release(void *r);
