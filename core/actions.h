/* actions.h: what veltop may change in a cluster, each as the velero CLI does it: who may act
 * (--allow-actions, or `actions: true` for a context in veltop's config file), the request of
 * each action (method, path, body), the words for the server's answer, and the command that
 * shows or does the same for an object (the "copy the command" key). No curses, no network. */
#pragma once
#include <stddef.h>

#include <cJSON.h>

#include "kubeclient/velero.h"

/* An object of the cluster by its API path: "/apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME" or
 * "/api/v1/namespaces/NS/PLURAL/NAME" (group ""). */
typedef struct act_obj {
    char group[64], version[16], ns[256], plural[64], name[256];
} act_obj;
/* 0 and o filled when path is such a path, -1 otherwise. */
int act_obj_parse(const char *path, act_obj *o);
/* The object of a decoded kind (runs, volumes, schedules, locations) in namespace ns. */
void act_obj_of_kind(vl_kind k, const char *ns, const char *name, act_obj *o);
/* Its API path (with the name). */
void act_obj_path(const act_obj *o, char *buf, size_t n);
/* "DataUpload" for datauploads, ...; the plural itself for what veltop does not name. */
const char *act_obj_kind(const act_obj *o);

/* ---- who may act -------------------------------------------------------------------------- */

typedef struct act_policy act_policy;
/* Reads the config file at path (NULL: $XDG_CONFIG_HOME/veltop/config.yaml, else
 * ~/.config/veltop/config.yaml; a missing default file is no error):
 *     contexts:
 *       NAME:
 *         actions: true
 * allow_all (--allow-actions): every context may act, whatever the file says. NULL with a
 * message in err (naming the file, the line and the key) when the file cannot be read or holds
 * what veltop does not know. */
act_policy *act_policy_load(const char *path, int allow_all, char *err, size_t errn);
void act_policy_free(act_policy *p);
/* 1 when actions are on for context (NULL policy: never). */
int act_policy_allows(const act_policy *p, const char *context);
/* Where the file is read from (for messages): the path given, or the default one. */
const char *act_policy_file(const act_policy *p);

/* ---- the actions -------------------------------------------------------------------------- */

typedef enum {
    ACT_BACKUP_NOW,    /* velero backup create --from-schedule S */
    ACT_PAUSE,         /* velero schedule pause S */
    ACT_UNPAUSE,       /* velero schedule unpause S */
    ACT_CANCEL,        /* spec.cancel: true on a volume transfer */
    ACT_DELETE_BACKUP, /* velero backup delete B: a DeleteBackupRequest */
} act_kind;

/* One request to the API server. */
typedef struct act_req {
    const char *method;       /* "POST", "PATCH" */
    char *path;               /* API path */
    char *body;               /* JSON text, compact */
    const char *content_type; /* of the body */
    char *summary;            /* one line: what the body is ("Backup daily-2026..., label ...") */
} act_req;
void act_req_clear(act_req *r);

/* The name velero gives a backup made now from schedule (Schedule.TimestampedName):
 * "<schedule>-<YYYYMMDDHHMMSS>" of unix time now, in UTC. */
void act_backup_name(const char *schedule, double now, char *out, size_t n);
/* The Backup `velero backup create --from-schedule` makes from the schedule object (as read from
 * the API server), named name: spec = spec.template; labels = spec.template.metadata.labels when
 * set, else the schedule's, plus velero.io/schedule-name; annotations likewise; an owner
 * reference when spec.useOwnerReferencesInBackup; resourcePolicy's kind "configmap". -1 with
 * err when schedule is not a Schedule. */
int act_backup_now(const cJSON *schedule, const char *name, act_req *out, char *err, size_t n);
/* Before the schedule is read: the request as the dialog shows it (no body yet). */
void act_backup_now_preview(const act_obj *schedule, const char *name, act_req *out);
/* Pause (paused 1) or unpause a schedule: a JSON merge patch of spec.paused alone. */
void act_pause(const act_obj *schedule, int paused, act_req *out);
/* Cancel a volume transfer: a merge patch of spec.cancel: true. DataUploads and DataDownloads
 * always; PodVolumeBackups and PodVolumeRestores only from Velero 1.17 on (velero_version: the
 * server's image tag, "v1.17.0"; NULL unknown): -1 with why in err otherwise, nothing to send. */
int act_cancel(const act_obj *vol, const char *velero_version, act_req *out, char *err, size_t n);
/* Delete a backup as `velero backup delete` does: POST a DeleteBackupRequest named
 * "<backup>-" + a generated suffix, spec.backupName, labels velero.io/backup-name (the name, or
 * its GetValidName form) and velero.io/backup-uid; never a DELETE of the Backup. */
void act_delete_backup(const char *ns, const char *backup, const char *uid, act_req *out);

/* The status line after the server answered: status 2xx done ("backup daily-... created"); 403
 * "not allowed for user USER: MESSAGE", USER as the server's message names it (User "alice"),
 * else user; 404 and 409 said as such; else the message. server_msg is the server's (or the
 * transport's) message, user the kubeconfig's user of the context (NULL unknown). */
void act_answer(act_kind k, const act_obj *o, const char *created, long status,
                const char *server_msg, const char *user, char *out, size_t n);

/* ---- copy the command --------------------------------------------------------------------- */

/* s quoted for a POSIX shell: as is when it holds only [A-Za-z0-9@%+=:,./_-] (and is not
 * empty), else in single quotes with each ' as '\''. Returns malloc'd text. */
char *act_shell_quote(const char *s);
/* The command that shows the object, with its context and namespace: `velero backup describe
 * NAME --details` (restores likewise), `velero schedule describe`, `velero backup-location get`,
 * `velero repo get`, `velero snapshot-location get`; `kubectl get PLURAL.velero.io NAME -o yaml`
 * for the volume kinds and other objects. velero takes the context as --kubecontext, kubectl as
 * --context. Returns malloc'd text. */
char *act_copy_command(const act_obj *o, const char *context);
