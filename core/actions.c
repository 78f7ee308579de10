/* actions.c: the requests of veltop's actions, as the velero CLI makes them (actions.h), who may
 * act, and the command to copy for an object. */
#include "actions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "kubeclient/util.h"

/* ---- objects ------------------------------------------------------------------------------ */

static int act_seg(const char **p, char *out, size_t n)
{
    const char *s = *p, *e = strchr(s, '/');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (!len || len >= n) return -1;
    memcpy(out, s, len);
    out[len] = 0;
    *p = e ? e + 1 : s + len;
    return 0;
}

int act_obj_parse(const char *path, act_obj *o)
{
    memset(o, 0, sizeof *o);
    if (!path) return -1;
    const char *p;
    if (!strncmp(path, "/apis/", 6)) {
        p = path + 6;
        if (act_seg(&p, o->group, sizeof o->group)) return -1;
    } else if (!strncmp(path, "/api/", 5)) {
        p = path + 5;
    } else {
        return -1;
    }
    char lit[16];
    if (act_seg(&p, o->version, sizeof o->version) || act_seg(&p, lit, sizeof lit) ||
        strcmp(lit, "namespaces") || act_seg(&p, o->ns, sizeof o->ns) ||
        act_seg(&p, o->plural, sizeof o->plural) || act_seg(&p, o->name, sizeof o->name) || *p)
        return -1;
    return 0;
}

void act_obj_of_kind(vl_kind k, const char *ns, const char *name, act_obj *o)
{
    static const char *plural[] = {
        [VL_BACKUP] = "backups",
        [VL_RESTORE] = "restores",
        [VL_PVB] = "podvolumebackups",
        [VL_PVR] = "podvolumerestores",
        [VL_DU] = "datauploads",
        [VL_DD] = "datadownloads",
        [VL_DOWNLOAD_REQUEST] = "downloadrequests",
        [VL_SCHEDULE] = "schedules",
        [VL_BSL] = "backupstoragelocations",
    };
    memset(o, 0, sizeof *o);
    snprintf(o->group, sizeof o->group, "velero.io");
    snprintf(o->version, sizeof o->version, "%s", k == VL_DU || k == VL_DD ? "v2alpha1" : "v1");
    snprintf(o->ns, sizeof o->ns, "%s", ns ? ns : "");
    snprintf(o->plural, sizeof o->plural, "%s", plural[k]);
    snprintf(o->name, sizeof o->name, "%s", name ? name : "");
}

void act_obj_path(const act_obj *o, char *buf, size_t n)
{
    if (o->group[0])
        snprintf(buf, n, "/apis/%s/%s/namespaces/%s/%s/%s", o->group, o->version, o->ns, o->plural,
                 o->name);
    else
        snprintf(buf, n, "/api/%s/namespaces/%s/%s/%s", o->version, o->ns, o->plural, o->name);
}

static const struct act_kindname {
    const char *plural, *kind, *velero; /* velero: the CLI's noun, NULL: kubectl only */
} act_kinds[] = {
    {"backups", "Backup", "backup"},
    {"restores", "Restore", "restore"},
    {"schedules", "Schedule", "schedule"},
    {"backupstoragelocations", "BackupStorageLocation", "backup-location"},
    {"volumesnapshotlocations", "VolumeSnapshotLocation", "snapshot-location"},
    {"backuprepositories", "BackupRepository", "repo"},
    {"podvolumebackups", "PodVolumeBackup", NULL},
    {"podvolumerestores", "PodVolumeRestore", NULL},
    {"datauploads", "DataUpload", NULL},
    {"datadownloads", "DataDownload", NULL},
    {"deletebackuprequests", "DeleteBackupRequest", NULL},
    {"downloadrequests", "DownloadRequest", NULL},
    {"pods", "Pod", NULL},
    {"daemonsets", "DaemonSet", NULL},
};

static const struct act_kindname *act_kind_of(const act_obj *o)
{
    for (size_t i = 0; i < sizeof act_kinds / sizeof act_kinds[0]; i++)
        if (!strcmp(o->plural, act_kinds[i].plural)) return &act_kinds[i];
    return NULL;
}

const char *act_obj_kind(const act_obj *o)
{
    const struct act_kindname *k = act_kind_of(o);
    return k ? k->kind : o->plural;
}

/* ---- who may act -------------------------------------------------------------------------- */

struct act_policy {
    int allow_all;
    char *file;
    char **contexts; /* those with actions: true */
    size_t n;
};

static const char *act_scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* YAML 1.1's booleans as go-yaml (k9s' config reader) takes them */
static int act_bool(const char *s, int *out)
{
    static const char *yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    for (size_t i = 0; s && i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcmp(s, yes[i])) return *out = 1, 0;
        if (!strcmp(s, no[i])) return *out = 0, 0;
    }
    return -1;
}

static int act_policy_parse(act_policy *p, const char *text, size_t len, char *err, size_t errn)
{
    yaml_parser_t ps;
    yaml_document_t d;
    yaml_parser_initialize(&ps);
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    if (!yaml_parser_load(&ps, &d)) {
        snprintf(err, errn, "%s: line %zu: %s", p->file, ps.problem_mark.line + 1,
                 ps.problem ? ps.problem : "not YAML");
        yaml_parser_delete(&ps);
        return -1;
    }
    int rc = 0;
    yaml_node_t *root = yaml_document_get_root_node(&d);
    if (root && root->type != YAML_MAPPING_NODE) {
        snprintf(err, errn, "%s: line %zu: expected a mapping (contexts: NAME: actions: true)",
                 p->file, root->start_mark.line + 1);
        rc = -1;
    }
    for (yaml_node_pair_t *pr = root && !rc ? root->data.mapping.pairs.start : NULL;
         pr && pr < root->data.mapping.pairs.top && !rc; pr++) {
        yaml_node_t *kn = yaml_document_get_node(&d, pr->key);
        yaml_node_t *v = yaml_document_get_node(&d, pr->value);
        const char *k = act_scalar(kn);
        if (!k || strcmp(k, "contexts")) {
            /* other keys are other parts of veltop's configuration, not actions' */
            continue;
        }
        if (v->type == YAML_SCALAR_NODE && !*act_scalar(v)) continue; /* contexts: (empty) */
        if (v->type != YAML_MAPPING_NODE) {
            snprintf(err, errn, "%s: line %zu: contexts: expected a mapping of context names",
                     p->file, v->start_mark.line + 1);
            rc = -1;
            break;
        }
        for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
             q++) {
            const char *ctx = act_scalar(yaml_document_get_node(&d, q->key));
            yaml_node_t *cv = yaml_document_get_node(&d, q->value);
            if (!ctx || !cv || cv->type != YAML_MAPPING_NODE) {
                snprintf(err, errn, "%s: line %zu: contexts.%s: expected a mapping (actions: true)",
                         p->file, cv ? cv->start_mark.line + 1 : 0, ctx ? ctx : "?");
                rc = -1;
                break;
            }
            for (yaml_node_pair_t *r = cv->data.mapping.pairs.start; r < cv->data.mapping.pairs.top;
                 r++) {
                const char *ck = act_scalar(yaml_document_get_node(&d, r->key));
                yaml_node_t *bn = yaml_document_get_node(&d, r->value);
                int on;
                if (!ck || strcmp(ck, "actions")) continue; /* other settings of a context */
                if (act_bool(act_scalar(bn), &on)) {
                    snprintf(err, errn, "%s: line %zu: contexts.%s.actions: expected true or false",
                             p->file, bn->start_mark.line + 1, ctx);
                    rc = -1;
                    break;
                }
                if (on) {
                    p->contexts = xrealloc(p->contexts, (p->n + 1) * sizeof *p->contexts);
                    p->contexts[p->n++] = xstrdup(ctx);
                }
            }
            if (rc) break;
        }
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&ps);
    return rc;
}

act_policy *act_policy_load(const char *path, int allow_all, char *err, size_t errn)
{
    act_policy *p = xcalloc(1, sizeof *p);
    p->allow_all = allow_all;
    int given = path != NULL;
    if (given) {
        p->file = xstrdup(path);
    } else {
        const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        if (x && *x == '/')
            p->file = xasprintf("%s/veltop/config.yaml", x);
        else if (home && *home)
            p->file = xasprintf("%s/.config/veltop/config.yaml", home);
        else
            return p; /* nowhere to look: no file */
    }
    size_t len;
    errno = 0;
    char *text = kc_read_file(p->file, 1 << 20, &len);
    if (!text) {
        int e = errno;
        if (!given && e == ENOENT) return p;
        char why[200];
        snprintf(err, errn, "%s: %s", p->file,
                 kc_read_file_strerror(e, 1 << 20, "a config file", why, sizeof why));
        act_policy_free(p);
        return NULL;
    }
    int rc = act_policy_parse(p, text, len, err, errn);
    free(text);
    if (rc) {
        act_policy_free(p);
        return NULL;
    }
    return p;
}

void act_policy_free(act_policy *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) free(p->contexts[i]);
    free(p->contexts);
    free(p->file);
    free(p);
}

int act_policy_allows(const act_policy *p, const char *context)
{
    if (!p) return 0;
    if (p->allow_all) return 1;
    for (size_t i = 0; context && i < p->n; i++)
        if (!strcmp(p->contexts[i], context)) return 1;
    return 0;
}

const char *act_policy_file(const act_policy *p)
{
    return p && p->file ? p->file : "~/.config/veltop/config.yaml";
}

/* ---- the actions -------------------------------------------------------------------------- */

void act_req_clear(act_req *r)
{
    free(r->path);
    free(r->body);
    free(r->summary);
    memset(r, 0, sizeof *r);
}

static char *act_json(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    char *out = xstrdup(s);
    cJSON_free(s);
    cJSON_Delete(o);
    return out;
}

static char *act_coll_path(const char *ns, const char *plural)
{
    return xasprintf("/apis/velero.io/v1/namespaces/%s/%s", ns, plural);
}

void act_backup_name(const char *schedule, double now, char *out, size_t n)
{
    time_t t = (time_t)now;
    struct tm tm;
    char stamp[32];
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm); /* Go's "20060102150405" */
    snprintf(out, n, "%s-%s", schedule, stamp);
}

void act_backup_now_preview(const act_obj *schedule, const char *name, act_req *out)
{
    memset(out, 0, sizeof *out);
    out->method = "POST";
    out->path = act_coll_path(schedule->ns, "backups");
    out->content_type = "application/json";
    out->summary = xasprintf("Backup %s: spec from schedule %s's spec.template, label "
                             "velero.io/schedule-name=%s",
                             name, schedule->name, schedule->name);
}

static const cJSON *act_get(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

int act_backup_now(const cJSON *schedule, const char *name, act_req *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    const char *sname = cJSON_GetStringValue(act_get(schedule, "metadata", "name"));
    const char *ns = cJSON_GetStringValue(act_get(schedule, "metadata", "namespace"));
    const char *uid = cJSON_GetStringValue(act_get(schedule, "metadata", "uid"));
    const cJSON *spec = act_get(schedule, "spec", NULL);
    const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(spec, "template");
    if (!sname || !ns || !cJSON_IsObject(spec)) {
        snprintf(err, n,
                 "the schedule read from the server has no metadata.name, namespace or "
                 "spec");
        return -1;
    }
    const cJSON *tmd = cJSON_GetObjectItemCaseSensitive(tmpl, "metadata");
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(tmd, "labels");
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(tmd, "annotations");
    /* BackupBuilder.FromSchedule: the template's labels when set (not nil), else the schedule's */
    const cJSON *labels = tl && !cJSON_IsNull(tl) ? tl : act_get(schedule, "metadata", "labels");
    const cJSON *annots =
        ta && !cJSON_IsNull(ta) ? ta : act_get(schedule, "metadata", "annotations");

    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(b, "kind", "Backup");
    cJSON *md = cJSON_AddObjectToObject(b, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    cJSON *l = cJSON_IsObject(labels) ? cJSON_Duplicate(labels, 1) : cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(l, "velero.io/schedule-name");
    cJSON_AddStringToObject(l, "velero.io/schedule-name", sname);
    cJSON_AddItemToObject(md, "labels", l);
    if (cJSON_IsObject(annots) && cJSON_GetArraySize(annots))
        cJSON_AddItemToObject(md, "annotations", cJSON_Duplicate(annots, 1));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "useOwnerReferencesInBackup"))) {
        cJSON *refs = cJSON_AddArrayToObject(md, "ownerReferences");
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "apiVersion", "velero.io/v1");
        cJSON_AddStringToObject(r, "kind", "Schedule");
        cJSON_AddStringToObject(r, "name", sname);
        cJSON_AddStringToObject(r, "uid", uid ? uid : "");
        cJSON_AddTrueToObject(r, "controller");
        cJSON_AddItemToArray(refs, r);
    }
    cJSON *bs = cJSON_IsObject(tmpl) ? cJSON_Duplicate(tmpl, 1) : cJSON_CreateObject();
    cJSON *rp = cJSON_GetObjectItemCaseSensitive(bs, "resourcePolicy");
    if (cJSON_IsObject(rp)) { /* builder.ResourcePolicies(name): kind "configmap" */
        cJSON_DeleteItemFromObjectCaseSensitive(rp, "kind");
        cJSON_AddStringToObject(rp, "kind", "configmap");
    }
    cJSON_AddItemToObject(b, "spec", bs);
    cJSON_AddObjectToObject(b, "status");

    out->method = "POST";
    out->path = act_coll_path(ns, "backups");
    out->body = act_json(b);
    out->content_type = "application/json";
    out->summary = xasprintf("Backup %s from schedule %s's spec.template, label "
                             "velero.io/schedule-name=%s",
                             name, sname, sname);
    return 0;
}

static void act_merge_patch(const act_obj *o, const char *body, act_req *out)
{
    char path[1024];
    memset(out, 0, sizeof *out);
    act_obj_path(o, path, sizeof path);
    out->method = "PATCH";
    out->path = xstrdup(path);
    out->body = xstrdup(body);
    out->content_type = "application/merge-patch+json";
    out->summary = xasprintf("merge patch %s", body);
}

void act_pause(const act_obj *schedule, int paused, act_req *out)
{
    act_merge_patch(schedule,
                    paused ? "{\"spec\":{\"paused\":true}}" : "{\"spec\":{\"paused\":false}}", out);
}

/* "v1.17.0", "1.17", "v1.18.1-rc.1" -> 1 when >= major.minor; -1 when not a version */
static int act_version_at_least(const char *v, int major, int minor)
{
    int a, b;
    if (!v) return -1;
    if (*v == 'v') v++;
    if (sscanf(v, "%d.%d", &a, &b) != 2) return -1;
    return a > major || (a == major && b >= minor);
}

int act_cancel(const act_obj *vol, const char *velero_version, act_req *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    int pod_volume =
        !strcmp(vol->plural, "podvolumebackups") || !strcmp(vol->plural, "podvolumerestores");
    if (!pod_volume && strcmp(vol->plural, "datauploads") && strcmp(vol->plural, "datadownloads")) {
        snprintf(err, n,
                 "only a volume transfer (DataUpload, DataDownload, PodVolumeBackup, "
                 "PodVolumeRestore) can be canceled");
        return -1;
    }
    if (pod_volume) {
        int ok = act_version_at_least(velero_version, 1, 17);
        if (ok < 0) {
            snprintf(err, n,
                     "not sent: canceling a %s needs Velero 1.17 or later, and this server's "
                     "version is unknown (%s)",
                     act_obj_kind(vol),
                     velero_version ? velero_version : "the Velero server pod is not seen");
            return -1;
        }
        if (!ok) {
            snprintf(err, n,
                     "not sent: Velero %s cannot cancel a %s (spec.cancel is honoured from 1.17 "
                     "on)",
                     velero_version, act_obj_kind(vol));
            return -1;
        }
    }
    act_merge_patch(vol, "{\"spec\":{\"cancel\":true}}", out);
    return 0;
}

void act_delete_backup(const char *ns, const char *backup, const char *uid, act_req *out)
{
    char lab[VL_LABEL_MAX + 1];
    memset(out, 0, sizeof *out);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(d, "kind", "DeleteBackupRequest");
    cJSON *md = cJSON_AddObjectToObject(d, "metadata");
    char *gen = xasprintf("%s-", backup);
    cJSON_AddStringToObject(md, "generateName", gen);
    free(gen);
    cJSON_AddStringToObject(md, "namespace", ns);
    cJSON *l = cJSON_AddObjectToObject(md, "labels");
    const char *valid = vl_valid_label(backup, lab);
    cJSON_AddStringToObject(l, "velero.io/backup-name", valid);
    cJSON_AddStringToObject(l, "velero.io/backup-uid", uid ? uid : "");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "spec"), "backupName", backup);
    cJSON_AddObjectToObject(d, "status");
    out->method = "POST";
    out->path = act_coll_path(ns, "deletebackuprequests");
    out->body = act_json(d);
    out->content_type = "application/json";
    out->summary = xasprintf("DeleteBackupRequest %s-*: spec.backupName=%s, labels "
                             "velero.io/backup-name=%s velero.io/backup-uid=%s",
                             backup, backup, valid, uid && *uid ? uid : "(unknown)");
}

void act_answer(act_kind k, const act_obj *o, const char *created, long status,
                const char *server_msg, const char *user, char *out, size_t n)
{
    const char *msg = server_msg && *server_msg ? server_msg : "no message";
    const char *kind = act_obj_kind(o);
    if (status >= 200 && status < 300) {
        switch (k) {
        case ACT_BACKUP_NOW:
            snprintf(out, n, "backup %s created from schedule %s", created ? created : "?",
                     o->name);
            break;
        case ACT_PAUSE:
            snprintf(out, n, "schedule %s paused", o->name);
            break;
        case ACT_UNPAUSE:
            snprintf(out, n, "schedule %s unpaused", o->name);
            break;
        case ACT_CANCEL:
            snprintf(out, n, "%s %s: cancel requested (spec.cancel: true)", kind, o->name);
            break;
        case ACT_DELETE_BACKUP:
            snprintf(out, n, "deletion of backup %s requested (DeleteBackupRequest %s)", o->name,
                     created ? created : "?");
            break;
        }
        return;
    }
    if (status == 403) {
        /* who the server took us for: kube-apiserver's Forbidden names the user ('User "alice"
         * cannot patch resource ...'), which says more than the kubeconfig's entry name */
        char who[256] = "";
        const char *u = strstr(msg, "User \""), *e = u ? strchr(u + 6, '"') : NULL;
        if (e && (size_t)(e - (u + 6)) < sizeof who) {
            memcpy(who, u + 6, (size_t)(e - (u + 6)));
            who[e - (u + 6)] = 0;
        }
        snprintf(out, n, "not allowed for user %s: %s",
                 *who            ? who
                 : user && *user ? user
                                 : "(unknown)",
                 msg);
    } else if (status == 404)
        snprintf(out, n, "not found (404): %s", msg);
    else if (status == 409)
        snprintf(out, n, "conflict (409): %s", msg);
    else if (status)
        snprintf(out, n, "failed (%ld): %s", status, msg);
    else
        snprintf(out, n, "failed: %s", msg);
}

/* ---- copy the command --------------------------------------------------------------------- */

char *act_shell_quote(const char *s)
{
    int plain = s && *s;
    for (const char *p = s; plain && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("@%+=:,./_-", *p)))
            plain = 0;
    if (plain) return xstrdup(s);
    kc_buf b = {0};
    kc_buf_append(&b, "'", 1);
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '\'')
            kc_buf_append(&b, "'\\''", 4);
        else
            kc_buf_append(&b, p, 1);
    }
    kc_buf_append(&b, "'", 1);
    char *r = xstrdup(kc_buf_cstr(&b));
    kc_buf_free(&b);
    return r;
}

char *act_copy_command(const act_obj *o, const char *context)
{
    const struct act_kindname *k = act_kind_of(o);
    char *name = act_shell_quote(o->name), *ns = act_shell_quote(o->ns);
    char *ctx = act_shell_quote(context ? context : "");
    char *out;
    if (k && k->velero) {
        int describe = !strcmp(k->velero, "backup") || !strcmp(k->velero, "restore");
        int sched = !strcmp(k->velero, "schedule");
        out = xasprintf("velero %s %s %s%s -n %s --kubecontext %s", k->velero,
                        describe || sched ? "describe" : "get", name, describe ? " --details" : "",
                        ns, ctx);
    } else {
        char res[160];
        if (o->group[0])
            snprintf(res, sizeof res, "%s.%s", o->plural, o->group);
        else
            snprintf(res, sizeof res, "%s", o->plural);
        char *r = act_shell_quote(res);
        out = xasprintf("kubectl get %s %s -n %s -o yaml --context %s", r, name, ns, ctx);
        free(r);
    }
    free(name);
    free(ns);
    free(ctx);
    return out;
}
