/* velero.c: decodes Velero's resources (runs, volume progress, DownloadRequest, Schedule, BSL)
 * from cJSON into compact C structs that keep only the fields veltop shows. */
#include "kubeclient/velero.h"

#include "kubeclient/caps.h"

#include <math.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"
#include "kubeclient/util.h"

/* ---- string pool ----
 * Tens of thousands of objects repeat the same few strings (namespace, label keys, phase, node,
 * uploader, run name), so repeated strings are shared through a reference-counted pool instead of
 * one malloc each. Unique strings are copied into their object's own blocks (a volume's name
 * into the volume's allocation; a run's name, uid and resourceVersion packed in one block, see
 * vl_pack). The free functions give a string back
 * to the pool only when the pool owns that very pointer, so structs built by hand with xstrdup'd
 * strings are freed correctly. The pool is not thread-safe: decode on the loop's thread. Written
 * by hand because neither cJSON nor libc has a string interner. */
typedef struct vl_pool_ent {
    struct vl_pool_ent *next;
    uint32_t hash, refs;
    char s[];
} vl_pool_ent;

static struct {
    vl_pool_ent **b;
    size_t nb, n;
} vl_pool;

static uint32_t vl_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void vl_pool_grow(void)
{
    size_t nb = vl_pool.nb ? vl_pool.nb * 2 : 256;
    vl_pool_ent **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < vl_pool.nb; i++) {
        vl_pool_ent *e = vl_pool.b[i];
        while (e) {
            vl_pool_ent *next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    free(vl_pool.b);
    vl_pool.b = b;
    vl_pool.nb = nb;
}

static char *vl_intern(const char *s)
{
    if (!s) return NULL;
    uint32_t h = vl_hash(s);
    if (vl_pool.nb) {
        for (vl_pool_ent *e = vl_pool.b[h & (vl_pool.nb - 1)]; e; e = e->next)
            if (e->hash == h && strcmp(e->s, s) == 0) {
                e->refs++;
                return e->s;
            }
    }
    if (vl_pool.n >= vl_pool.nb) vl_pool_grow();
    size_t len = strlen(s);
    vl_pool_ent *e = xmalloc(sizeof *e + len + 1);
    memcpy(e->s, s, len + 1);
    e->hash = h;
    e->refs = 1;
    e->next = vl_pool.b[h & (vl_pool.nb - 1)];
    vl_pool.b[h & (vl_pool.nb - 1)] = e;
    vl_pool.n++;
    return e->s;
}

/* Frees s: gives it back to the pool when the pool owns it, else free(). */
static void vl_str_free(char *s)
{
    if (!s) return;
    if (vl_pool.nb) {
        uint32_t h = vl_hash(s);
        vl_pool_ent **pp = &vl_pool.b[h & (vl_pool.nb - 1)];
        for (; *pp; pp = &(*pp)->next) {
            vl_pool_ent *e = *pp;
            if (e->s != s) continue;
            if (--e->refs == 0) {
                *pp = e->next;
                free(e);
                if (--vl_pool.n == 0) { /* nothing left: no memory held at exit */
                    free(vl_pool.b);
                    vl_pool.b = NULL;
                    vl_pool.nb = 0;
                }
            }
            return;
        }
    }
    free(s);
}

static void vl_strv_free(char **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) vl_str_free(v[i]);
    free(v);
}

/* ---- JSON helpers ---- */

static const cJSON *vl_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *vl_cstr(const cJSON *o, const char *key)
{
    const cJSON *v = vl_get(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static char *vl_shared(const cJSON *o, const char *key)
{
    return vl_intern(vl_cstr(o, key));
}

/* An integer field. cJSON (1.7) keeps a number only as a double, so integers are exact up to
 * 2^53 (8 PiB as a byte count); beyond that the value is the nearest double (9007199254740993
 * reads as 9007199254740992), and values past the int64 range saturate. A number sent as a
 * string is parsed exactly with strtoll. Missing or not a number: 0. */
static int64_t vl_int(const cJSON *o, const char *key)
{
    const cJSON *v = vl_get(o, key);
    if (cJSON_IsString(v) && v->valuestring) {
        char *end;
        long long n = strtoll(v->valuestring, &end, 10);
        return end != v->valuestring && *end == '\0' ? (int64_t)n : 0;
    }
    if (!cJSON_IsNumber(v)) return 0;
    return kc_sat_from_double(v->valuedouble);
}

static int vl_bool(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(vl_get(o, key));
}

/* Two digits at s, or -1. */
static int vl_2digits(const char *s)
{
    return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'
               ? (s[0] - '0') * 10 + (s[1] - '0')
               : -1;
}

/* "YYYY-MM-DDTHH:MM:SSZ", the form Kubernetes writes every timestamp in, read directly: strptime
 * and timegm cost ~5 us a call, and 50 000 volumes carry three timestamps each. The day count is
 * Howard Hinnant's days_from_civil. Fields out of range (second 60, "Feb 29" of 2010, "Apr 31")
 * are refused as kc_parse_time (Go's time.RFC3339 parse) refuses them: the field is then unset.
 * Anything else goes to kc_parse_time. Returns -1 when not this form. */
static int vl_time_fast(const char *s, double *out)
{
    if (strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || s[19] != 'Z')
        return -1;
    int y1 = vl_2digits(s), y2 = vl_2digits(s + 2), m = vl_2digits(s + 5), d = vl_2digits(s + 8);
    int hh = vl_2digits(s + 11), mm = vl_2digits(s + 14), ss = vl_2digits(s + 17);
    if (y1 < 0 || y2 < 0 || m < 1 || m > 12 || d < 1 || d > 31 || hh < 0 || hh > 23 || mm < 0 ||
        mm > 59 || ss < 0 || ss > 59 || d > kc_days_in_month(y1 * 100 + y2, m))
        return -1;
    long y = y1 * 100 + y2 - (m <= 2);
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long days = era * 146097 + doe - 719468;
    *out = (double)days * 86400.0 + hh * 3600.0 + mm * 60.0 + ss;
    return 0;
}

static double vl_time(const cJSON *o, const char *key)
{
    double t;
    const char *s = vl_cstr(o, key);
    if (!s) return 0;
    if (vl_time_fast(s, &t) == 0) return t;
    return kc_parse_time(s, &t) == 0 ? t : 0;
}

/* A []string field; strings shared through the pool. */
static char **vl_strv(const cJSON *o, const char *key, size_t *n)
{
    const cJSON *a = vl_get(o, key);
    *n = 0;
    if (!cJSON_IsArray(a)) return NULL;
    size_t cap = (size_t)cJSON_GetArraySize(a);
    if (cap == 0) return NULL;
    char **v = xcalloc(cap, sizeof *v);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (cJSON_IsString(it)) v[(*n)++] = vl_intern(it->valuestring);
    }
    if (*n == 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* ---- kinds and phases ---- */

const char *vl_kind_name(vl_kind k)
{
    static const char *const names[] = {
        [VL_BACKUP] = "Backup",
        [VL_RESTORE] = "Restore",
        [VL_PVB] = "PodVolumeBackup",
        [VL_PVR] = "PodVolumeRestore",
        [VL_DU] = "DataUpload",
        [VL_DD] = "DataDownload",
        [VL_DOWNLOAD_REQUEST] = "DownloadRequest",
        [VL_SCHEDULE] = "Schedule",
        [VL_BSL] = "BackupStorageLocation",
    };
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

static const struct {
    const char *name;
    vl_phase id;
} vl_phases[] = {
    {"New", VL_PH_NEW},
    {"Queued", VL_PH_QUEUED},
    {"ReadyToStart", VL_PH_READY_TO_START},
    {"FailedValidation", VL_PH_FAILED_VALIDATION},
    {"InProgress", VL_PH_IN_PROGRESS},
    {"WaitingForPluginOperations", VL_PH_WAITING_PLUGIN_OPS},
    {"WaitingForPluginOperationsPartiallyFailed", VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED},
    {"Finalizing", VL_PH_FINALIZING},
    {"FinalizingPartiallyFailed", VL_PH_FINALIZING_PARTIALLY_FAILED},
    {"Completed", VL_PH_COMPLETED},
    {"PartiallyFailed", VL_PH_PARTIALLY_FAILED},
    {"Failed", VL_PH_FAILED},
    {"Deleting", VL_PH_DELETING},
    {"Accepted", VL_PH_ACCEPTED},
    {"Prepared", VL_PH_PREPARED},
    {"Canceling", VL_PH_CANCELING},
    {"Canceled", VL_PH_CANCELED},
};

const char *vl_phase_name(vl_phase p)
{
    for (size_t i = 0; i < sizeof vl_phases / sizeof vl_phases[0]; i++)
        if (vl_phases[i].id == p) return vl_phases[i].name;
    return "Unknown";
}

vl_phase vl_phase_parse(const char *s)
{
    if (!s || !*s) return VL_PH_NEW;
    for (size_t i = 0; i < sizeof vl_phases / sizeof vl_phases[0]; i++)
        if (s[0] == vl_phases[i].name[0] && strcmp(s, vl_phases[i].name) == 0)
            return vl_phases[i].id;
    return VL_PH_UNKNOWN;
}

int vl_phase_terminal(vl_phase p)
{
    switch (p) {
    case VL_PH_COMPLETED:
    case VL_PH_PARTIALLY_FAILED:
    case VL_PH_FAILED:
    case VL_PH_FAILED_VALIDATION:
    case VL_PH_CANCELED:
        return 1;
    default:
        return 0;
    }
}

int vl_phase_active(vl_phase p)
{
    switch (p) {
    case VL_PH_IN_PROGRESS:
    case VL_PH_WAITING_PLUGIN_OPS:
    case VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED:
    case VL_PH_FINALIZING:
    case VL_PH_FINALIZING_PARTIALLY_FAILED:
    case VL_PH_ACCEPTED:
    case VL_PH_PREPARED:
    case VL_PH_CANCELING:
        return 1;
    default:
        return 0;
    }
}

/* Phase text as given, "New" when absent or empty. */
static char *vl_phase_text(const cJSON *status, vl_phase *id)
{
    const char *s = vl_cstr(status, "phase");
    *id = vl_phase_parse(s);
    return vl_intern(s ? s : "New");
}

/* ---- metadata ---- */

/* The strings unique to one object (name, uid, resourceVersion and one more: a
 * download URL) share one allocation, which saves ~50 bytes an object: each field after the
 * first points just past the previous one's NUL in the first one's block. */
enum { VL_NPACK = 4 };

static void vl_pack(const char *const in[VL_NPACK], char **out[VL_NPACK])
{
    size_t len = 0;
    for (int i = 0; i < VL_NPACK; i++)
        if (in[i]) len += strlen(in[i]) + 1;
    char *q = len ? xmalloc(len) : NULL;
    for (int i = 0; i < VL_NPACK; i++) {
        *out[i] = NULL;
        if (!in[i]) continue;
        size_t l = strlen(in[i]) + 1;
        memcpy(q, in[i], l);
        *out[i] = q;
        q += l;
    }
}

/* Frees packed fields; fields of a hand-built struct (separate allocations, which can never sit
 * right after another block's NUL) are freed one by one. */
static void vl_pack_free(char *const f[VL_NPACK])
{
    char *base = NULL, *next = NULL;
    for (int i = 0; i < VL_NPACK; i++) {
        if (!f[i]) continue;
        if (!base) {
            base = f[i];
            next = base + strlen(base) + 1;
        } else if (f[i] == next) {
            next += strlen(next) + 1;
        } else {
            vl_str_free(f[i]);
        }
    }
    vl_str_free(base);
}

static double vl_status_write(const cJSON *mf, char **manager);

static void vl_meta_decode(vl_meta *m, const cJSON *obj, const char *extra, char **extra_out)
{
    const cJSON *md = vl_get(obj, "metadata");
    char *dummy;
    const char *in[VL_NPACK] = {vl_cstr(md, "name"), vl_cstr(md, "uid"),
                                vl_cstr(md, "resourceVersion"), extra};
    char **out[VL_NPACK] = {&m->name, &m->uid, &m->resource_version,
                            extra_out ? extra_out : &dummy};
    vl_pack(in, out);
    m->ns = vl_shared(md, "namespace");
    m->created = vl_time(md, "creationTimestamp");
    m->deleted = vl_time(md, "deletionTimestamp");
    m->status_time = vl_status_write(vl_get(md, "managedFields"), &m->status_manager);
    const cJSON *labels = vl_get(md, "labels");
    int n = cJSON_IsObject(labels) ? cJSON_GetArraySize(labels) : 0;
    if (n <= 0) return;
    /* keys and values in one array: label_values points into label_keys' block */
    m->label_keys = xcalloc((size_t)n * 2, sizeof(char *));
    m->label_values = m->label_keys + n;
    const cJSON *l;
    cJSON_ArrayForEach(l, labels)
    {
        if (!cJSON_IsString(l) || !l->string) continue;
        m->label_keys[m->nlabels] = vl_intern(l->string);
        m->label_values[m->nlabels] = vl_intern(l->valuestring);
        m->nlabels++;
    }
    if (m->nlabels < (size_t)n) { /* skipped non-string values: close the gap */
        memmove(m->label_keys + m->nlabels, m->label_values, m->nlabels * sizeof(char *));
        m->label_values = m->label_keys + m->nlabels;
    }
}

static void vl_meta_free(vl_meta *m, char *extra)
{
    char *const f[VL_NPACK] = {m->name, m->uid, m->resource_version, extra};
    vl_pack_free(f);
    vl_str_free(m->ns);
    vl_str_free(m->status_manager);
    for (size_t i = 0; i < m->nlabels; i++) {
        vl_str_free(m->label_keys[i]);
        vl_str_free(m->label_values[i]);
    }
    /* decoded metas share one block; hand-built ones may have two */
    if (!m->label_keys || m->label_values != m->label_keys + m->nlabels) free(m->label_values);
    free(m->label_keys);
}

const char *vl_label(const vl_meta *m, const char *key)
{
    if (!m || !key) return NULL;
    for (size_t i = 0; i < m->nlabels; i++)
        if (m->label_keys[i] && strcmp(m->label_keys[i], key) == 0) return m->label_values[i];
    return NULL;
}

/* ---- runs ---- */

static void vl_res_progress_decode(vl_run *r, const cJSON *rp)
{
    r->has_resource_progress = 1;
    int n = cJSON_GetArraySize(rp);
    if (n <= 0) return;
    if (n > KC_CAP_RESOURCE_ROWS) n = KC_CAP_RESOURCE_ROWS; /* caps.h: rows past it are counted */
    r->resources = xcalloc((size_t)n, sizeof *r->resources);
    const cJSON *it;
    cJSON_ArrayForEach(it, rp)
    {
        if (!it->string) continue;
        if (r->n_resources == (size_t)n) {
            r->resources_cut++;
            continue;
        }
        vl_res_progress *p = &r->resources[r->n_resources++];
        p->resource = vl_intern(it->string);
        p->processed = vl_int(it, "processed");
        p->total = vl_int(it, "total");
    }
}

vl_run *vl_run_decode(const cJSON *obj, vl_kind hint)
{
    if (!cJSON_IsObject(obj)) return NULL;
    vl_run *r = xcalloc(1, sizeof *r);
    const char *kind = vl_cstr(obj, "kind");
    if (kind && strcmp(kind, "Backup") == 0)
        r->kind = VL_BACKUP;
    else if (kind && strcmp(kind, "Restore") == 0)
        r->kind = VL_RESTORE;
    else
        r->kind = hint == VL_RESTORE ? VL_RESTORE : VL_BACKUP;
    int backup = r->kind == VL_BACKUP;
    vl_meta_decode(&r->meta, obj, NULL, NULL);
    const cJSON *spec = vl_get(obj, "spec"), *st = vl_get(obj, "status");

    vl_phase ph;
    r->phase = vl_phase_text(st, &ph);
    r->phase_id = ph;
    const char *loc = vl_cstr(spec, "storageLocation");
    if (!loc) loc = vl_label(&r->meta, "velero.io/storage-location");
    r->storage_location = vl_intern(loc);
    const char *sched = backup ? NULL : vl_cstr(spec, "scheduleName");
    if (!sched) sched = vl_label(&r->meta, "velero.io/schedule-name");
    r->schedule = vl_intern(sched);
    if (!backup) r->backup_name = vl_shared(spec, "backupName");
    size_t n;
    r->included_ns = vl_strv(spec, "includedNamespaces", &n);
    r->n_included_ns = (uint32_t)n;
    r->excluded_ns = vl_strv(spec, "excludedNamespaces", &n);
    r->n_excluded_ns = (uint32_t)n;
    r->ttl = vl_shared(spec, "ttl");
    r->item_op_timeout = vl_shared(spec, "itemOperationTimeout");

    r->started = vl_time(st, "startTimestamp");
    r->completed = vl_time(st, "completionTimestamp");
    r->expiration = vl_time(st, "expiration");
    const cJSON *prog = vl_get(st, "progress");
    if (cJSON_IsObject(prog)) {
        r->has_progress = 1;
        r->items_total = vl_int(prog, "totalItems");
        const char *done = backup ? "itemsBackedUp" : "itemsRestored";
        r->items_done = vl_get(prog, done)
                            ? vl_int(prog, done)
                            : vl_int(prog, backup ? "itemsRestored" : "itemsBackedUp");
    }
    r->errors = vl_int(st, "errors");
    r->warnings = vl_int(st, "warnings");
    r->failure_reason = vl_shared(st, "failureReason");
    r->validation_errors = vl_strv(st, "validationErrors", &n);
    r->n_validation_errors = (uint32_t)n;
    r->queue_position = vl_int(st, "queuePosition");
    const cJSON *hooks = vl_get(st, "hookStatus");
    r->hooks_attempted = vl_int(hooks, "hooksAttempted");
    r->hooks_failed = vl_int(hooks, "hooksFailed");
    if (backup) {
        r->ops_attempted = vl_int(st, "backupItemOperationsAttempted");
        r->ops_completed = vl_int(st, "backupItemOperationsCompleted");
        r->ops_failed = vl_int(st, "backupItemOperationsFailed");
    } else {
        r->ops_attempted = vl_int(st, "restoreItemOperationsAttempted");
        r->ops_completed = vl_int(st, "restoreItemOperationsCompleted");
        r->ops_failed = vl_int(st, "restoreItemOperationsFailed");
    }
    r->snapshots_attempted = vl_int(st, "volumeSnapshotsAttempted");
    r->snapshots_completed = vl_int(st, "volumeSnapshotsCompleted");
    r->csi_snapshots_attempted = vl_int(st, "csiVolumeSnapshotsAttempted");
    r->csi_snapshots_completed = vl_int(st, "csiVolumeSnapshotsCompleted");
    r->format_version = vl_shared(st, "formatVersion");
    const cJSON *rp = vl_get(st, "resourceProgress");
    if (cJSON_IsObject(rp)) vl_res_progress_decode(r, rp);
    return r;
}

void vl_run_free(vl_run *r)
{
    if (!r) return;
    vl_meta_free(&r->meta, NULL);
    vl_str_free(r->phase);
    vl_str_free(r->storage_location);
    vl_str_free(r->schedule);
    vl_str_free(r->backup_name);
    vl_strv_free(r->included_ns, r->n_included_ns);
    vl_strv_free(r->excluded_ns, r->n_excluded_ns);
    vl_str_free(r->ttl);
    vl_str_free(r->item_op_timeout);
    vl_str_free(r->failure_reason);
    vl_strv_free(r->validation_errors, r->n_validation_errors);
    vl_str_free(r->format_version);
    for (size_t i = 0; i < r->n_resources; i++) vl_str_free(r->resources[i].resource);
    free(r->resources);
    free(r);
}

/* ---- volumes ---- */

/* Fills out[i] with the first member of o named keys[i] (NULL when none), in one pass over o's
 * members: what n cJSON_GetObjectItemCaseSensitive calls give, without n scans of the siblings
 * (50 000 volumes make this the decoder's inner loop). The first byte is compared inline. */
static void vl_pick(const cJSON *o, const char *const *keys, const cJSON **out, int n)
{
    int left = n;
    for (int i = 0; i < n; i++) out[i] = NULL;
    if (!cJSON_IsObject(o)) return;
    for (const cJSON *c = o->child; c && left; c = c->next) {
        const char *k = c->string;
        if (!k) continue;
        for (int i = 0; i < n; i++) {
            if (!out[i] && k[0] == keys[i][0] && strcmp(k, keys[i]) == 0) {
                out[i] = c;
                left--;
                break;
            }
        }
    }
}

/* The text of a string node, NULL when absent, not a string or empty (as vl_cstr). */
static const char *vl_text(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static char *vl_text_shared(const cJSON *v)
{
    return vl_intern(vl_text(v));
}

/* An integer node (as vl_int). */
static int64_t vl_num(const cJSON *v)
{
    if (cJSON_IsString(v) && v->valuestring) {
        char *end;
        long long n = strtoll(v->valuestring, &end, 10);
        return end != v->valuestring && *end == '\0' ? (int64_t)n : 0;
    }
    if (!cJSON_IsNumber(v)) return 0;
    return kc_sat_from_double(v->valuedouble);
}

/* A timestamp node (as vl_time). */
static double vl_ts(const cJSON *v)
{
    double t;
    const char *s = vl_text(v);
    if (!s) return 0;
    if (vl_time_fast(s, &t) == 0) return t;
    return kc_parse_time(s, &t) == 0 ? t : 0;
}

/* The evidence of the last status change in metadata.managedFields (velero.h, vl_meta): the
 * newest time among entries whose fieldsV1 has a top-level f:status, and its manager (interned;
 * NULL with 0). Entries that are not objects, have another fieldsType, no fieldsV1 object or no
 * readable time are skipped. One pass over each entry's members and over fieldsV1's top level:
 * f:status's subtree is never walked. */
static double vl_status_write(const cJSON *mf, char **manager)
{
    *manager = NULL;
    if (!cJSON_IsArray(mf)) return 0;
    static const char *const keys[] = {"manager", "time", "fieldsType", "fieldsV1"};
    double best = 0;
    const char *who = NULL;
    for (const cJSON *e = mf->child; e; e = e->next) {
        const cJSON *f[4];
        vl_pick(e, keys, f, 4);
        if (!cJSON_IsObject(f[3])) continue;
        if (f[2] && !(cJSON_IsString(f[2]) && strcmp(f[2]->valuestring, "FieldsV1") == 0)) continue;
        int status = 0;
        for (const cJSON *c = f[3]->child; c && !status; c = c->next)
            status = c->string && c->string[0] == 'f' && strcmp(c->string, "f:status") == 0;
        if (!status) continue;
        double t = vl_ts(f[1]);
        if (t > best) {
            best = t;
            who = vl_text(f[0]);
        }
    }
    *manager = vl_intern(who);
    return who || best > 0 ? best : 0;
}

/* A label's value: any string, empty too; NULL when absent or not a string. */
static const char *vl_label_text(const cJSON *v)
{
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

enum { VM_NAME, VM_NS, VM_LABELS, VM_CREATED, VM_MF, VM_N };
static const char *const vl_vm_keys[VM_N] = {"name", "namespace", "labels", "creationTimestamp",
                                             "managedFields"};
enum { VS_NODE, VS_POD, VS_VOLUME, VS_UPLOADER, VS_SRC_NS, VS_SRC_PVC, VS_TARGET, VS_DM, VS_N };
static const char *const vl_vs_keys[VS_N] = {
    "node",      "pod",          "volume",   "uploaderType", "sourceNamespace",
    "sourcePVC", "targetVolume", "datamover"};
enum { VT_PHASE, VT_NODE, VT_PROGRESS, VT_START, VT_DONE, VT_MSG, VT_ACCEPTED, VT_N };
static const char *const vl_vt_keys[VT_N] = {"phase",
                                             "node",
                                             "progress",
                                             "startTimestamp",
                                             "completionTimestamp",
                                             "message",
                                             "acceptedTimestamp"};

vl_volume *vl_volume_decode(const cJSON *obj, vl_kind kind)
{
    if (!cJSON_IsObject(obj)) return NULL;
    static const char *const top_keys[] = {"metadata", "spec", "status"};
    const cJSON *top[3], *md[VM_N], *spec[VS_N], *st[VT_N], *two[2];
    vl_pick(obj, top_keys, top, 3);
    vl_pick(top[0], vl_vm_keys, md, VM_N);
    vl_pick(top[1], vl_vs_keys, spec, VS_N);
    vl_pick(top[2], vl_vt_keys, st, VT_N);

    /* the struct and its name in one block */
    const char *name = vl_text(md[VM_NAME]);
    size_t nl = name ? strlen(name) + 1 : 0;
    vl_volume *v = xcalloc(1, sizeof *v + nl);
    if (name) v->meta.name = memcpy((char *)(v + 1), name, nl);
    v->meta.ns = vl_text_shared(md[VM_NS]);
    v->meta.status_time = vl_status_write(md[VM_MF], &v->meta.status_manager);
    v->kind = kind;

    int restore = kind == VL_PVR || kind == VL_DD;
    static const char *const run_keys[] = {"velero.io/backup-name", "velero.io/restore-name",
                                           "velero.io/backup-uid", "velero.io/restore-uid",
                                           "velero.io/async-operation-id"};
    const cJSON *four[5];
    vl_pick(md[VM_LABELS], run_keys, four, 5);
    if (kind == VL_DU || kind == VL_DD) v->op_hash = vl_op_hash(vl_label_text(four[4]));
    const char *run = vl_label_text(four[restore]);
    if (!run) run = vl_label_text(four[!restore]);
    v->run_name = vl_intern(run);
    /* the uid of the run of the same kind only: a restore's volume names no backup uid */
    const char *uid = vl_label_text(four[2 + restore]);
    v->run_uid_hash = vl_uid_hash(uid);

    const char *node = kind == VL_PVB ? vl_text(spec[VS_NODE]) : vl_text(st[VT_NODE]);
    if (!node) node = kind == VL_PVB ? vl_text(st[VT_NODE]) : vl_text(spec[VS_NODE]);
    v->node = vl_intern(node);

    static const char *const ns_name[] = {"namespace", "name"}, *const ns_pvc[] = {"namespace",
                                                                                   "pvc"};
    if (kind == VL_PVB || kind == VL_PVR) {
        vl_pick(spec[VS_POD], ns_name, two, 2);
        v->pod_ns = vl_text_shared(two[0]);
        v->pod_name = vl_text_shared(two[1]);
        v->volume = vl_text_shared(spec[VS_VOLUME]);
        v->uploader = vl_text_shared(spec[VS_UPLOADER]);
    } else {
        if (kind == VL_DU) {
            v->pod_ns = vl_text_shared(spec[VS_SRC_NS]);
            v->volume = vl_text_shared(spec[VS_SRC_PVC]);
        } else {
            vl_pick(spec[VS_TARGET], ns_pvc, two, 2);
            v->pod_ns = vl_text_shared(two[0]);
            v->volume = vl_text_shared(two[1]);
        }
        const char *dm = vl_text(spec[VS_DM]);
        v->uploader = vl_intern(dm && strcmp(dm, "velero") != 0 ? dm : "data mover");
    }
    const char *phase = vl_text(st[VT_PHASE]);
    v->phase_id = vl_phase_parse(phase);
    v->phase = vl_intern(phase ? phase : "New");
    static const char *const bytes_keys[] = {"totalBytes", "bytesDone"};
    vl_pick(st[VT_PROGRESS], bytes_keys, two, 2);
    v->bytes_total = vl_num(two[0]);
    v->bytes_done = vl_num(two[1]);
    v->started = vl_ts(st[VT_START]);
    v->completed = vl_ts(st[VT_DONE]);
    v->message = vl_text_shared(st[VT_MSG]);
    double created = vl_ts(md[VM_CREATED]), accepted = vl_ts(st[VT_ACCEPTED]);
    v->waiting_since = v->phase_id == VL_PH_NEW ? created
                       : v->phase_id == VL_PH_ACCEPTED || v->phase_id == VL_PH_PREPARED
                           ? (accepted > 0 ? accepted : created)
                           : v->started;
    return v;
}

void vl_volume_free(vl_volume *v)
{
    if (!v) return;
    if (v->meta.name != (char *)(v + 1)) vl_str_free(v->meta.name); /* hand-built */
    vl_str_free(v->meta.ns);
    vl_str_free(v->meta.status_manager);
    vl_str_free(v->run_name);
    vl_str_free(v->node);
    vl_str_free(v->pod_ns);
    vl_str_free(v->pod_name);
    vl_str_free(v->volume);
    vl_str_free(v->uploader);
    vl_str_free(v->phase);
    vl_str_free(v->message);
    free(v);
}

uint32_t vl_uid_hash(const char *uid)
{
    if (!uid || !*uid) return 0;
    uint32_t h = vl_hash(uid);
    return h ? h : 1;
}

unsigned vl_op_hash(const char *op_id)
{
    if (!op_id || !*op_id) return 0;
    uint32_t h = vl_hash(op_id);
    h = (h ^ (h >> 16)) & 0xffffu;
    return h ? h : 1;
}

const char *vl_valid_label(const char *name, char buf[VL_LABEL_MAX + 1])
{
    size_t n = strlen(name);
    if (n <= VL_LABEL_MAX) return name;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_Digest(name, n, md, &mdlen, EVP_sha256(), NULL);
    memcpy(buf, name, VL_LABEL_MAX - 6);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 3; i++) {
        buf[VL_LABEL_MAX - 6 + 2 * i] = hex[md[i] >> 4];
        buf[VL_LABEL_MAX - 5 + 2 * i] = hex[md[i] & 15];
    }
    buf[VL_LABEL_MAX] = '\0';
    return buf;
}

/* ---- DownloadRequest, Schedule, BackupStorageLocation ---- */

vl_download_request *vl_download_request_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    vl_download_request *d = xcalloc(1, sizeof *d);
    const cJSON *target = vl_get(vl_get(obj, "spec"), "target"), *st = vl_get(obj, "status");
    vl_meta_decode(&d->meta, obj, vl_cstr(st, "downloadURL"), &d->download_url);
    d->target_kind = vl_shared(target, "kind");
    d->target_name = vl_shared(target, "name");
    const char *phase = vl_cstr(st, "phase");
    d->phase = vl_intern(phase ? phase : "New");
    d->expiration = vl_time(st, "expiration");
    d->message = vl_shared(st, "message");
    return d;
}

void vl_download_request_free(vl_download_request *d)
{
    if (!d) return;
    vl_meta_free(&d->meta, d->download_url);
    vl_str_free(d->target_kind);
    vl_str_free(d->target_name);
    vl_str_free(d->phase);
    vl_str_free(d->message);
    free(d);
}

vl_schedule *vl_schedule_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    vl_schedule *s = xcalloc(1, sizeof *s);
    vl_meta_decode(&s->meta, obj, NULL, NULL);
    const cJSON *spec = vl_get(obj, "spec"), *st = vl_get(obj, "status");
    s->schedule = vl_shared(spec, "schedule");
    s->paused = vl_bool(spec, "paused");
    const char *phase = vl_cstr(st, "phase");
    s->phase = vl_intern(phase ? phase : "New");
    s->last_backup = vl_time(st, "lastBackup");
    s->last_skipped = vl_time(st, "lastSkipped");
    s->storage_location = vl_shared(vl_get(spec, "template"), "storageLocation");
    return s;
}

void vl_schedule_free(vl_schedule *s)
{
    if (!s) return;
    vl_meta_free(&s->meta, NULL);
    vl_str_free(s->schedule);
    vl_str_free(s->phase);
    vl_str_free(s->storage_location);
    free(s);
}

vl_bsl *vl_bsl_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    vl_bsl *b = xcalloc(1, sizeof *b);
    vl_meta_decode(&b->meta, obj, NULL, NULL);
    const cJSON *spec = vl_get(obj, "spec"), *st = vl_get(obj, "status");
    const cJSON *os = vl_get(spec, "objectStorage");
    b->provider = vl_shared(spec, "provider");
    b->bucket = vl_shared(os, "bucket");
    b->prefix = vl_shared(os, "prefix");
    b->access_mode = vl_shared(spec, "accessMode");
    b->is_default = vl_bool(spec, "default");
    b->phase = vl_shared(st, "phase");
    b->last_validated = vl_time(st, "lastValidationTime");
    b->message = vl_shared(st, "message");
    const char *ca = vl_cstr(os, "caCert"); /* []byte: base64 in JSON */
    if (ca && *ca) b->ca_cert = kc_base64_decode(ca, &b->ca_cert_len);
    return b;
}

void vl_bsl_free(vl_bsl *b)
{
    if (!b) return;
    vl_meta_free(&b->meta, NULL);
    vl_str_free(b->provider);
    vl_str_free(b->bucket);
    vl_str_free(b->prefix);
    vl_str_free(b->access_mode);
    vl_str_free(b->phase);
    vl_str_free(b->message);
    free(b->ca_cert);
    free(b);
}

/* ---- store adapters ---- */

void *vl_decode_backup(const cJSON *obj)
{
    return vl_run_decode(obj, VL_BACKUP);
}
void *vl_decode_restore(const cJSON *obj)
{
    return vl_run_decode(obj, VL_RESTORE);
}
void *vl_decode_pvb(const cJSON *obj)
{
    return vl_volume_decode(obj, VL_PVB);
}
void *vl_decode_pvr(const cJSON *obj)
{
    return vl_volume_decode(obj, VL_PVR);
}
void *vl_decode_du(const cJSON *obj)
{
    return vl_volume_decode(obj, VL_DU);
}
void *vl_decode_dd(const cJSON *obj)
{
    return vl_volume_decode(obj, VL_DD);
}
void *vl_decode_download_request(const cJSON *obj)
{
    return vl_download_request_decode(obj);
}
void *vl_decode_schedule(const cJSON *obj)
{
    return vl_schedule_decode(obj);
}
void *vl_decode_bsl(const cJSON *obj)
{
    return vl_bsl_decode(obj);
}
void vl_release_run(void *p)
{
    vl_run_free(p);
}
void vl_release_volume(void *p)
{
    vl_volume_free(p);
}
void vl_release_download_request(void *p)
{
    vl_download_request_free(p);
}
void vl_release_schedule(void *p)
{
    vl_schedule_free(p);
}
void vl_release_bsl(void *p)
{
    vl_bsl_free(p);
}
