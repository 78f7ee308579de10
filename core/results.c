/* results.c: the results artifact to the results screen's lines (results.h). */
#include "results.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static void rs_add(rs_doc *d, int indent, rs_role role, int bold, const char *text)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->lines = xrealloc(d->lines, d->cap * sizeof *d->lines);
    }
    d->lines[d->n++] = (rs_line){xstrdup(text), indent, role, bold};
}

static int rs_list(rs_doc *d, const cJSON *arr, int indent, rs_role role)
{
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (!cJSON_IsString(it)) continue;
        rs_add(d, indent, role, 0, it->valuestring);
        n++;
    }
    return n;
}

/* One Result: {velero: [], cluster: [], namespaces: {ns: []}}. Returns the message count. */
static int rs_section(rs_doc *d, const cJSON *root, const char *key, const char *title,
                      rs_role role)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, key);
    size_t head = d->n;
    rs_add(d, 0, role, 1, title);
    int total = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "velero");
    if (cJSON_GetArraySize(v) > 0) {
        rs_add(d, 2, RS_NORMAL, 1, "Velero:");
        total += rs_list(d, v, 4, role);
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "cluster");
    if (cJSON_GetArraySize(c) > 0) {
        rs_add(d, 2, RS_NORMAL, 1, "Cluster:");
        total += rs_list(d, c, 4, role);
    }
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(r, "namespaces"), *it;
    int any_ns = 0;
    cJSON_ArrayForEach(it, ns)
    {
        if (!it->string || cJSON_GetArraySize(it) == 0) continue;
        if (!any_ns) rs_add(d, 2, RS_NORMAL, 1, "Namespaces:");
        any_ns = 1;
        char *h = xasprintf("%s:", it->string);
        rs_add(d, 4, RS_NORMAL, 1, h);
        free(h);
        total += rs_list(d, it, 6, role);
    }
    free(d->lines[head].text);
    d->lines[head].text = xasprintf("%s (%d)%s", title, total, total ? ":" : ": <none>");
    if (!total) d->lines[head].role = RS_DIM;
    rs_add(d, 0, RS_NORMAL, 0, "");
    return total;
}

int rs_parse(rs_doc *d, const char *json, size_t len, kc_err *err)
{
    cJSON *root = cJSON_ParseWithLength(json ? json : "", len);
    if (!cJSON_IsObject(root)) {
        kc_err_set(err, "the results artifact is not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    d->nerr = rs_section(d, root, "errors", "Errors", RS_ERROR);
    d->nwarn = rs_section(d, root, "warnings", "Warnings", RS_WARNING);
    cJSON_Delete(root);
    return 0;
}

void rs_doc_free(rs_doc *d)
{
    for (size_t i = 0; i < d->n; i++) free(d->lines[i].text);
    free(d->lines);
    d->lines = NULL;
    d->n = d->cap = 0;
}
