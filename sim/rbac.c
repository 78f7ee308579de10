/* rbac.c: veltop-sim's --rbac: Role/ClusterRole rules from YAML and kube-apiserver's request
 * authorisation against them (rbac.h). The matching follows
 * k8s.io/kubernetes/pkg/apis/rbac/v1/evaluation_helpers.go, the attributes
 * k8s.io/apiserver/pkg/endpoints/request/requestinfo.go. */
#include "rbac.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "kubeclient/util.h"

#define RBAC_FILE_CAP (4u << 20)

typedef struct {
    char **v;
    size_t n;
} strv;

typedef struct {
    char *ns; /* a Role's namespace; NULL: a ClusterRole's rule, or a Role naming none */
    int cluster;
    strv groups, resources, verbs, names;
} rbac_rule;

struct sim_rbac {
    rbac_rule *rules;
    size_t n;
};

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

void sim_rbac_free(sim_rbac *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->rules[i].ns);
        strv_free(&r->rules[i].groups);
        strv_free(&r->rules[i].resources);
        strv_free(&r->rules[i].verbs);
        strv_free(&r->rules[i].names);
    }
    free(r->rules);
    free(r);
}

size_t sim_rbac_nrules(const sim_rbac *r)
{
    return r ? r->n : 0;
}

/* ---- YAML ---- */

static const char *y_scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *y_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = y_scalar(yaml_document_get_node(d, p->key));
        if (k && !strcmp(k, key)) return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

/* A list of strings; 0, or -1 when the node is there and not a list of strings. */
static int y_strv(yaml_document_t *d, yaml_node_t *seq, strv *out)
{
    if (!seq) return 0;
    if (seq->type != YAML_SEQUENCE_NODE) return -1;
    for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top;
         i++) {
        const char *s = y_scalar(yaml_document_get_node(d, *i));
        if (!s) return -1;
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] = xstrdup(s);
    }
    return 0;
}

static int rbac_add_doc(sim_rbac *r, yaml_document_t *d, int docno, char *err, size_t errn)
{
    yaml_node_t *root = yaml_document_get_root_node(d);
    if (!root) return 0; /* an empty document (a trailing "---") */
    const char *kind = y_scalar(y_get(d, root, "kind"));
    if (!kind || (strcmp(kind, "Role") && strcmp(kind, "ClusterRole"))) return 0;
    int cluster = !strcmp(kind, "ClusterRole");
    const char *ns = y_scalar(y_get(d, y_get(d, root, "metadata"), "namespace"));
    yaml_node_t *rules = y_get(d, root, "rules");
    if (rules && rules->type != YAML_SEQUENCE_NODE) {
        snprintf(err, errn, "document %d (%s): rules is not a list", docno, kind);
        return -1;
    }
    for (yaml_node_item_t *i = rules ? rules->data.sequence.items.start : NULL;
         rules && i < rules->data.sequence.items.top; i++) {
        yaml_node_t *rn = yaml_document_get_node(d, *i);
        rbac_rule rule = {.cluster = cluster, .ns = !cluster && ns ? xstrdup(ns) : NULL};
        strv nonres = {0};
        int bad = !rn || rn->type != YAML_MAPPING_NODE ||
                  y_strv(d, y_get(d, rn, "apiGroups"), &rule.groups) ||
                  y_strv(d, y_get(d, rn, "resources"), &rule.resources) ||
                  y_strv(d, y_get(d, rn, "verbs"), &rule.verbs) ||
                  y_strv(d, y_get(d, rn, "resourceNames"), &rule.names) ||
                  y_strv(d, y_get(d, rn, "nonResourceURLs"), &nonres);
        strv_free(&nonres); /* non-resource URLs: only discovery is served, always allowed */
        if (bad || !rule.verbs.n) {
            snprintf(err, errn, "document %d (%s): rule %d: %s", docno, kind,
                     (int)(i - rules->data.sequence.items.start) + 1,
                     bad ? "apiGroups, resources, verbs and resourceNames must be lists of strings"
                         : "no verbs");
            free(rule.ns);
            strv_free(&rule.groups);
            strv_free(&rule.resources);
            strv_free(&rule.verbs);
            strv_free(&rule.names);
            return -1;
        }
        r->rules = xrealloc(r->rules, (r->n + 1) * sizeof *r->rules);
        r->rules[r->n++] = rule;
    }
    return 1;
}

sim_rbac *sim_rbac_parse(const char *text, size_t len, char *err, size_t errn)
{
    sim_rbac *r = xcalloc(1, sizeof *r);
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int roles = 0, docno = 0, failed = 0;
    for (;;) {
        yaml_document_t d;
        if (!yaml_parser_load(&p, &d)) {
            snprintf(err, errn, "not YAML: %s at line %lu",
                     p.problem ? p.problem : "a syntax error",
                     (unsigned long)p.problem_mark.line + 1);
            failed = 1;
            break;
        }
        if (!yaml_document_get_root_node(&d)) { /* the end of the stream */
            yaml_document_delete(&d);
            break;
        }
        int k = rbac_add_doc(r, &d, ++docno, err, errn);
        yaml_document_delete(&d);
        if (k < 0) {
            failed = 1;
            break;
        }
        roles += k;
    }
    yaml_parser_delete(&p);
    if (!failed && !roles) {
        snprintf(err, errn, "no Role or ClusterRole in it");
        failed = 1;
    }
    if (failed) {
        sim_rbac_free(r);
        return NULL;
    }
    return r;
}

sim_rbac *sim_rbac_load(const char *path, char *err, size_t errn)
{
    size_t len;
    char *text = kc_read_file(path, RBAC_FILE_CAP, &len);
    if (!text) {
        char buf[128];
        snprintf(err, errn, "%s: %s", path,
                 kc_read_file_strerror(errno, RBAC_FILE_CAP, "a Role", buf, sizeof buf));
        return NULL;
    }
    char e[512] = "";
    sim_rbac *r = sim_rbac_parse(text, len, e, sizeof e);
    free(text);
    if (!r) snprintf(err, errn, "%s: %s", path, e);
    return r;
}

/* ---- request attributes ---- */

static void cp(char *dst, size_t n, const char *s, size_t len)
{
    if (len >= n) len = n - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

/* The path's segments (empty ones dropped, as strings.Split after Trim "/"); at most max. */
static size_t split_path(const char *path, const char **seg, size_t *len, size_t max)
{
    size_t n = 0;
    for (const char *p = path; *p && n < max;) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        seg[n] = p;
        len[n++] = l;
        p += l;
    }
    return n;
}

static int seg_is(const char *s, size_t l, const char *w)
{
    return strlen(w) == l && !strncmp(s, w, l);
}

/* metadata.name=X of a field selector that requires it exactly (X is then the request's name);
 * "" otherwise. */
static void selector_name(const char *sel, char *out, size_t n)
{
    out[0] = 0;
    if (!sel) return;
    const char *p = sel;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        const char *v = NULL;
        if (l > 14 && !strncmp(p, "metadata.name=", 14))
            v = p + 14;
        else if (l > 15 && !strncmp(p, "metadata.name==", 15))
            v = p + 15;
        if (v && !memchr(v, '/', (size_t)(p + l - v))) cp(out, n, v, (size_t)(p + l - v));
        if (!e) break;
        p = e + 1;
    }
}

void sim_rbac_request_info(const char *method, const char *path, int watch,
                           const char *field_selector, sim_rbac_req *q)
{
    memset(q, 0, sizeof *q);
    const char *seg[16];
    size_t len[16];
    size_t n = split_path(path, seg, len, 16);
    if (!strcmp(method, "POST"))
        snprintf(q->verb, sizeof q->verb, "create");
    else if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        snprintf(q->verb, sizeof q->verb, "get");
    else if (!strcmp(method, "PUT"))
        snprintf(q->verb, sizeof q->verb, "update");
    else if (!strcmp(method, "PATCH"))
        snprintf(q->verb, sizeof q->verb, "patch");
    else if (!strcmp(method, "DELETE"))
        snprintf(q->verb, sizeof q->verb, "delete");
    else
        cp(q->verb, sizeof q->verb, method, strlen(method));
    size_t i;
    if (n >= 2 && seg_is(seg[0], len[0], "api")) {
        cp(q->version, sizeof q->version, seg[1], len[1]);
        i = 2;
    } else if (n >= 3 && seg_is(seg[0], len[0], "apis")) {
        cp(q->group, sizeof q->group, seg[1], len[1]);
        cp(q->version, sizeof q->version, seg[2], len[2]);
        i = 3;
    } else {
        return; /* /version, /api, /apis, /apis/G, ...: non-resource */
    }
    if (i == n) return; /* /api/v1, /apis/G/V: discovery */
    q->resource_request = 1;
    if (seg_is(seg[i], len[i], "namespaces") && i + 1 < n) {
        cp(q->ns, sizeof q->ns, seg[i + 1], len[i + 1]);
        /* a namespace's own subresources (status, finalize) stay on the namespace object */
        if (i + 2 < n && !seg_is(seg[i + 2], len[i + 2], "status") &&
            !seg_is(seg[i + 2], len[i + 2], "finalize"))
            i += 2;
    }
    cp(q->resource, sizeof q->resource, seg[i], len[i]);
    if (i + 1 < n) cp(q->name, sizeof q->name, seg[i + 1], len[i + 1]);
    if (i + 2 < n) cp(q->sub, sizeof q->sub, seg[i + 2], len[i + 2]);
    if (!q->name[0] && !strcmp(q->verb, "get")) {
        snprintf(q->verb, sizeof q->verb, "%s", watch ? "watch" : "list");
        selector_name(field_selector, q->name, sizeof q->name);
    }
    if (!q->name[0] && !strcmp(q->verb, "delete"))
        snprintf(q->verb, sizeof q->verb, "deletecollection");
}

/* ---- matching ---- */

static int has(const strv *s, const char *w)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], "*") || !strcmp(s->v[i], w)) return 1;
    return 0;
}

static int resource_matches(const strv *s, const char *combined, const char *sub)
{
    for (size_t i = 0; i < s->n; i++) {
        const char *r = s->v[i];
        if (!strcmp(r, "*") || !strcmp(r, combined)) return 1;
        if (*sub && !strncmp(r, "*/", 2) && !strcmp(r + 2, sub)) return 1;
    }
    return 0;
}

static int name_matches(const strv *s, const char *name)
{
    if (!s->n) return 1;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name)) return 1;
    return 0;
}

int sim_rbac_allows(const sim_rbac *r, const sim_rbac_req *q)
{
    if (!q->resource_request) return 1;
    if (!r) return 0;
    char combined[200];
    snprintf(combined, sizeof combined, "%s%s%s", q->resource, q->sub[0] ? "/" : "", q->sub);
    for (size_t i = 0; i < r->n; i++) {
        const rbac_rule *u = &r->rules[i];
        /* a Role grants nothing at the cluster scope, and only in its own namespace */
        if (!u->cluster && (!q->ns[0] || (u->ns && strcmp(u->ns, q->ns)))) continue;
        if (has(&u->verbs, q->verb) && has(&u->groups, q->group) &&
            resource_matches(&u->resources, combined, q->sub) && name_matches(&u->names, q->name))
            return 1;
    }
    return 0;
}

char *sim_rbac_forbidden_message(const sim_rbac_req *q, const char *user)
{
    /* errors.NewForbidden(GroupResource{group, resource}, name, reason) */
    char gr[260];
    snprintf(gr, sizeof gr, "%s%s%s", q->resource, q->group[0] ? "." : "", q->group);
    char *what = q->name[0] ? xasprintf("%s \"%s\"", gr, q->name) : xstrdup(gr);
    char *scope =
        q->ns[0] ? xasprintf("in the namespace \"%s\"", q->ns) : xstrdup("at the cluster scope");
    char *m =
        xasprintf("%s is forbidden: User \"%s\" cannot %s resource \"%s%s%s\" in API group "
                  "\"%s\" %s",
                  what, user, q->verb, q->resource, q->sub[0] ? "/" : "", q->sub, q->group, scope);
    free(what);
    free(scope);
    return m;
}
