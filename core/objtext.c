/* objtext.c: describe's YAML and summary text of an API object (objtext.h). */
#include "objtext.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kubeclient/velero.h"

static int ot_write(void *arg, unsigned char *buf, size_t n)
{
    kc_buf_append(arg, (const char *)buf, n);
    return 1;
}

/* A plain scalar that a YAML reader would take for something else than this string (a number,
 * a bool, null, a timestamp, or empty): kubectl's go-yaml double-quotes those. */
static int ot_needs_quotes(const char *s)
{
    static const char *const words[] = {
        "true", "false", "yes",  "no",   "on",    "off",  "null",  "True", "False", "Yes",  "No",
        "On",   "Off",   "Null", "TRUE", "FALSE", "YES",  "NO",    "ON",   "OFF",   "NULL", "~",
        "y",    "n",     "Y",    "N",    ".inf",  ".nan", "-.inf", ".Inf", ".NaN"};
    if (!*s) return 1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(s, words[i])) return 1;
    char *end;
    strtod(s, &end);
    if (*end == 0) return 1; /* 12, 1.5, 1e3, 0x1f */
    /* a timestamp (go-yaml resolves 2006-1-2 and 2006-1-2T15:04:05Z...) */
    if (strlen(s) >= 8 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' &&
        s[2] <= '9' && s[3] >= '0' && s[3] <= '9' && s[4] == '-' && s[5] >= '0' && s[5] <= '9')
        return 1;
    return 0;
}

static int ot_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

static int ot_scalar(yaml_emitter_t *e, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                      style))
        return -1;
    return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int ot_node(yaml_emitter_t *e, const cJSON *v)
{
    yaml_event_t ev;
    char num[64];
    if (cJSON_IsObject(v)) {
        /* kubectl: an empty map is {} */
        yaml_mapping_style_t style =
            cJSON_GetArraySize(v) ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE;
        if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, style) ||
            !yaml_emitter_emit(e, &ev))
            return -1;
        int n = cJSON_GetArraySize(v), k = 0;
        const cJSON **kids = xcalloc(n ? (size_t)n : 1, sizeof *kids);
        const cJSON *c;
        cJSON_ArrayForEach(c, v) kids[k++] = c;
        if (k > 1) qsort(kids, (size_t)k, sizeof *kids, ot_cmp); /* as kubectl: keys sorted */
        int rc = 0;
        for (int i = 0; i < k && !rc; i++) {
            const char *key = kids[i]->string ? kids[i]->string : "";
            rc = ot_scalar(e, key,
                           ot_needs_quotes(key) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                                : YAML_ANY_SCALAR_STYLE);
            if (!rc) rc = ot_node(e, kids[i]);
        }
        free(kids);
        if (rc) return rc;
        yaml_mapping_end_event_initialize(&ev);
        return yaml_emitter_emit(e, &ev) ? 0 : -1;
    }
    if (cJSON_IsArray(v)) {
        /* kubectl: an empty list is [] */
        yaml_sequence_style_t style =
            cJSON_GetArraySize(v) ? YAML_BLOCK_SEQUENCE_STYLE : YAML_FLOW_SEQUENCE_STYLE;
        if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, style) ||
            !yaml_emitter_emit(e, &ev))
            return -1;
        const cJSON *c;
        cJSON_ArrayForEach(c, v) if (ot_node(e, c)) return -1;
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emitter_emit(e, &ev) ? 0 : -1;
    }
    if (cJSON_IsString(v)) /* go-yaml, as kubectl: a text of several lines as a literal block */
        return ot_scalar(e, v->valuestring,
                         ot_needs_quotes(v->valuestring) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                         : strchr(v->valuestring, '\n')  ? YAML_LITERAL_SCALAR_STYLE
                                                         : YAML_ANY_SCALAR_STYLE);
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) < 1e15)
            snprintf(num, sizeof num, "%.0f", d);
        else
            snprintf(num, sizeof num, "%.17g", d);
        return ot_scalar(e, num, YAML_PLAIN_SCALAR_STYLE);
    }
    if (cJSON_IsBool(v))
        return ot_scalar(e, cJSON_IsTrue(v) ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
    return ot_scalar(e, "null", YAML_PLAIN_SCALAR_STYLE);
}

int objtext_yaml(const cJSON *obj, kc_buf *out)
{
    yaml_emitter_t e;
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&e)) return -1;
    yaml_emitter_set_output(&e, ot_write, out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1); /* no folding of long strings (kubectl does not) */
    yaml_emitter_set_indent(&e, 2);
    int rc = -1;
    if (yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&e, &ev) &&
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
        yaml_emitter_emit(&e, &ev) && !ot_node(&e, obj) &&
        yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&e, &ev) &&
        yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev))
        rc = 0;
    yaml_emitter_delete(&e);
    return rc;
}

/* ---- the describe summary ---- */

static const cJSON *ot_get(const cJSON *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        path += n + (path[n] == '.');
    }
    return o;
}

static const char *ot_str(const cJSON *o, const char *path, const char *dflt)
{
    const cJSON *v = ot_get(o, path);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : dflt;
}

static void ot_add(kc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ot_add(kc_buf *b, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) kc_buf_append(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* "a, b" of a string array, or dflt when empty/absent */
static void ot_list(kc_buf *b, const cJSON *a, const char *dflt)
{
    int n = 0;
    const cJSON *c;
    const cJSON *arr = cJSON_IsArray(a) ? a : NULL;
    cJSON_ArrayForEach(c, arr)
    {
        if (!cJSON_IsString(c)) continue;
        ot_add(b, "%s%s", n++ ? ", " : "", c->valuestring);
    }
    if (!n) ot_add(b, "%s", dflt);
    kc_buf_append(b, "\n", 1);
}

static void ot_map(kc_buf *b, const char *title, const cJSON *m)
{
    int n = 0;
    const cJSON *c;
    ot_add(b, "%-14s", title);
    const cJSON *map = cJSON_IsObject(m) ? m : NULL;
    cJSON_ArrayForEach(c, map)
    {
        const char *v = cJSON_IsString(c) ? c->valuestring : "";
        ot_add(b, "%s%s=%s\n", n++ ? "              " : "", c->string, v);
    }
    if (!n) ot_add(b, "<none>\n");
}

static long long ot_int(const cJSON *o, const char *path)
{
    const cJSON *v = ot_get(o, path);
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : 0;
}

/* A kind other than a run: kubectl describe's layout (keys and nested blocks, indented). */
static void ot_fields(kc_buf *b, const cJSON *o, int depth)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, o)
    {
        if (!c->string) continue;
        if (depth == 0 && (!strcmp(c->string, "metadata") || !strcmp(c->string, "apiVersion") ||
                           !strcmp(c->string, "kind")))
            continue;
        ot_add(b, "%*s%c%s:", depth * 2, "",
               c->string[0] >= 'a' && c->string[0] <= 'z' ? c->string[0] - 32 : c->string[0],
               c->string + 1);
        if (cJSON_IsObject(c)) {
            kc_buf_append(b, "\n", 1);
            ot_fields(b, c, depth + 1);
        } else if (cJSON_IsArray(c)) {
            kc_buf_append(b, "\n", 1);
            const cJSON *e;
            cJSON_ArrayForEach(e, c)
            {
                if (cJSON_IsObject(e)) {
                    ot_add(b, "%*s-\n", depth * 2 + 2, "");
                    ot_fields(b, e, depth + 2);
                } else {
                    char *t = cJSON_PrintUnformatted(e);
                    ot_add(b, "%*s- %s\n", depth * 2 + 2, "",
                           cJSON_IsString(e) ? e->valuestring : t);
                    cJSON_free(t);
                }
            }
        } else {
            char *t = cJSON_PrintUnformatted(c);
            ot_add(b, "  %s\n", cJSON_IsString(c) ? c->valuestring : t);
            cJSON_free(t);
        }
    }
}

/* A timestamp as Go prints a time.Time (velero describe prints them so): "2026-06-01 10:00:00
 * +0000 UTC" for "2026-06-01T10:00:00Z"; another form as it is. */
static const char *ot_time(const cJSON *o, const char *path, const char *dflt, char *buf, size_t n)
{
    const char *t = ot_str(o, path, NULL);
    int Y, M, D, h, m, sec, used = 0;
    if (!t) return dflt;
    if (sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &Y, &M, &D, &h, &m, &sec, &used) == 6 &&
        used == (int)strlen(t) && used == 20) {
        snprintf(buf, n, "%04d-%02d-%02d %02d:%02d:%02d +0000 UTC", Y, M, D, h, m, sec);
        return buf;
    }
    return t;
}

/* One block of "label:<TAB>value" lines as Velero's describer prints them through its tabwriter
 * (padding 2): the values aligned two columns after the longest label; indent spaces before each
 * label ("\tIncluded:\t..." is indent 2). */
static void ot_block(kc_buf *b, int indent, const char *const *label, const char *const *value,
                     size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(label[i]) > w) w = (int)strlen(label[i]);
    for (size_t i = 0; i < n; i++) ot_add(b, "%*s%-*s%s\n", indent, "", w + 2, label[i], value[i]);
}

/* Go's BoolPointerString: f or t as the spec's boolean says, dflt when it is not set. */
static const char *ot_boolp(const cJSON *o, const char *path, const char *f, const char *t,
                            const char *dflt)
{
    const cJSON *v = ot_get(o, path);
    return cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? t : f) : dflt;
}

static int ot_strcmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Requirements by their key, as labels.Selector sorts them ("!k" and "k in (...)" by k). */
static int ot_req_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    x += *x == '!';
    y += *y == '!';
    size_t xl = strcspn(x, "= "), yl = strcspn(y, "= ");
    int c = strncmp(x, y, xl < yl ? xl : yl);
    return c ? c : xl != yl ? (xl < yl ? -1 : 1) : 0;
}

/* A label selector as metav1.FormatLabelSelector prints it: the requirements sorted by key,
 * "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k", joined by ","; "<none>" when it has none
 * (malloc'd). */
static char *ot_selector(const cJSON *sel)
{
    char *req[128];
    size_t n = 0;
    const cJSON *c, *ml = ot_get(sel, "matchLabels"), *me = ot_get(sel, "matchExpressions");
    cJSON_ArrayForEach(c, (cJSON_IsObject(ml) ? ml : NULL))
    {
        if (n < 128 && c->string)
            req[n++] = xasprintf("%s=%s", c->string, cJSON_IsString(c) ? c->valuestring : "");
    }
    cJSON_ArrayForEach(c, (cJSON_IsArray(me) ? me : NULL))
    {
        const char *key = ot_str(c, "key", ""), *op = ot_str(c, "operator", "");
        if (n >= 128) break;
        if (!strcmp(op, "Exists")) {
            req[n++] = xstrdup(key);
            continue;
        }
        if (!strcmp(op, "DoesNotExist")) {
            req[n++] = xasprintf("!%s", key);
            continue;
        }
        char *vals[64];
        size_t nv = 0;
        const cJSON *v, *arr = ot_get(c, "values");
        cJSON_ArrayForEach(v, (cJSON_IsArray(arr) ? arr : NULL))
        {
            if (nv < 64 && cJSON_IsString(v)) vals[nv++] = v->valuestring;
        }
        if (nv > 1) qsort(vals, nv, sizeof *vals, ot_strcmp);
        kc_buf r = {0};
        ot_add(&r, "%s %s (", key, !strcmp(op, "NotIn") ? "notin" : "in");
        for (size_t i = 0; i < nv; i++) ot_add(&r, "%s%s", i ? "," : "", vals[i]);
        ot_add(&r, ")");
        req[n++] = xstrdup(kc_buf_cstr(&r));
        kc_buf_free(&r);
    }
    if (!n) return xstrdup("<none>");
    if (n > 1) qsort(req, n, sizeof *req, ot_req_cmp);
    kc_buf r = {0};
    for (size_t i = 0; i < n; i++) {
        ot_add(&r, "%s%s", i ? "," : "", req[i]);
        free(req[i]);
    }
    char *out = xstrdup(kc_buf_cstr(&r));
    kc_buf_free(&r);
    return out;
}

/* "Label selector:  ..." and "Or label selector:  ..." as both describers print them. */
static void ot_selectors(kc_buf *b, const cJSON *obj)
{
    const cJSON *ls = ot_get(obj, "spec.labelSelector");
    char *t = ls ? ot_selector(ls) : xstrdup("<none>");
    ot_add(b, "Label selector:  %s\n\n", t);
    free(t);
    const cJSON *ors = ot_get(obj, "spec.orLabelSelectors"), *c;
    kc_buf r = {0};
    int n = 0;
    cJSON_ArrayForEach(c, (cJSON_IsArray(ors) ? ors : NULL))
    {
        char *one = ot_selector(c);
        ot_add(&r, "%s%s", n++ ? " or " : "", one);
        free(one);
    }
    ot_add(b, "Or label selector:  %s\n\n", n ? kc_buf_cstr(&r) : "<none>");
    kc_buf_free(&r);
}

static void ot_pod_volumes(const struct vl_volume *const *v, size_t n, int restore, int header,
                           kc_buf *b);

/* restore_describer.go DescribeRestore, part by part in its order (as --details), with veltop's
 * own after Velero's: what the object does not say (the results' messages, the item operations'
 * list, the CSI snapshot restores, the resource list: artifacts in object storage) says unknown
 * and where to look. vols: the restore's volumes; NULL when veltop does not watch it. */
static void ot_describe_restore(const cJSON *obj, const struct vl_volume *const *vols, size_t nvols,
                                kc_buf *b)
{
    char tb[64], tb2[64], ph[512];
    const char *name = ot_str(obj, "metadata.name", "");
    const char *phase = ot_str(obj, "status.phase", "New");
    int failed = !strcmp(phase, "Failed") || !strcmp(phase, "PartiallyFailed");
    snprintf(ph, sizeof ph, "%s%s", phase,
             ot_get(obj, "metadata.deletionTimestamp") ? " (Deleting)" : "");
    if (failed)
        snprintf(ph + strlen(ph), sizeof ph - strlen(ph),
                 " (run 'velero restore logs %s' for more information)", name);
    /* Phase and the progress are one block of the tabwriter: aligned together */
    const char *lab[4] = {"Phase:"}, *val[4] = {ph};
    char total[32], done[32], qp[32];
    size_t n = 1;
    if (!strcmp(phase, "Queued")) { /* veltop's: where in Velero's queue */
        snprintf(qp, sizeof qp, "%lld", ot_int(obj, "status.queuePosition"));
        lab[n] = "Queue position:", val[n++] = qp;
    }
    if (ot_get(obj, "status.progress")) { /* in flight: Velero's own "estimated", "so far" */
        int live = !strcmp(phase, "InProgress");
        snprintf(total, sizeof total, "%lld", ot_int(obj, "status.progress.totalItems"));
        snprintf(done, sizeof done, "%lld", ot_int(obj, "status.progress.itemsRestored"));
        lab[n] = live ? "Estimated total items to be restored:" : "Total items to be restored:";
        val[n++] = total;
        lab[n] = live ? "Items restored so far:" : "Items restored:";
        val[n++] = done;
    }
    ot_block(b, 0, lab, val, n);
    const char *tl[] = {"Started:", "Completed:"},
               *tv[] = {ot_time(obj, "status.startTimestamp", "<n/a>", tb, sizeof tb),
                        ot_time(obj, "status.completionTimestamp", "<n/a>", tb2, sizeof tb2)};
    kc_buf_append(b, "\n", 1);
    ot_block(b, 0, tl, tv, 2);
    const cJSON *ve = ot_get(obj, "status.validationErrors"), *c;
    if (cJSON_GetArraySize(ve) > 0) {
        int k = 0;
        ot_add(b, "\n");
        cJSON_ArrayForEach(c, ve)
            ot_add(b, "%-20s%s\n",
                   k++ ? "" : "Validation errors:", cJSON_IsString(c) ? c->valuestring : "");
    }
    /* the results: Velero prints their messages (the RestoreResults file); veltop's results
     * screen (r) has them, here their counts */
    long long warnings = ot_int(obj, "status.warnings"), errors = ot_int(obj, "status.errors");
    if (warnings > 0)
        ot_add(b, "\nWarnings:  %lld (the messages: the results screen, r)\n", warnings);
    if (errors > 0) ot_add(b, "\nErrors:  %lld (the messages: the results screen, r)\n", errors);
    if (ot_str(obj, "status.failureReason", NULL)) /* veltop's: the object says why */
        ot_add(b, "\nFailure reason:  %s\n", ot_str(obj, "status.failureReason", ""));
    ot_add(b, "\nBackup:  %s\n\n", ot_str(obj, "spec.backupName", "<none>"));
    ot_add(b, "Namespaces:\n  Included:  ");
    const cJSON *inc = ot_get(obj, "spec.includedNamespaces");
    if (cJSON_GetArraySize(inc) == 1 && cJSON_IsString(cJSON_GetArrayItem(inc, 0)) &&
        !strcmp(cJSON_GetArrayItem(inc, 0)->valuestring, "*"))
        inc = NULL; /* ["*"] is every namespace too */
    ot_list(b, inc, "all namespaces found in the backup");
    ot_add(b, "  Excluded:  ");
    ot_list(b, ot_get(obj, "spec.excludedNamespaces"), "<none>");
    ot_add(b, "\nResources:\n  Included:        ");
    ot_list(b, ot_get(obj, "spec.includedResources"), "*");
    ot_add(b, "  Excluded:        ");
    ot_list(b, ot_get(obj, "spec.excludedResources"), "<none>");
    ot_add(b, "  Cluster-scoped:  %s\n\n",
           ot_boolp(obj, "spec.includeClusterResources", "excluded", "included", "auto"));
    /* DescribeMap: sorted, the next ones under the first */
    const cJSON *nm = ot_get(obj, "spec.namespaceMapping");
    size_t nk = 0;
    char **keys = xcalloc((size_t)cJSON_GetArraySize(nm) + 1, sizeof *keys);
    cJSON_ArrayForEach(c, (cJSON_IsObject(nm) ? nm : NULL))
    {
        if (c->string) keys[nk++] = c->string;
    }
    if (nk > 1) qsort(keys, nk, sizeof *keys, ot_strcmp);
    ot_add(b, "Namespace mappings:  ");
    for (size_t i = 0; i < nk; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(nm, keys[i]);
        ot_add(b, "%*s%s=%s\n", i ? 21 : 0, "", keys[i], cJSON_IsString(v) ? v->valuestring : "");
    }
    if (!nk) ot_add(b, "<none>\n");
    free(keys);
    kc_buf_append(b, "\n", 1);
    ot_selectors(b, obj);
    ot_add(b, "Restore PVs:  %s\n\n", ot_boolp(obj, "spec.restorePVs", "false", "true", "auto"));
    if (vols) /* "kopia Restores:" by phase, then a blank line; nothing without any */
        ot_pod_volumes(vols, nvols, 1, 1, b);
    else
        ot_add(b, "Pod Volume Restores:  <unknown: the restore is not among the runs watched>\n\n");
    /* restore volume info: an artifact veltop does not fetch */
    ot_add(b, "CSI Snapshot Restores:  <unknown: in the restore's volume info, not fetched>\n\n");
    const char *el[] = {"Existing Resource Policy: ", "ItemOperationTimeout:"},
               *ev[] = {ot_str(obj, "spec.existingResourcePolicy", "<none>"),
                        ot_str(obj, "spec.itemOperationTimeout", "0s")};
    ot_block(b, 0, el, ev, 2);
    ot_add(b, "\nPreserve Service NodePorts:  %s\n",
           ot_boolp(obj, "spec.preserveNodePorts", "false", "true", "auto"));
    if (ot_get(obj, "spec.resourceModifier"))
        ot_add(b, "\nResource modifier:\n  Type:  %s\n  Name:  %s\n",
               ot_str(obj, "spec.resourceModifier.kind", ""),
               ot_str(obj, "spec.resourceModifier.name", ""));
    if (cJSON_IsTrue(ot_get(obj, "spec.skipDefaultResourceModifier")))
        ot_add(b, "Skip Default Resource Modifier:  true\n");
    if (ot_get(obj, "spec.resourcePolicy"))
        ot_add(b, "\nResource policies:\n  Type:  %s\n  Name:  %s\n",
               ot_str(obj, "spec.resourcePolicy.kind", ""),
               ot_str(obj, "spec.resourcePolicy.name", ""));
    if (ot_get(obj, "spec.uploaderConfig")) {
        const char *ul[2], *uv[2];
        char par[32];
        size_t nu = 0;
        ot_add(b, "\nUploader config:\n");
        if (cJSON_IsTrue(ot_get(obj, "spec.uploaderConfig.writeSparseFiles")))
            ul[nu] = "Write Sparse Files:", uv[nu++] = "true";
        if (ot_int(obj, "spec.uploaderConfig.parallelFilesDownload") > 0) {
            snprintf(par, sizeof par, "%lld",
                     ot_int(obj, "spec.uploaderConfig.parallelFilesDownload"));
            ul[nu] = "Parallel Restore:", uv[nu++] = par;
        }
        ot_block(b, 2, ul, uv, nu);
    }
    kc_buf_append(b, "\n", 1);
    if (ot_int(obj, "status.restoreItemOperationsAttempted") > 0) /* as Velero: when attempted */
        ot_add(b,
               "Restore Item Operations:  %lld of %lld completed successfully, %lld failed (each: "
               "the detail screen)\n",
               ot_int(obj, "status.restoreItemOperationsCompleted"),
               ot_int(obj, "status.restoreItemOperationsAttempted"),
               ot_int(obj, "status.restoreItemOperationsFailed"));
    if (ot_get(obj, "status.hookStatus")) { /* as Velero: when the status has them */
        const char *hl[] = {"HooksAttempted: ", "HooksFailed: "};
        char ha[32], hf[32];
        snprintf(ha, sizeof ha, "%lld", ot_int(obj, "status.hookStatus.hooksAttempted"));
        snprintf(hf, sizeof hf, "%lld", ot_int(obj, "status.hookStatus.hooksFailed"));
        const char *hv[] = {ha, hf};
        kc_buf_append(b, "\n", 1);
        ot_block(b, 0, hl, hv, 2);
    }
    ot_add(b, "\nResource List:  <unknown: not fetched; the detail screen lists the resources>\n");
    /* the per-resource progress veltop-sim (and a future Velero) reports */
    const cJSON *rp = ot_get(obj, "status.resourceProgress");
    if (cJSON_IsObject(rp) && cJSON_GetArraySize(rp)) {
        ot_add(b, "\nResource progress:\n");
        cJSON_ArrayForEach(c, rp) ot_add(b, "  %s: %lld of %lld\n", c->string,
                                         ot_int(c, "processed"), ot_int(c, "total"));
    }
}

/* vols: the run's volumes (n of them), NULL when veltop does not know them. */
static void ot_describe(const cJSON *obj, const struct vl_volume *const *vols, size_t nvols,
                        kc_buf *b)
{
    char tb[64];
    const char *kind = ot_str(obj, "kind", "");
    int backup = !strcmp(kind, "Backup"), restore = !strcmp(kind, "Restore");
    ot_add(b, "Name:         %s\n", ot_str(obj, "metadata.name", ""));
    ot_add(b, "Namespace:    %s\n", ot_str(obj, "metadata.namespace", ""));
    ot_map(b, "Labels:", ot_get(obj, "metadata.labels"));
    ot_map(b, "Annotations:", ot_get(obj, "metadata.annotations"));
    kc_buf_append(b, "\n", 1);
    if (!backup && !restore) { /* as kubectl describe: the rest, field by field */
        if (*kind) ot_add(b, "Kind:  %s\n", kind);
        ot_fields(b, obj, 0);
        return;
    }
    if (restore) {
        ot_describe_restore(obj, vols, nvols, b);
        return;
    }
    const char *phase = ot_str(obj, "status.phase", "New");
    /* backup_describer.go DescribeBackup, in its order */
    int failed = !strcmp(phase, "Failed") || !strcmp(phase, "PartiallyFailed");
    ot_add(b, "Phase:  %s%s", phase,
           ot_get(obj, "metadata.deletionTimestamp") ? " (Deleting)" : "");
    if (failed)
        ot_add(b, " (run `velero backup logs %s` for more information)",
               ot_str(obj, "metadata.name", ""));
    kc_buf_append(b, "\n", 1);
    if (!strcmp(phase, "Queued"))
        ot_add(b, "Queue position:  %lld\n", ot_int(obj, "status.queuePosition"));
    if (ot_get(obj, "spec.resourcePolicy"))
        ot_add(b, "\nResource policies:\n  Type:  %s\n  Name:  %s\n",
               ot_str(obj, "spec.resourcePolicy.kind", ""),
               ot_str(obj, "spec.resourcePolicy.name", ""));
    if (ot_int(obj, "spec.uploaderConfig.parallelFilesUpload") > 0)
        ot_add(b, "\nUploader config:\n  Parallel files upload:  %lld\n",
               ot_int(obj, "spec.uploaderConfig.parallelFilesUpload"));
    const cJSON *ve = ot_get(obj, "status.validationErrors");
    if (cJSON_GetArraySize(ve) > 0) {
        ot_add(b, "\nValidation errors:");
        const cJSON *c;
        cJSON_ArrayForEach(c, ve) ot_add(b, "  %s\n", cJSON_IsString(c) ? c->valuestring : "");
    }
    kc_buf_append(b, "\n", 1);
    /* the counts, as Velero when the results file is not there (veltop's results screen, r,
     * has the messages); none when both are 0 */
    if (ot_int(obj, "status.errors") || ot_int(obj, "status.warnings")) {
        ot_add(b, "Errors:    %lld\n", ot_int(obj, "status.errors"));
        ot_add(b, "Warnings:  %lld\n\n", ot_int(obj, "status.warnings"));
    }
    if (ot_str(obj, "status.failureReason", NULL))
        ot_add(b, "Failure reason:  %s\n\n", ot_str(obj, "status.failureReason", ""));
    ot_add(b, "Namespaces:\n  Included:  ");
    ot_list(b, ot_get(obj, "spec.includedNamespaces"), "*"); /* a restore's: ot_describe_restore */
    ot_add(b, "  Excluded:  ");
    ot_list(b, ot_get(obj, "spec.excludedNamespaces"), "<none>");
    ot_add(b, "\nResources:\n  Included:        ");
    ot_list(b, ot_get(obj, "spec.includedResources"), "*");
    ot_add(b, "  Excluded:        ");
    ot_list(b, ot_get(obj, "spec.excludedResources"), "<none>");
    const cJSON *icr = ot_get(obj, "spec.includeClusterResources");
    ot_add(b, "  Cluster-scoped:  %s\n\n",
           cJSON_IsBool(icr) ? (cJSON_IsTrue(icr) ? "included" : "excluded") : "auto");
    ot_selectors(b, obj);
    {
        const cJSON *lbl = ot_get(obj, "metadata.labels");
        const cJSON *sl = cJSON_IsObject(lbl)
                              ? cJSON_GetObjectItemCaseSensitive(lbl, "velero.io/storage-location")
                              : NULL;
        ot_add(b, "Storage Location:  %s\n\n",
               ot_str(obj, "spec.storageLocation", cJSON_IsString(sl) ? sl->valuestring : ""));
        const cJSON *snap = ot_get(obj, "spec.snapshotVolumes");
        ot_add(b, "Velero-Native Snapshot PVs:  %s\n",
               cJSON_IsBool(snap) ? (cJSON_IsTrue(snap) ? "true" : "false") : "auto");
        const cJSON *fsb = ot_get(obj, "spec.defaultVolumesToFsBackup");
        if (cJSON_IsBool(fsb)) /* as Velero: only when the spec says */
            ot_add(b, "File System Backup (Default):  %s\n", cJSON_IsTrue(fsb) ? "true" : "false");
        const cJSON *smd = ot_get(obj, "spec.snapshotMoveData");
        ot_add(b, "Snapshot Move Data:  %s\n",
               cJSON_IsBool(smd) ? (cJSON_IsTrue(smd) ? "true" : "false") : "auto");
        const char *dm = ot_str(obj, "spec.datamover", "");
        ot_add(b, "Data Mover:  %s\n\n", *dm ? dm : "velero");
        /* durations as the spec has them (Velero's server fills them in when it takes the
         * backup; Go prints a zero Duration "0s") */
        ot_add(b, "TTL:  %s\n\n", ot_str(obj, "spec.ttl", "0s"));
        ot_add(b, "CSISnapshotTimeout:    %s\n", ot_str(obj, "spec.csiSnapshotTimeout", "0s"));
        ot_add(b, "ItemOperationTimeout:  %s\n\n", ot_str(obj, "spec.itemOperationTimeout", "0s"));
        ot_add(b, "Hooks:  %s\n\n",
               ot_get(obj, "spec.hooks.resources") ? "(see the JSON)" : "<none>");
        const cJSON *orr = ot_get(obj, "spec.orderedResources"), *c;
        if (cJSON_IsObject(orr) && cJSON_GetArraySize(orr)) {
            ot_add(b, "OrderedResources:\n");
            cJSON_ArrayForEach(c, orr)
                ot_add(b, "  %s: %s\n", c->string, cJSON_IsString(c) ? c->valuestring : "");
            kc_buf_append(b, "\n", 1);
        }
        ot_add(b, "Backup Format Version:  %s\n\n", ot_str(obj, "status.formatVersion", "<none>"));
    }
    ot_add(b, "Started:    %s\n", ot_time(obj, "status.startTimestamp", "<n/a>", tb, sizeof tb));
    ot_add(b, "Completed:  %s\n\n",
           ot_time(obj, "status.completionTimestamp", "<n/a>", tb, sizeof tb));
    {
        ot_add(b, "Expiration:  %s\n\n", ot_time(obj, "status.expiration", "<nil>", tb, sizeof tb));
        if (ot_get(obj, "status.progress")) { /* in flight: Velero's own "estimated", "so far" */
            if (!strcmp(phase, "InProgress")) {
                ot_add(b, "Estimated total items to be backed up:  %lld\n",
                       ot_int(obj, "status.progress.totalItems"));
                ot_add(b, "Items backed up so far:                 %lld\n\n",
                       ot_int(obj, "status.progress.itemsBackedUp"));
            } else {
                ot_add(b, "Total items to be backed up:  %lld\n",
                       ot_int(obj, "status.progress.totalItems"));
                ot_add(b, "Items backed up:              %lld\n\n",
                       ot_int(obj, "status.progress.itemsBackedUp"));
            }
        }
        ot_add(b, "Backup Item Operations:  %lld of %lld completed successfully, %lld failed\n\n",
               ot_int(obj, "status.backupItemOperationsCompleted"),
               ot_int(obj, "status.backupItemOperationsAttempted"),
               ot_int(obj, "status.backupItemOperationsFailed"));
        /* Backup Volumes: the snapshots by their counts (their details are in the backup's
         * volume info file, which veltop does not fetch), then the pod volumes veltop watches */
        ot_add(b, "Backup Volumes:\n");
        if (ot_int(obj, "status.volumeSnapshotsAttempted"))
            ot_add(b,
                   "  Velero-Native Snapshots: %lld of %lld snapshots completed successfully\n\n",
                   ot_int(obj, "status.volumeSnapshotsCompleted"),
                   ot_int(obj, "status.volumeSnapshotsAttempted"));
        else
            ot_add(b, "  Velero-Native Snapshots: <none included>\n\n");
        if (ot_int(obj, "status.csiVolumeSnapshotsAttempted"))
            ot_add(b, "  CSI Snapshots: %lld of %lld snapshots completed successfully\n\n",
                   ot_int(obj, "status.csiVolumeSnapshotsCompleted"),
                   ot_int(obj, "status.csiVolumeSnapshotsAttempted"));
        else
            ot_add(b, "  CSI Snapshots: <none included>\n\n");
        if (vols)
            ot_pod_volumes(vols, nvols, 0, 0, b);
        else
            ot_add(b,
                   "  Pod Volume Backups: <unknown: the backup is not among the runs watched>\n\n");
    }
    if (ot_get(obj, "status.hookStatus")) { /* as Velero: when the status has them */
        ot_add(b, "HooksAttempted:  %lld\n", ot_int(obj, "status.hookStatus.hooksAttempted"));
        ot_add(b, "HooksFailed:     %lld\n", ot_int(obj, "status.hookStatus.hooksFailed"));
    }
    /* the per-resource progress veltop-sim (and a future Velero) reports */
    const cJSON *rp = ot_get(obj, "status.resourceProgress"), *c;
    if (cJSON_IsObject(rp) && cJSON_GetArraySize(rp)) {
        ot_add(b, "\nResource progress:\n");
        cJSON_ArrayForEach(c, rp) ot_add(b, "  %s: %lld of %lld\n", c->string,
                                         ot_int(c, "processed"), ot_int(c, "total"));
    }
}

void objtext_describe(const cJSON *obj, kc_buf *b)
{
    ot_describe(obj, NULL, 0, b);
}

void objtext_describe_run(const cJSON *obj, const struct vl_volume *const *v, size_t n, kc_buf *b)
{
    static const struct vl_volume *const none[1] = {NULL};
    ot_describe(obj, v ? v : none, v ? n : 0, b);
}

/* ---- pod volumes, as velero's describers group them ---- */

typedef struct {
    char *pod, *vol; /* "ns/name"; "volume (42.00%)" */
} ot_pv;

static int ot_pv_cmp(const void *a, const void *b)
{
    const ot_pv *x = a, *y = b;
    int c = strcmp(x->pod, y->pod);
    return c ? c : strcmp(x->vol, y->vol);
}

/* Velero's group of a phase: "In Progress" for InProgress, New for none. */
static const char *ot_pv_group(const char *phase)
{
    if (!phase || !*phase || !strcmp(phase, "New")) return "New";
    if (!strcmp(phase, "InProgress")) return "In Progress";
    return phase;
}

void objtext_describe_pod_volumes(const struct vl_volume *const *v, size_t n, int restore,
                                  kc_buf *b)
{
    ot_pod_volumes(v, n, restore, 1, b);
}

/* header: a backup's "Backup Volumes:" line first (objtext_describe_run prints its own, with
 * the snapshots under it) */
static void ot_pod_volumes(const struct vl_volume *const *v, size_t n, int restore, int header,
                           kc_buf *b)
{
    static const char *const bk[] = {"Completed", "Failed",   "Canceled", "In Progress",
                                     "Canceling", "Prepared", "Accepted", "New"};
    static const char *const rs[] = {"Completed", "Canceled", "Failed", "In Progress",
                                     "Prepared",  "Accepted", "New"};
    const char *const *order = restore ? rs : bk;
    size_t norder = restore ? sizeof rs / sizeof *rs : sizeof bk / sizeof *bk;
    vl_kind want = restore ? VL_PVR : VL_PVB;
    const struct vl_volume *first = NULL;
    for (size_t i = 0; i < n && !first; i++)
        if (v[i]->kind == want) first = v[i];
    if (!first) {
        if (!restore)
            ot_add(b, "%s  Pod Volume Backups: <none included>\n\n",
                   header ? "Backup Volumes:\n" : "");
        return;
    }
    const char *up = first->uploader ? first->uploader : "";
    if (restore)
        ot_add(b, "%s Restores:\n", up);
    else
        ot_add(b, "%s  Pod Volume Backups - %s:\n", header ? "Backup Volumes:\n" : "", up);
    const char *in = restore ? "  " : "    ", *in2 = restore ? "    " : "      ";
    ot_pv *pv = xcalloc(n, sizeof *pv);
    for (size_t g = 0; g < norder; g++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const struct vl_volume *x = v[i];
            if (x->kind != want || strcmp(ot_pv_group(x->phase), order[g])) continue;
            pv[k].pod =
                xasprintf("%s/%s", x->pod_ns ? x->pod_ns : "", x->pod_name ? x->pod_name : "");
            const char *vol = x->volume ? x->volume : "";
            if (!strcmp(order[g], "In Progress") && x->bytes_total != 0)
                pv[k].vol = xasprintf("%s (%.2f%%)", vol,
                                      (double)x->bytes_done / (double)x->bytes_total * 100);
            else if (!strcmp(order[g], "Completed") && x->bytes_total > 0)
                pv[k].vol = xasprintf("%s (size: %lld)", vol, (long long)x->bytes_total);
            else
                pv[k].vol = xstrdup(vol);
            k++;
        }
        if (!k) continue;
        qsort(pv, k, sizeof *pv, ot_pv_cmp);
        ot_add(b, "%s%s:\n", in, order[g]);
        for (size_t i = 0; i < k; i++) { /* one line a pod, its volumes joined */
            if (!i || strcmp(pv[i].pod, pv[i - 1].pod))
                ot_add(b, "%s%s%s: %s", i ? "\n" : "", in2, pv[i].pod, pv[i].vol);
            else
                ot_add(b, ", %s", pv[i].vol);
        }
        ot_add(b, "\n");
        for (size_t i = 0; i < k; i++) {
            free(pv[i].pod);
            free(pv[i].vol);
        }
    }
    free(pv);
    kc_buf_append(b, "\n", 1);
}
