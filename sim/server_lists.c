/* server_lists.c: the resource verbs of veltop-sim's API server (server_int.h) over the store
 * (simstore.h): list with limit and continue tokens as kube-apiserver pages (or not, at
 * resourceVersion=0), get, create, update, merge patch, delete and deletecollection, with the
 * Status each failure answers and the managedFields writer of each write. */
#include "server_int.h"

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeclient/util.h"

/* ---- list, get and writes ---- */

static char *continue_token(uint64_t rv, const char *ns, const char *name)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "rv", (double)rv);
    cJSON_AddStringToObject(j, "ns", ns);
    cJSON_AddStringToObject(j, "start", name);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *b = kc_base64_encode((const unsigned char *)s, strlen(s));
    free(s);
    return b;
}

static int parse_continue(const char *tok, uint64_t *rv, char **ns, char **name)
{
    size_t len;
    unsigned char *raw = kc_base64_decode(tok, &len);
    if (!raw) return -1;
    char *s = xstrndup((const char *)raw, len);
    free(raw);
    cJSON *j = cJSON_Parse(s);
    free(s);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "rv");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "ns");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "start");
    int ok = cJSON_IsNumber(r) && cJSON_IsString(n) && cJSON_IsString(m);
    if (ok) {
        *rv = (uint64_t)r->valuedouble;
        *ns = xstrdup(n->valuestring);
        *name = xstrdup(m->valuestring);
    }
    cJSON_Delete(j);
    return ok ? 0 : -1;
}

/* Does a list get pages of `limit`? kube-apiserver serves resourceVersion=0 from its watch cache,
 * which ignores limit (cacher computeListLimit: "the limit is ignored for requests that set
 * RV == 0"; so since 1.13, PR #70735, through 1.33): the whole list in one answer, no continue.
 * Consistent reads (no resourceVersion) and exact ones page, from etcd or (1.31+, consistent
 * reads from cache) from the cache, in every version the sim reports. */
static int list_honours_limit(simserver *s, const char *rv)
{
    /* --rv0-limit: a server that serves every list from storage (an aggregated API server,
     * kube-apiserver with the watch cache off) pages resourceVersion=0 lists too */
    return atomic_load(&s->rv0_limit) || !(rv && !strcmp(rv, "0"));
}

void simserver_set_rv0_limit(simserver *s, int on)
{
    atomic_store(&s->rv0_limit, on ? 1 : 0);
}

/* A List answer made as it is sent: the head (kind, apiVersion, metadata) as cJSON prints the
 * whole object, then the items' own texts, then the closing brace: the same bytes as printing
 * the List with its items, without a copy of the whole answer in memory at once, and with each
 * block encoded only when the client has read the one before (a client that holds its answer
 * back, as veltop does the history's, holds this work back with it). */
typedef struct list_stream {
    char *head; /* {"kind":...,"metadata":{...},"items": */
    size_t head_len, head_off;
    simstore_texts *items;
    int tail; /* the closing brace sent */
} list_stream;

static size_t list_stream_read(void *cls, char *buf, size_t max)
{
    list_stream *ls = cls;
    size_t n = 0;
    if (ls->head_off < ls->head_len) {
        n = ls->head_len - ls->head_off < max ? ls->head_len - ls->head_off : max;
        memcpy(buf, ls->head + ls->head_off, n);
        ls->head_off += n;
    }
    if (n < max) n += simstore_texts_read(ls->items, buf + n, max - n);
    if (n < max && !ls->tail) {
        buf[n++] = '}';
        ls->tail = 1;
    }
    return n;
}

static void list_stream_free(void *cls)
{
    list_stream *ls = cls;
    free(ls->head);
    simstore_texts_free(ls->items);
    free(ls);
}

static enum MHD_Result list_send(struct MHD_Connection *c, cJSON *out, simstore_texts *items)
{
    list_stream *ls = xcalloc(1, sizeof *ls);
    char *head = cJSON_PrintUnformatted(out); /* {...} without items: its '}' becomes ,"items": */
    cJSON_Delete(out);
    size_t hl = strlen(head);
    ls->head = xasprintf("%.*s,\"items\":", (int)(hl - 1), head);
    free(head);
    ls->head_len = strlen(ls->head);
    ls->items = items;
    size_t len = ls->head_len + simstore_texts_len(items) + 1;
    struct MHD_Response *r =
        simlink_source_response(c, len, list_stream_read, ls, list_stream_free, 1);
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result do_list(simserver *s, struct MHD_Connection *c, const target *t)
{
    const char *ls = srv_arg(c, "labelSelector"), *fs = srv_arg(c, "fieldSelector");
    const char *lim = srv_arg(c, "limit"), *cont = srv_arg(c, "continue");
    if (FA(s)->slow_history_ms > 0 && !(ls && *ls) &&
        (!strcmp(t->res->plural, "podvolumebackups") ||
         !strcmp(t->res->plural, "podvolumerestores") || !strcmp(t->res->plural, "datauploads") ||
         !strcmp(t->res->plural, "datadownloads")))
        usleep((useconds_t)FA(s)->slow_history_ms * 1000);
    const char *rvm = srv_arg(c, "resourceVersionMatch"), *rvq = srv_arg(c, "resourceVersion");
    if (rvm && *rvm) {
        if (!rvq || !*rvq)
            return srv_send_status(c, 422,
                                   "resourceVersionMatch is forbidden unless resourceVersion "
                                   "is provided",
                                   NULL);
        if (cont && *cont)
            return srv_send_status(c, 422,
                                   "resourceVersionMatch is forbidden when continue is "
                                   "provided",
                                   NULL);
    }
    if (srv_arg(c, "sendInitialEvents"))
        return srv_send_status(c, 422, "sendInitialEvents is forbidden for list", NULL);
    long limit = lim && *lim ? atol(lim) : 0;
    if (limit < 0 || !list_honours_limit(s, rvq)) limit = 0;
    uint64_t crv = 0;
    char *after_ns = NULL, *after_name = NULL;
    if (cont && *cont) {
        if (parse_continue(cont, &crv, &after_ns, &after_name))
            return srv_send_status(c, 400, "continue key is not valid: illegal base64 data", NULL);
        if (crv < simstore_floor(s->o.store)) {
            free(after_ns);
            free(after_name);
            return srv_send_status(c, 410,
                                   "The provided continue parameter is too old to display a "
                                   "consistent list result. You can start a new list without the "
                                   "continue parameter.",
                                   NULL);
        }
    }
    uint64_t rv = 0;
    char *nns = NULL, *nname = NULL, *msg = NULL;
    long remaining = 0;
    int st = 0;
    /* a List's items are the stored objects' own serializations, taken under the store's lock
     * and streamed after it as the client reads (list_stream); a Table's rows are made from the
     * objects */
    int table = srv_wants_table(c);
    cJSON *items = NULL;
    simstore_texts *texts = NULL;
    if (table)
        items = simstore_list_page(s->o.store, t->res->plural, t->ns, ls, fs, (size_t)limit,
                                   after_ns, after_name, &rv, &nns, &nname, &remaining, &st, &msg);
    else
        texts = simstore_list_page_texts(s->o.store, t->res->plural, t->ns, ls, fs, (size_t)limit,
                                         after_ns, after_name, &rv, &nns, &nname, &remaining, &st,
                                         &msg);
    free(after_ns);
    free(after_name);
    if (!items && !texts) {
        enum MHD_Result r = srv_send_status(c, st, msg, NULL);
        free(msg);
        return r;
    }
    if (crv) rv = crv;
    char *tok = nname ? continue_token(rv, nns, nname) : NULL;
    free(nns);
    free(nname);
    if ((ls && *ls) || (fs && *fs)) remaining = 0; /* as the apiserver: no count with selectors */
    cJSON *out;
    if (table) {
        out = srv_make_table(t->res, items, rv, tok, remaining, 1, server_now(s));
        cJSON_Delete(items);
        free(tok);
        return srv_send_json(c, 200, out);
    } else {
        out = cJSON_CreateObject();
        char *kind = xasprintf("%sList", t->res->kind);
        char apiv[64];
        snprintf(apiv, sizeof apiv, "%s%s%s", t->res->group, t->res->group[0] ? "/" : "",
                 t->res->version);
        cJSON_AddStringToObject(out, "kind", kind);
        cJSON_AddStringToObject(out, "apiVersion", apiv);
        free(kind);
        cJSON *md = cJSON_AddObjectToObject(out, "metadata");
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
        cJSON_AddStringToObject(md, "resourceVersion", buf);
        if (tok) cJSON_AddStringToObject(md, "continue", tok);
        if (tok && remaining > 0) cJSON_AddNumberToObject(md, "remainingItemCount", remaining);
    }
    free(tok);
    return list_send(c, out, texts);
}

static enum MHD_Result send_obj(simserver *s, struct MHD_Connection *c, int code,
                                const sim_resource *r, cJSON *obj)
{
    if (srv_wants_table(c)) {
        cJSON *one = cJSON_CreateArray();
        cJSON_AddItemToArray(one, obj);
        const cJSON *rvs = srv_path(obj, "metadata", "resourceVersion", NULL);
        uint64_t rv = cJSON_IsString(rvs) ? strtoull(rvs->valuestring, NULL, 10) : 0;
        cJSON *t = srv_make_table(r, one, rv, NULL, 0, 1, server_now(s));
        cJSON_Delete(one);
        return srv_send_json(c, code, t);
    }
    return srv_send_json(c, code, obj);
}

static enum MHD_Result store_error(struct MHD_Connection *c, int st, char *msg, const target *t)
{
    if (!st) st = 500;
    const char *reason = srv_reason_for(st);
    if (st == 409 && msg && strstr(msg, "already exists")) reason = "AlreadyExists";
    enum MHD_Result r =
        srv_send_json(c, st, srv_status_obj(st, reason, msg ? msg : "internal error", t));
    free(msg);
    return r;
}

/* Strips what a client may not set on create: the server assigns them. */
static void strip_server_fields(cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *drop[] = {"uid",        "resourceVersion",   "creationTimestamp",
                          "generation", "deletionTimestamp", "managedFields"};
    for (size_t i = 0; md && i < sizeof drop / sizeof drop[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(md, drop[i]);
}

static int is_merge_patch(struct MHD_Connection *c)
{
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    return ct && !strncmp(ct, "application/merge-patch+json", 28);
}

enum MHD_Result srv_do_resource(simserver *s, struct MHD_Connection *c, const char *method,
                                const target *t, req *rq, const char *user)
{
    simstore *st = s->o.store;
    int code = 0;
    char *msg = NULL;
    int is_get = !strcmp(method, "GET");
    if (t->sub && (strcmp(t->sub, "status") || t->res->group[0]) &&
        !(is_get && !strcmp(t->sub, "log") && !strcmp(t->res->plural, "pods")))
        return srv_not_found(c);
    if (t->res->namespaced && !t->ns && (t->name || !is_get)) return srv_not_found(c);
    const char *verb = is_get ? (t->name ? (srv_arg_true(c, "watch") ? "watch" : "get")
                                         : (srv_arg_true(c, "watch") ? "watch" : "list"))
                       : !strcmp(method, "POST")   ? "create"
                       : !strcmp(method, "PUT")    ? "update"
                       : !strcmp(method, "PATCH")  ? "patch"
                       : !strcmp(method, "DELETE") ? (t->name ? "delete" : "deletecollection")
                                                   : "unknown";
    if (FA(s)->slow && t->res && !strcmp(FA(s)->slow, t->res->plural)) usleep(1500 * 1000);
    if (srv_forbidden_resource(s, t)) return srv_send_forbidden(s, c, t, user, verb);
    if (is_get) {
        if (t->sub && !strcmp(t->sub, "log")) return srv_do_log(s, c, t);
        if (srv_arg_true(c, "watch")) return srv_do_watch(s, c, t);
        if (!t->name) return do_list(s, c, t);
        cJSON *o = simstore_get(st, t->res->plural, t->ns, t->name);
        if (!o) {
            char *q = t->res->group[0] ? xasprintf("%s.%s", t->res->plural, t->res->group)
                                       : xstrdup(t->res->plural);
            char *m = xasprintf("%s \"%s\" not found", q, t->name);
            free(q);
            return store_error(c, 404, m, t);
        }
        return send_obj(s, c, 200, t->res, o);
    }
    cJSON *body = rq->body.len ? cJSON_ParseWithLength(rq->body.data, rq->body.len) : NULL;
    enum MHD_Result r;
    /* who writes, as kube-apiserver records it in managedFields */
    char mgr[160];
    sim_mf_writer w = {
        .manager = sim_mf_manager(srv_arg(c, "fieldManager"),
                                  MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent"),
                                  mgr, sizeof mgr),
        .operation = "Update",
        .subresource = t->sub,
        .time = server_now(s)};
    if (!strcmp(method, "POST")) {
        if (t->name) {
            cJSON_Delete(body);
            return srv_send_status(c, 405,
                                   "the server does not allow this method on the requested "
                                   "resource",
                                   t);
        }
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return srv_send_status(c, 400, "the body of the request was in an unknown format",
                                   NULL);
        }
        strip_server_fields(body);
        const cJSON *bn = srv_path(body, "metadata", "name", NULL);
        target named = *t;
        named.name = cJSON_IsString(bn) ? xstrdup(bn->valuestring) : NULL;
        cJSON *o = simstore_create_as(st, t->res->plural, t->ns, body, &w, &code, &msg);
        if (!o) {
            r = store_error(c, code, msg, &named);
            free(named.name);
            return r;
        }
        free(named.name);
        if (!strcmp(t->res->plural, "downloadrequests")) atomic_fetch_add(&s->dr_created, 1);
        return send_obj(s, c, 201, t->res, o);
    }
    if (!t->name) {
        if (!strcmp(method, "DELETE")) {
            /* deletecollection: delete what matches, answer the list of deleted objects */
            uint64_t rv;
            cJSON *items = simstore_list(st, t->res->plural, t->ns, srv_arg(c, "labelSelector"),
                                         srv_arg(c, "fieldSelector"), &rv, &code, &msg);
            cJSON_Delete(body);
            if (!items) return store_error(c, code, msg, NULL);
            cJSON *it;
            cJSON_ArrayForEach(it, items)
            {
                const cJSON *n = srv_path(it, "metadata", "name", NULL);
                const cJSON *ns = srv_path(it, "metadata", "namespace", NULL);
                cJSON_Delete(simstore_delete(st, t->res->plural,
                                             cJSON_IsString(ns) ? ns->valuestring : NULL,
                                             n->valuestring, NULL, NULL));
            }
            cJSON *out = cJSON_CreateObject();
            char *kind = xasprintf("%sList", t->res->kind);
            cJSON_AddStringToObject(out, "kind", kind);
            free(kind);
            cJSON_AddObjectToObject(out, "metadata");
            cJSON_AddItemToObject(out, "items", items);
            return srv_send_json(c, 200, out);
        }
        cJSON_Delete(body);
        return srv_send_status(
            c, 405, "the server does not allow this method on the requested resource", t);
    }
    int status_only = t->sub != NULL;
    if (!strcmp(method, "PUT")) {
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return srv_send_status(c, 400, "the body of the request was in an unknown format",
                                   NULL);
        }
        cJSON *o = simstore_update_as(st, t->res->plural, t->ns, t->name, body, status_only, &w,
                                      &code, &msg);
        if (!o) return store_error(c, code, msg, t);
        return send_obj(s, c, 200, t->res, o);
    }
    if (!strcmp(method, "PATCH")) {
        if (!is_merge_patch(c)) {
            cJSON_Delete(body);
            return srv_send_status(
                c, 415,
                "the body of the request was in an unknown format - accepted media "
                "types include: application/json-patch+json, "
                "application/merge-patch+json, application/apply-patch+yaml",
                t);
        }
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return srv_send_status(c, 400, "the body of the request was in an unknown format",
                                   NULL);
        }
        cJSON *o = simstore_merge_patch_as(st, t->res->plural, t->ns, t->name, body, status_only,
                                           &w, &code, &msg);
        cJSON_Delete(body);
        if (!o) return store_error(c, code, msg, t);
        return send_obj(s, c, 200, t->res, o);
    }
    if (!strcmp(method, "DELETE") && !t->sub) {
        cJSON_Delete(body);
        cJSON *o = simstore_delete(st, t->res->plural, t->ns, t->name, &code, &msg);
        if (!o) return store_error(c, code, msg, t);
        cJSON *stj = srv_status_obj(200, NULL, NULL, t);
        const cJSON *uid = srv_path(o, "metadata", "uid", NULL);
        if (cJSON_IsString(uid))
            cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(stj, "details"), "uid",
                                    uid->valuestring);
        cJSON_Delete(o);
        r = srv_send_json(c, 200, stj);
        return r;
    }
    cJSON_Delete(body);
    return srv_send_status(c, 405,
                           "the server does not allow this method on the requested resource", t);
}
