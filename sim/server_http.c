/* server_http.c: the HTTP every answer of veltop-sim's API server is made of (server_int.h): a
 * body with kube-apiserver's headers (gzipped through the emulated link, link.h), JSON, a
 * metav1.Status with the reason kube-apiserver gives each code, and the reading of a request: its
 * query arguments as the apiserver converts them and the resource its URL names. */
#include "server_int.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kubeclient/util.h"
#include "link.h"

/* ---- responses ---- */

/* may_gzip: an API object or list, which kube-apiserver compresses (link.h); retry_after: the
 * Retry-After of a 429 (the faults' retry-after; NULL: "1") */
enum MHD_Result srv_queue_body(struct MHD_Connection *c, int code, const char *ctype, char *body,
                               size_t len, int may_gzip, const char *retry_after)
{
    struct MHD_Response *r = simlink_buffer_response(c, body, len, may_gzip);
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    if (code == 429) MHD_add_response_header(r, "Retry-After", retry_after ? retry_after : "1");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result srv_queue(struct MHD_Connection *c, int code, const char *ctype, char *body,
                          size_t len)
{
    return srv_queue_body(c, code, ctype, body, len, 0, NULL);
}

enum MHD_Result srv_send_json(struct MHD_Connection *c, int code, cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return srv_queue_body(c, code, "application/json", s, strlen(s), 1, NULL);
}

const char *srv_reason_for(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 406:
        return "NotAcceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Expired";
    case 415:
        return "UnsupportedMediaType";
    case 422:
        return "Invalid";
    case 429:
        return "TooManyRequests";
    case 500:
        return "InternalError";
    default:
        return "";
    }
}
cJSON *srv_status_obj(int code, const char *reason, const char *msg, const target *t)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "kind", "Status");
    cJSON_AddStringToObject(st, "apiVersion", "v1");
    cJSON_AddObjectToObject(st, "metadata");
    cJSON_AddStringToObject(st, "status", code < 300 ? "Success" : "Failure");
    if (msg) cJSON_AddStringToObject(st, "message", msg);
    if (reason && *reason) cJSON_AddStringToObject(st, "reason", reason);
    if (t && t->res) {
        cJSON *d = cJSON_AddObjectToObject(st, "details");
        if (t->name) cJSON_AddStringToObject(d, "name", t->name);
        if (t->res->group[0]) cJSON_AddStringToObject(d, "group", t->res->group);
        cJSON_AddStringToObject(d, "kind", t->res->plural);
        if (code == 429) cJSON_AddNumberToObject(d, "retryAfterSeconds", 1);
    } else if (code == 429) {
        cJSON *d = cJSON_AddObjectToObject(st, "details");
        cJSON_AddNumberToObject(d, "retryAfterSeconds", 1);
    }
    cJSON_AddNumberToObject(st, "code", code);
    return st;
}

enum MHD_Result srv_send_status(struct MHD_Connection *c, int code, const char *msg,
                                const target *t)
{
    return srv_send_json(c, code, srv_status_obj(code, srv_reason_for(code), msg, t));
}

enum MHD_Result srv_not_found(struct MHD_Connection *c)
{
    return srv_send_status(c, 404, "the server could not find the requested resource", NULL);
}

/* ---- request parsing ---- */

const char *srv_arg(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

/* A boolean query parameter as the apiserver reads it (apimachinery runtime/conversion.go
 * Convert_Slice_string_To_bool): present with any value but "0" or "false" (any case) is true,
 * even empty ("?watch", "?watch=", "watch=True"); absent is false. */
int srv_arg_true(struct MHD_Connection *c, const char *k)
{
    const char *v = NULL;
    size_t vlen = 0;
    if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, k, strlen(k), &v, &vlen) != MHD_YES)
        return 0;
    return !v || (strcmp(v, "0") && strcasecmp(v, "false"));
}

void srv_target_free(target *t)
{
    free(t->ns);
    free(t->name);
    free(t->sub);
    memset(t, 0, sizeof *t);
}

/* Splits /api/v1/... or /apis/G/V/... into a target; 0 when it names a served resource. */
int srv_parse_target(const char *url, target *t)
{
    memset(t, 0, sizeof *t);
    char *copy = xstrdup(url), *save = NULL;
    char *parts[12];
    int n = 0;
    for (char *p = strtok_r(copy, "/", &save); p && n < 12; p = strtok_r(NULL, "/", &save))
        parts[n++] = p;
    int i, rc = -1;
    const char *group, *version;
    if (n >= 3 && !strcmp(parts[0], "api") && !strcmp(parts[1], "v1")) {
        group = "";
        version = "v1";
        i = 2;
    } else if (n >= 4 && !strcmp(parts[0], "apis")) {
        group = parts[1];
        version = parts[2];
        i = 3;
    } else {
        goto out;
    }
    if (n - i <= 3 && n - i >= 1 && !strcmp(parts[i], "namespaces") &&
        (n - i != 3 || !strcmp(parts[i + 2], "status"))) {
        /* the namespaces themselves: /api/v1/namespaces[/NAME[/status]] */
        t->res = sim_resource_find(group, version, "namespaces");
        if (!t->res) goto out;
        if (n - i >= 2) t->name = xstrdup(parts[i + 1]);
        if (n - i == 3) t->sub = xstrdup(parts[i + 2]);
        rc = 0;
        goto out;
    }
    if (n - i >= 2 && !strcmp(parts[i], "namespaces")) {
        t->ns = xstrdup(parts[i + 1]);
        i += 2;
    }
    if (i >= n || n - i > 3) goto out;
    t->res = sim_resource_find(group, version, parts[i]);
    if (!t->res) goto out;
    if (i + 1 < n) t->name = xstrdup(parts[i + 1]);
    if (i + 2 < n) t->sub = xstrdup(parts[i + 2]);
    rc = 0;
out:
    free(copy);
    if (rc) srv_target_free(t);
    return rc;
}
