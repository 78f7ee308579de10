/* kubeconfig.c: loads kubeconfig files as kubectl does (--kubeconfig, $KUBECONFIG merge,
 * ~/.kube/config, in-cluster) and resolves one context into connection settings. */
#include "kubeclient/kubeconfig.h"
#include "kubeclient/caps.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define KC_DEFAULT_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct {
    char *path; /* as given */
    char *dir;  /* absolute directory, for relative paths inside */
    yaml_document_t doc;
    int loaded; /* doc holds a document */
} cfg_file;

typedef struct {
    const char *name;
    cfg_file *file;
    yaml_node_t *node; /* the inner cluster/user/context mapping (NULL if absent) */
} cfg_entry;

typedef struct {
    cfg_entry *v;
    size_t n, cap;
} cfg_entries;

typedef struct {
    cfg_file *files;
    size_t nfiles;
    cfg_entries clusters, users, contexts;
    const char *current_context;
    char *source_files;
} cfg_merged;

/* ---- yaml helpers ---- */

static int cfg_is_null(const yaml_node_t *n)
{
    if (!n) return 1;
    if (n->type != YAML_SCALAR_NODE) return 0;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *v = (const char *)n->data.scalar.value;
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static yaml_node_t *cfg_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) {
            yaml_node_t *v = yaml_document_get_node(doc, p->value);
            return cfg_is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

static const char *cfg_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- reading one file ---- */

static char *cfg_abs_dir(const char *path)
{
    char *copy = xstrdup(path);
    char *slash = strrchr(copy, '/');
    char *dir;
    if (!slash) {
        dir = xstrdup(".");
    } else if (slash == copy) {
        dir = xstrdup("/");
    } else {
        *slash = '\0';
        dir = xstrdup(copy);
    }
    free(copy);
    if (dir[0] != '/') {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd)) {
            char *abs = strcmp(dir, ".") ? xasprintf("%s/%s", cwd, dir) : xstrdup(cwd);
            free(dir);
            dir = abs;
        }
    }
    return dir;
}

/* The parser's error as a message naming the file. */
static void cfg_yaml_error(const yaml_parser_t *parser, const char *path, kc_err *err)
{
    if (parser->error == YAML_READER_ERROR)
        kc_err_set(err, "cannot read kubeconfig %s: %s", path,
                   parser->problem ? parser->problem : "read error");
    else
        kc_err_set(err, "yaml syntax error in %s at line %zu, column %zu: %s%s%s", path,
                   parser->problem_mark.line + 1, parser->problem_mark.column + 1,
                   parser->problem ? parser->problem : "invalid yaml", parser->context ? " " : "",
                   parser->context ? parser->context : "");
}

/* A pass over the events that stops at the first syntax error or past KC_CAP_YAML_DEPTH levels of
 * nesting, before libyaml's loader (whose time grows with the square of the depth: 100 000 levels
 * took 36 s) sees the text. Returns 0 when the text may be loaded. */
static int cfg_check_depth(const char *text, size_t len, const char *path, kc_err *err)
{
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            cfg_yaml_error(&parser, path, err);
            rc = -1;
            break;
        }
        yaml_event_type_t t = ev.type;
        yaml_event_delete(&ev);
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > KC_CAP_YAML_DEPTH) {
                kc_err_set(err, "kubeconfig %s nests deeper than %d levels", path,
                           KC_CAP_YAML_DEPTH);
                rc = -1;
                break;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        } else if (t == YAML_STREAM_END_EVENT) {
            break;
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* Returns 1 when loaded, 0 when the file does not exist (and missing_ok), -1 on error. */
static int cfg_load_file(cfg_file *f, const char *path, int missing_ok, kc_err *err)
{
    memset(f, 0, sizeof *f);
    size_t len;
    char *text = kc_read_file(path, KC_CAP_KUBECONFIG_BYTES, &len);
    if (!text) {
        if (missing_ok && errno == ENOENT) return 0;
        char buf[128];
        kc_err_set(
            err, "cannot read kubeconfig %s: %s", path,
            kc_read_file_strerror(errno, KC_CAP_KUBECONFIG_BYTES, "a kubeconfig", buf, sizeof buf));
        return -1;
    }
    if (cfg_check_depth(text, len, path, err)) {
        free(text);
        return -1;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&parser, &f->doc);
    if (!ok) cfg_yaml_error(&parser, path, err);
    yaml_parser_delete(&parser);
    free(text);
    if (!ok) return -1;
    f->loaded = 1;
    f->path = xstrdup(path);
    f->dir = cfg_abs_dir(path);
    yaml_node_t *root = yaml_document_get_root_node(&f->doc);
    if (root && !cfg_is_null(root) && root->type != YAML_MAPPING_NODE) {
        kc_err_set(err, "%s is not a kubeconfig: its top level is not a mapping", path);
        return -1;
    }
    return 1;
}

static void cfg_file_clear(cfg_file *f)
{
    if (f->loaded) yaml_document_delete(&f->doc);
    free(f->path);
    free(f->dir);
}

/* ---- merging ---- */

static cfg_entry *cfg_find(cfg_entries *es, const char *name)
{
    for (size_t i = 0; i < es->n; i++)
        if (!strcmp(es->v[i].name, name)) return &es->v[i];
    return NULL;
}

static int cfg_cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* kubectl's loader refuses a file whose list names an entry twice (client-go
 * tools/clientcmd/api/v1/conversion.go: `duplicate name "x" in list`), rather than pick one. */
static int cfg_check_names(cfg_file *f, yaml_node_t *seq, const char *list, kc_err *err)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE) return 0;
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start), k = 0;
    const char **names = xcalloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(&f->doc, seq->data.sequence.items.start[i]);
        const char *name = cfg_scalar(cfg_get(&f->doc, item, "name"));
        if (name) names[k++] = name;
    }
    qsort(names, k, sizeof *names, cfg_cmp_names);
    int rc = 0;
    for (size_t i = 1; i < k && !rc; i++)
        if (!strcmp(names[i - 1], names[i])) {
            kc_err_set(err, "duplicate name \"%.200s\" in list %s of %s", names[i], list, f->path);
            rc = -1;
        }
    free(names);
    return rc;
}

/* Adds the entries of one list (clusters/users/contexts) of a file; the first file to name an
 * entry wins and the whole entry comes from it. */
static int cfg_merge_list(cfg_entries *es, cfg_file *f, const char *list, const char *inner,
                          kc_err *err)
{
    yaml_node_t *root = yaml_document_get_root_node(&f->doc);
    yaml_node_t *seq = cfg_get(&f->doc, root, list);
    if (!seq) return 0;
    if (seq->type != YAML_SEQUENCE_NODE) {
        kc_err_set(err, "%s in %s is not a list", list, f->path);
        return -1;
    }
    if (cfg_check_names(f, seq, list, err) < 0) return -1;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *item = yaml_document_get_node(&f->doc, *it);
        if (!item || item->type != YAML_MAPPING_NODE) {
            kc_err_set(err, "%s in %s: an entry is not a mapping", list, f->path);
            return -1;
        }
        const char *name = cfg_scalar(cfg_get(&f->doc, item, "name"));
        if (!name || !*name) {
            kc_err_set(err, "%s in %s: an entry has no name", list, f->path);
            return -1;
        }
        yaml_node_t *in = cfg_get(&f->doc, item, inner);
        if (in && in->type != YAML_MAPPING_NODE) {
            kc_err_set(err, "%s[%s].%s in %s is not a mapping", list, name, inner, f->path);
            return -1;
        }
        if (in) {
            char *what = xasprintf("%s[%.200s].extensions", list, name);
            int bad = cfg_check_names(f, cfg_get(&f->doc, in, "extensions"), what, err);
            free(what);
            if (bad) return -1;
        }
        if (cfg_find(es, name)) continue;
        if (es->n == es->cap) {
            es->cap = es->cap ? es->cap * 2 : 8;
            es->v = xrealloc(es->v, es->cap * sizeof *es->v);
        }
        es->v[es->n++] = (cfg_entry){name, f, in};
    }
    return 0;
}

static int cfg_merge_file(cfg_merged *m, cfg_file *f, kc_err *err)
{
    yaml_node_t *root = yaml_document_get_root_node(&f->doc);
    if (!root || cfg_is_null(root)) return 0;
    if (cfg_check_names(f, cfg_get(&f->doc, root, "extensions"), "extensions", err) < 0) return -1;
    if (cfg_merge_list(&m->clusters, f, "clusters", "cluster", err) < 0) return -1;
    if (cfg_merge_list(&m->users, f, "users", "user", err) < 0) return -1;
    if (cfg_merge_list(&m->contexts, f, "contexts", "context", err) < 0) return -1;
    const char *cur = cfg_scalar(cfg_get(&f->doc, root, "current-context"));
    if (!m->current_context && cur && *cur) m->current_context = cur;
    return 0;
}

static void cfg_merged_free(cfg_merged *m)
{
    for (size_t i = 0; i < m->nfiles; i++) cfg_file_clear(&m->files[i]);
    free(m->files);
    free(m->clusters.v);
    free(m->users.v);
    free(m->contexts.v);
    free(m->source_files);
}

/* Loads the candidate files in order (missing ones skipped unless explicit). */
static int cfg_load_all(cfg_merged *m, char **paths, size_t npaths, int explicit_file, kc_err *err)
{
    m->files = xcalloc(npaths ? npaths : 1, sizeof *m->files);
    kc_buf src = {0};
    for (size_t i = 0; i < npaths; i++) {
        cfg_file *f = &m->files[m->nfiles];
        int r = cfg_load_file(f, paths[i], !explicit_file, err);
        if (r < 0) {
            cfg_file_clear(f);
            kc_buf_free(&src);
            return -1;
        }
        if (r == 0) continue;
        m->nfiles++;
        if (src.len) kc_buf_append(&src, ":", 1);
        kc_buf_append(&src, paths[i], strlen(paths[i]));
        if (cfg_merge_file(m, f, err) < 0) {
            kc_buf_free(&src);
            return -1;
        }
    }
    if (!src.len) /* nothing existed: name what was looked for */
        for (size_t i = 0; i < npaths; i++) {
            if (src.len) kc_buf_append(&src, ":", 1);
            kc_buf_append(&src, paths[i], strlen(paths[i]));
        }
    m->source_files = xstrdup(kc_buf_cstr(&src));
    kc_buf_free(&src);
    return 0;
}

/* ---- field readers: errors name the field as kind[name].field ---- */

typedef struct {
    const char *kind; /* clusters / users / contexts */
    cfg_entry *e;
    kc_err *err;
    const char *sub; /* "exec." inside a user's exec mapping, else "" */
} cfg_ctx;

static yaml_node_t *cfg_field(cfg_ctx *c, const char *field)
{
    return c->e->node ? cfg_get(&c->e->file->doc, c->e->node, field) : NULL;
}

/* A string field: 0 with *out NULL if absent, -1 if not a scalar. */
static int cfg_str(cfg_ctx *c, const char *field, char **out)
{
    *out = NULL;
    yaml_node_t *n = cfg_field(c, field);
    if (!n) return 0;
    if (n->type != YAML_SCALAR_NODE) {
        kc_err_set(c->err, "%s[%s].%s%s: not a string", c->kind, c->e->name, c->sub, field);
        return -1;
    }
    const char *v = cfg_scalar(n);
    *out = *v ? xstrdup(v) : NULL;
    return 0;
}

static int cfg_bool(cfg_ctx *c, const char *field, int *out)
{
    *out = 0;
    yaml_node_t *n = cfg_field(c, field);
    if (!n) return 0;
    const char *v = cfg_scalar(n);
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "on",   "On",   "ON"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO",    "off",   "Off",   "OFF"};
    for (size_t i = 0; v && i < sizeof yes / sizeof *yes; i++) {
        if (!strcmp(v, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcmp(v, no[i])) return 0;
    }
    kc_err_set(c->err, "%s[%s].%s%s: not a boolean", c->kind, c->e->name, c->sub, field);
    return -1;
}

/* Joins a relative path to the kubeconfig's directory and cleans "." and ".." lexically, as Go's
 * filepath.Join does for kubectl. */
static char *cfg_resolve(const cfg_file *f, const char *path)
{
    if (path[0] == '/') return xstrdup(path);
    char *joined = xasprintf("%s/%s", f->dir, path);
    char *out = xmalloc(strlen(joined) + 2);
    size_t n = 0;
    char *save = NULL;
    for (char *seg = strtok_r(joined, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
        if (!strcmp(seg, ".")) continue;
        if (!strcmp(seg, "..")) {
            while (n > 0 && out[n - 1] != '/') n--;
            if (n > 0) n--;
            continue;
        }
        out[n++] = '/';
        size_t l = strlen(seg);
        memcpy(out + n, seg, l);
        n += l;
    }
    if (n == 0) out[n++] = '/';
    out[n] = '\0';
    free(joined);
    return out;
}

/* A file the kubeconfig names, read up to KC_CAP_FILE_BYTES (-1 with errno; see cfg_strerror). */
static int cfg_read_path(const char *path, unsigned char **data, size_t *len)
{
    char *d = kc_read_file(path, KC_CAP_FILE_BYTES, len);
    if (!d) return -1;
    *data = (unsigned char *)d;
    return 0;
}

/* Why cfg_read_path failed (errno e). */
static const char *cfg_strerror(int e)
{
    static char buf[128];
    return kc_read_file_strerror(e, KC_CAP_FILE_BYTES, "a file the kubeconfig names", buf,
                                 sizeof buf);
}

/* Reads PEM bytes from field-data (base64) or field (a file, relative to the kubeconfig). */
static int cfg_pem(cfg_ctx *c, const char *field, unsigned char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    char *dfield = xasprintf("%s-data", field);
    char *b64 = NULL, *file = NULL;
    int rc = -1;
    if (cfg_str(c, dfield, &b64) < 0 || cfg_str(c, field, &file) < 0) goto out;
    if (b64) {
        *data = kc_base64_decode(b64, len);
        if (!*data) {
            kc_err_set(c->err, "%s[%s].%s: invalid base64", c->kind, c->e->name, dfield);
            goto out;
        }
    } else if (file) {
        char *abs = cfg_resolve(c->e->file, file);
        if (cfg_read_path(abs, data, len) < 0) {
            kc_err_set(c->err, "%s[%s].%s: cannot read %s: %s", c->kind, c->e->name, field, abs,
                       cfg_strerror(errno));
            free(abs);
            goto out;
        }
        free(abs);
    }
    rc = 0;
out:
    free(dfield);
    free(b64);
    free(file);
    return rc;
}

static int cfg_has(cfg_ctx *c, const char *field)
{
    return cfg_field(c, field) != NULL;
}

/* ---- cluster, user, context ---- */

/* proxy-url as client-go reads it (tools/clientcmd/helpers.go parseProxyURL: Go's url.Parse,
 * then the scheme must be http, https or socks5), refused at load as kubectl refuses it before
 * any connection. The URL is never quoted whole: it may carry a password. */
static int cfg_check_proxy_url(cfg_ctx *c, const char *u)
{
    for (const unsigned char *p = (const unsigned char *)u; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            kc_err_set(c->err, "%s[%s].proxy-url: could not parse: a control character in it",
                       c->kind, c->e->name);
            return -1;
        }
    /* Go's getScheme: a letter, then letters, digits, '+', '-', '.', up to the first ':' */
    size_t n = 0;
    int scheme_ok = (u[0] >= 'a' && u[0] <= 'z') || (u[0] >= 'A' && u[0] <= 'Z');
    while (scheme_ok && u[n] && u[n] != ':') {
        char ch = u[n];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '+' || ch == '-' || ch == '.'))
            scheme_ok = 0;
        else
            n++;
    }
    if (u[0] == ':') {
        kc_err_set(c->err, "%s[%s].proxy-url: could not parse: missing protocol scheme", c->kind,
                   c->e->name);
        return -1;
    }
    char scheme[16] = "";
    if (scheme_ok && u[n] == ':' && n < sizeof scheme)
        for (size_t i = 0; i < n; i++)
            scheme[i] = (char)(u[i] >= 'A' && u[i] <= 'Z' ? u[i] - 'A' + 'a' : u[i]);
    else if (scheme_ok && u[n] == ':')
        snprintf(scheme, sizeof scheme, "%.12s...", u);
    if (strcmp(scheme, "http") && strcmp(scheme, "https") && strcmp(scheme, "socks5")) {
        kc_err_set(c->err,
                   "%s[%s].proxy-url: unsupported scheme \"%s\", must be http, https, or socks5",
                   c->kind, c->e->name, scheme);
        return -1;
    }
    const char *host = u + n + 1;
    if (strncmp(host, "//", 2) != 0 || !host[2] || host[2] == '/') {
        kc_err_set(c->err, "%s[%s].proxy-url: no proxy host in it (%s://HOST:PORT)", c->kind,
                   c->e->name, scheme);
        return -1;
    }
    return 0;
}

static int cfg_read_cluster(cfg_ctx *c, kc_rest_config *r)
{
    if (cfg_str(c, "server", &r->server) < 0) return -1;
    if (!r->server) {
        kc_err_set(c->err, "cluster \"%s\" has no server", c->e->name);
        return -1;
    }
    if (cfg_str(c, "tls-server-name", &r->tls_server_name) < 0 ||
        cfg_bool(c, "insecure-skip-tls-verify", &r->insecure_skip_tls_verify) < 0 ||
        cfg_bool(c, "disable-compression", &r->disable_compression) < 0 ||
        cfg_str(c, "proxy-url", &r->proxy_url) < 0)
        return -1;
    if (r->proxy_url && cfg_check_proxy_url(c, r->proxy_url) < 0) return -1;
    if (cfg_has(c, "certificate-authority") && cfg_has(c, "certificate-authority-data")) {
        /* client-go tools/clientcmd/validation.go, validateClusterInfo */
        kc_err_set(c->err,
                   "certificate-authority-data and certificate-authority are both specified for "
                   "%s. certificate-authority-data will override.",
                   c->e->name);
        return -1;
    }
    if (r->insecure_skip_tls_verify &&
        (cfg_has(c, "certificate-authority") || cfg_has(c, "certificate-authority-data"))) {
        kc_err_set(c->err,
                   "%s[%s]: certificate-authority and insecure-skip-tls-verify cannot both be set",
                   c->kind, c->e->name);
        return -1;
    }
    return cfg_pem(c, "certificate-authority", &r->ca_data, &r->ca_len);
}

static void cfg_exec_free(kc_exec_config *e);

static int cfg_read_exec(cfg_ctx *c, kc_rest_config *r)
{
    yaml_node_t *x = cfg_field(c, "exec");
    yaml_document_t *doc = &c->e->file->doc;
    const char *u = c->e->name;
    if (x->type != YAML_MAPPING_NODE) {
        kc_err_set(c->err, "users[%s].exec: not a mapping", u);
        return -1;
    }
    kc_exec_config *e = xcalloc(1, sizeof *e);
    r->exec = e;
    /* a nested reader for the exec mapping */
    cfg_entry sub = {c->e->name, c->e->file, x};
    cfg_ctx sc = {"users", &sub, c->err, "exec."};
    char *cmd = NULL;
    if (cfg_str(&sc, "command", &cmd) < 0) return -1;
    if (!cmd) {
        kc_err_set(c->err, "users[%s].exec.command: missing", u);
        return -1;
    }
    if (strchr(cmd, '/') && cmd[0] != '/') {
        e->command = cfg_resolve(c->e->file, cmd);
        free(cmd);
    } else {
        e->command = cmd;
    }
    if (cfg_str(&sc, "apiVersion", &e->api_version) < 0 ||
        cfg_str(&sc, "installHint", &e->install_hint) < 0 ||
        cfg_bool(&sc, "provideClusterInfo", &e->provide_cluster_info) < 0 ||
        cfg_str(&sc, "interactiveMode", &e->interactive_mode) < 0)
        return -1;
    if (!e->api_version) {
        kc_err_set(c->err, "users[%s].exec.apiVersion: missing", u);
        return -1;
    }
    int v1 = !strcmp(e->api_version, "client.authentication.k8s.io/v1");
    if (!v1 && strcmp(e->api_version, "client.authentication.k8s.io/v1beta1") != 0) {
        kc_err_set(c->err, "users[%s].exec.apiVersion: unsupported \"%.100s\"", u, e->api_version);
        return -1;
    }
    if (!e->interactive_mode) {
        if (v1) {
            kc_err_set(c->err, "users[%s].exec.interactiveMode: required for %s", u,
                       e->api_version);
            return -1;
        }
        e->interactive_mode = xstrdup("IfAvailable");
    }
    if (strcmp(e->interactive_mode, "Never") && strcmp(e->interactive_mode, "IfAvailable") &&
        strcmp(e->interactive_mode, "Always")) {
        kc_err_set(c->err,
                   "users[%s].exec.interactiveMode: \"%.100s\" is not Never, IfAvailable or Always",
                   u, e->interactive_mode);
        return -1;
    }
    yaml_node_t *args = cfg_get(doc, x, "args");
    if (args) {
        if (args->type != YAML_SEQUENCE_NODE) {
            kc_err_set(c->err, "users[%s].exec.args: not a list", u);
            return -1;
        }
        size_t n = (size_t)(args->data.sequence.items.top - args->data.sequence.items.start);
        e->args = xcalloc(n ? n : 1, sizeof *e->args);
        for (size_t i = 0; i < n; i++) {
            const char *s =
                cfg_scalar(yaml_document_get_node(doc, args->data.sequence.items.start[i]));
            if (!s) {
                kc_err_set(c->err, "users[%s].exec.args[%zu]: not a string", u, i);
                return -1;
            }
            e->args[e->nargs++] = xstrdup(s);
        }
    }
    yaml_node_t *env = cfg_get(doc, x, "env");
    if (env) {
        if (env->type != YAML_SEQUENCE_NODE) {
            kc_err_set(c->err, "users[%s].exec.env: not a list", u);
            return -1;
        }
        size_t n = (size_t)(env->data.sequence.items.top - env->data.sequence.items.start);
        e->env_names = xcalloc(n ? n : 1, sizeof *e->env_names);
        e->env_values = xcalloc(n ? n : 1, sizeof *e->env_values);
        for (size_t i = 0; i < n; i++) {
            yaml_node_t *it = yaml_document_get_node(doc, env->data.sequence.items.start[i]);
            const char *name = cfg_scalar(cfg_get(doc, it, "name"));
            const char *value = cfg_scalar(cfg_get(doc, it, "value"));
            if (!name || !*name || strchr(name, '=')) {
                kc_err_set(c->err, "users[%s].exec.env[%zu]: no valid name", u, i);
                return -1;
            }
            e->env_names[e->nenv] = xstrdup(name);
            e->env_values[e->nenv] = xstrdup(value ? value : "");
            e->nenv++;
        }
    }
    return 0;
}

/* A value sent in a header: Go's net/http refuses one with a control character (and so the
 * request); here it is refused at load, before it could split a header. */
static int cfg_header_value(cfg_ctx *c, const char *field, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
            kc_err_set(c->err, "users[%s].%s: a control character in it", c->e->name, field);
            return -1;
        }
    return 0;
}

/* as, as-uid, as-groups, as-user-extra (client-go tools/clientcmd/api/v1/types.go AuthInfo). */
static int cfg_read_impersonation(cfg_ctx *c, kc_rest_config *r)
{
    yaml_document_t *doc = &c->e->file->doc;
    const char *u = c->e->name;
    if (cfg_str(c, "as", &r->as_user) < 0 || cfg_str(c, "as-uid", &r->as_uid) < 0) return -1;
    if (r->as_user && cfg_header_value(c, "as", r->as_user) < 0) return -1;
    if (r->as_uid && cfg_header_value(c, "as-uid", r->as_uid) < 0) return -1;
    yaml_node_t *g = cfg_field(c, "as-groups");
    if (g) {
        if (g->type != YAML_SEQUENCE_NODE) {
            kc_err_set(c->err, "users[%s].as-groups: not a list", u);
            return -1;
        }
        size_t n = (size_t)(g->data.sequence.items.top - g->data.sequence.items.start);
        r->as_groups = xcalloc(n ? n : 1, sizeof *r->as_groups);
        for (size_t i = 0; i < n; i++) {
            yaml_node_t *it = yaml_document_get_node(doc, g->data.sequence.items.start[i]);
            const char *v = cfg_is_null(it) ? "" : cfg_scalar(it);
            if (!v) {
                kc_err_set(c->err, "users[%s].as-groups[%zu]: not a string", u, i);
                return -1;
            }
            if (cfg_header_value(c, "as-groups", v) < 0) return -1;
            r->as_groups[r->n_as_groups++] = xstrdup(v);
        }
    }
    yaml_node_t *x = cfg_field(c, "as-user-extra");
    if (x) {
        if (x->type != YAML_MAPPING_NODE) {
            kc_err_set(c->err, "users[%s].as-user-extra: not a mapping", u);
            return -1;
        }
        size_t cap = 0;
        for (yaml_node_pair_t *p = x->data.mapping.pairs.start; p < x->data.mapping.pairs.top;
             p++) {
            const char *key = cfg_scalar(yaml_document_get_node(doc, p->key));
            yaml_node_t *vs = yaml_document_get_node(doc, p->value);
            if (!key || (!cfg_is_null(vs) && vs->type != YAML_SEQUENCE_NODE)) {
                kc_err_set(c->err, "users[%s].as-user-extra: not a map of string lists", u);
                return -1;
            }
            if (cfg_is_null(vs)) continue;
            for (yaml_node_item_t *it = vs->data.sequence.items.start;
                 it < vs->data.sequence.items.top; it++) {
                yaml_node_t *vn = yaml_document_get_node(doc, *it);
                const char *v = cfg_is_null(vn) ? "" : cfg_scalar(vn);
                if (!v) {
                    kc_err_set(c->err, "users[%s].as-user-extra[%.100s]: not a string list", u,
                               key);
                    return -1;
                }
                if (cfg_header_value(c, "as-user-extra", v) < 0) return -1;
                if (r->n_as_extra == cap) {
                    cap = cap ? cap * 2 : 4;
                    r->as_extra_keys = xrealloc(r->as_extra_keys, cap * sizeof(char *));
                    r->as_extra_values = xrealloc(r->as_extra_values, cap * sizeof(char *));
                }
                r->as_extra_keys[r->n_as_extra] = xstrdup(key);
                r->as_extra_values[r->n_as_extra++] = xstrdup(v);
            }
        }
    }
    int has_extra = x && x->data.mapping.pairs.top > x->data.mapping.pairs.start;
    if ((r->as_uid || r->n_as_groups || has_extra) && !r->as_user) {
        /* client-go tools/clientcmd/validation.go, validateAuthInfo */
        kc_err_set(c->err,
                   "requesting uid, groups or user-extra for %s without impersonating a user", u);
        return -1;
    }
    return 0;
}

static int cfg_read_user(cfg_ctx *c, kc_rest_config *r)
{
    const char *u = c->e->name;
    /* count the authentication methods first, naming them (never their values); an exec plugin
     * is not one of them: beside a static credential it is not run (see below) */
    const char *methods[3];
    int nm = 0;
    if (cfg_has(c, "token") || cfg_has(c, "tokenFile")) methods[nm++] = "token";
    if (cfg_has(c, "username") || cfg_has(c, "password")) methods[nm++] = "basic auth";
    if (nm > 1) {
        kc_buf b = {0};
        for (int i = 0; i < nm; i++) kc_buf_printf(&b, "%s%s", i ? ", " : "", methods[i]);
        kc_err_set(c->err, "user \"%s\" has more than one authentication method: %s", u,
                   kc_buf_cstr(&b));
        kc_buf_free(&b);
        return -1;
    }
    if (cfg_has(c, "auth-provider")) {
        kc_err_set(c->err, "users[%s].auth-provider: not supported, use an exec plugin", u);
        return -1;
    }
    /* client-go tools/clientcmd/validation.go, validateAuthInfo: both forms of one is refused */
    if (cfg_has(c, "client-certificate") && cfg_has(c, "client-certificate-data")) {
        kc_err_set(c->err,
                   "client-cert-data and client-cert are both specified for %s. client-cert-data "
                   "will override.",
                   u);
        return -1;
    }
    if (cfg_has(c, "client-key") && cfg_has(c, "client-key-data")) {
        kc_err_set(c->err,
                   "client-key-data and client-key are both specified for %s; client-key-data "
                   "will override",
                   u);
        return -1;
    }
    int has_cert = cfg_has(c, "client-certificate") || cfg_has(c, "client-certificate-data");
    int has_key = cfg_has(c, "client-key") || cfg_has(c, "client-key-data");
    if (has_cert != has_key) {
        kc_err_set(c->err, "users[%s]: %s given without %s", u,
                   has_cert ? "client-certificate" : "client-key",
                   has_cert ? "client-key" : "client-certificate");
        return -1;
    }
    if (cfg_read_impersonation(c, r) < 0) return -1;
    if (cfg_pem(c, "client-certificate", &r->client_cert_data, &r->client_cert_len) < 0 ||
        cfg_pem(c, "client-key", &r->client_key_data, &r->client_key_len) < 0)
        return -1;
    char *tf = NULL;
    if (cfg_str(c, "token", &r->token) < 0 || cfg_str(c, "tokenFile", &tf) < 0) return -1;
    if (tf && !r->token) { /* token beats tokenFile */
        r->token_file = cfg_resolve(c->e->file, tf);
        if (access(r->token_file, R_OK) < 0) {
            kc_err_set(c->err, "users[%s].tokenFile: cannot read %s: %s", u, r->token_file,
                       strerror(errno));
            free(tf);
            return -1;
        }
    }
    free(tf);
    if (cfg_str(c, "username", &r->username) < 0 || cfg_str(c, "password", &r->password) < 0)
        return -1;
    if (!cfg_has(c, "exec")) return 0;
    if (cfg_read_exec(c, r) < 0) return -1;
    /* A static credential beside exec: client-go uses it and never runs the plugin
     * (plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig: HasTokenAuth, HasBasicAuth,
     * HasCertAuth). The exec fields are still validated above, as kubectl does. */
    if (r->token || r->token_file || r->username || (r->client_cert_data && r->client_key_data)) {
        cfg_exec_free(r->exec);
        r->exec = NULL;
    }
    return 0;
}

/* A YAML node as JSON, as client-go's loader turns a kubeconfig into JSON (sigs.k8s.io/yaml):
 * mappings, lists, plain null/true/false and JSON numbers keep their type, anything else is a
 * string. The depth is bounded by the loader's check (KC_CAP_YAML_DEPTH). */
static cJSON *cfg_to_json(yaml_document_t *doc, yaml_node_t *n)
{
    if (!n || cfg_is_null(n)) return cJSON_CreateNull();
    if (n->type == YAML_MAPPING_NODE) {
        cJSON *o = cJSON_CreateObject();
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            const char *k = cfg_scalar(yaml_document_get_node(doc, p->key));
            if (!k) continue;
            cJSON_AddItemToObject(o, k, cfg_to_json(doc, yaml_document_get_node(doc, p->value)));
        }
        return o;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        cJSON *a = cJSON_CreateArray();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++)
            cJSON_AddItemToArray(a, cfg_to_json(doc, yaml_document_get_node(doc, *it)));
        return a;
    }
    const char *v = cfg_scalar(n);
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"))
            return cJSON_CreateTrue();
        if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE"))
            return cJSON_CreateFalse();
        /* a JSON number literal, kept as written (no double rounding) */
        const char *p = v;
        if (*p == '-') p++;
        int ok = *p >= '0' && *p <= '9' && !(p[0] == '0' && p[1] >= '0' && p[1] <= '9');
        while (ok && *p >= '0' && *p <= '9') p++;
        if (ok && *p == '.') {
            p++;
            ok = *p >= '0' && *p <= '9';
            while (*p >= '0' && *p <= '9') p++;
        }
        if (ok && (*p == 'e' || *p == 'E')) {
            p++;
            if (*p == '+' || *p == '-') p++;
            ok = *p >= '0' && *p <= '9';
            while (*p >= '0' && *p <= '9') p++;
        }
        if (ok && !*p) return cJSON_CreateRaw(v);
    }
    return cJSON_CreateString(v);
}

/* provideClusterInfo: the cluster's extensions[client.authentication.k8s.io/exec] goes to the
 * plugin as spec.cluster.config (client-go tools/clientcmd/client_config.go). */
static void cfg_exec_extension(cfg_ctx *c, kc_rest_config *r)
{
    if (!r->exec || !r->exec->provide_cluster_info) return;
    yaml_document_t *doc = &c->e->file->doc;
    yaml_node_t *exts = cfg_field(c, "extensions");
    if (!exts || exts->type != YAML_SEQUENCE_NODE) return;
    for (yaml_node_item_t *it = exts->data.sequence.items.start; it < exts->data.sequence.items.top;
         it++) {
        yaml_node_t *e = yaml_document_get_node(doc, *it);
        const char *name = cfg_scalar(cfg_get(doc, e, "name"));
        if (!name || strcmp(name, "client.authentication.k8s.io/exec") != 0) continue;
        cJSON *j = cfg_to_json(doc, cfg_get(doc, e, "extension"));
        char *txt = cJSON_PrintUnformatted(j);
        r->exec->cluster_config = xstrdup(txt);
        cJSON_free(txt);
        cJSON_Delete(j);
        return;
    }
}

/* A server given without a scheme is https when TLS is configured, as client-go decides. */
static void cfg_fix_server(kc_rest_config *r)
{
    if (strstr(r->server, "://")) return;
    int tls = r->ca_data || r->client_cert_data || r->insecure_skip_tls_verify;
    char *s = xasprintf("%s://%s", tls ? "https" : "http", r->server);
    free(r->server);
    r->server = s;
}

static kc_rest_config *cfg_from_context(cfg_merged *m, const char *want, kc_err *err)
{
    const char *ctxname = want && *want ? want : m->current_context;
    if (!m->nfiles) { /* not a context that is missing: no file at all */
        if (ctxname)
            kc_err_set(err, "no kubeconfig found (looked in %s), so no context \"%s\"",
                       m->source_files, ctxname);
        else
            kc_err_set(err, "no kubeconfig found (looked in %s)", m->source_files);
        return NULL;
    }
    if (!ctxname) {
        kc_err_set(err, "no current context is set in %s (use --context)", m->source_files);
        return NULL;
    }
    cfg_entry *ce = cfg_find(&m->contexts, ctxname);
    if (!ce) {
        kc_err_set(err, "context \"%s\" not found in %s", ctxname, m->source_files);
        return NULL;
    }
    kc_rest_config *r = xcalloc(1, sizeof *r);
    r->context = xstrdup(ctxname);
    r->source_files = xstrdup(m->source_files);
    cfg_ctx cc = {"contexts", ce, err, ""};
    char *clname = NULL;
    if (cfg_str(&cc, "cluster", &clname) < 0) goto fail;
    r->cluster = clname; /* owned by r from here, whatever fails next */
    if (cfg_str(&cc, "user", &r->user) < 0 || cfg_str(&cc, "namespace", &r->namespace) < 0)
        goto fail;
    if (!clname) {
        kc_err_set(err, "context \"%s\" names no cluster", ctxname);
        goto fail;
    }
    cfg_entry *cl = cfg_find(&m->clusters, clname);
    if (!cl) {
        kc_err_set(err, "cluster \"%s\" of context \"%s\" not found in %s", clname, ctxname,
                   m->source_files);
        goto fail;
    }
    cfg_ctx clc = {"clusters", cl, err, ""};
    if (cfg_read_cluster(&clc, r) < 0) goto fail;
    if (r->user) {
        cfg_entry *ue = cfg_find(&m->users, r->user);
        if (!ue) {
            kc_err_set(err, "user \"%s\" of context \"%s\" not found in %s", r->user, ctxname,
                       m->source_files);
            goto fail;
        }
        cfg_ctx uc = {"users", ue, err, ""};
        if (cfg_read_user(&uc, r) < 0) goto fail;
        cfg_exec_extension(&clc, r);
    }
    cfg_fix_server(r);
    return r;
fail:
    kc_rest_config_free(r);
    return NULL;
}

/* ---- in-cluster ---- */

static char *cfg_env(const char *given, const char *name)
{
    const char *v = given ? given : getenv(name);
    return v && *v ? xstrdup(v) : NULL;
}

static kc_rest_config *cfg_in_cluster(const kc_config_opts *o, char *host, char *port, kc_err *err)
{
    const char *sa = o->sa_dir ? o->sa_dir : KC_DEFAULT_SA_DIR;
    kc_rest_config *r = xcalloc(1, sizeof *r);
    r->in_cluster = 1;
    r->context = xstrdup("");
    r->cluster = xstrdup("");
    r->user = xstrdup("");
    r->server = strchr(host, ':') ? xasprintf("https://[%s]:%s", host, port)
                                  : xasprintf("https://%s:%s", host, port);
    r->token_file = xasprintf("%s/token", sa);
    r->source_files = xstrdup("");
    if (access(r->token_file, R_OK) < 0) {
        kc_err_set(err, "in-cluster configuration: cannot read %s: %s", r->token_file,
                   strerror(errno));
        kc_rest_config_free(r);
        return NULL;
    }
    char *ca = xasprintf("%s/ca.crt", sa);
    if (cfg_read_path(ca, &r->ca_data, &r->ca_len) < 0) {
        kc_err_set(err, "in-cluster configuration: cannot read %s: %s", ca, cfg_strerror(errno));
        free(ca);
        kc_rest_config_free(r);
        return NULL;
    }
    free(ca);
    char *ns = cfg_env(o->pod_namespace, "POD_NAMESPACE");
    if (!ns) {
        char *nsf = xasprintf("%s/namespace", sa);
        unsigned char *d;
        size_t n;
        if (cfg_read_path(nsf, &d, &n) == 0) {
            while (n && (d[n - 1] == '\n' || d[n - 1] == ' ' || d[n - 1] == '\r')) d[--n] = 0;
            if (n)
                ns = (char *)d;
            else
                free(d);
        }
        free(nsf);
    }
    r->namespace = ns ? ns : xstrdup("default");
    return r;
}

/* ---- loading ---- */

static void cfg_add_path(char ***v, size_t *n, const char *p)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], p)) return; /* duplicates removed */
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = xstrdup(p);
}

/* The files to merge, as kubectl: --kubeconfig alone, else $KUBECONFIG's, else ~/.kube/config.
 * Returns 1 when the file was named explicitly. */
static int cfg_paths(const kc_config_opts *o, char ***pathsp, size_t *npathsp)
{
    char **paths = NULL;
    size_t npaths = 0;
    int explicit_file = 0;
    if (o->kubeconfig && *o->kubeconfig) {
        cfg_add_path(&paths, &npaths, o->kubeconfig);
        explicit_file = 1;
    } else {
        const char *env = o->env_kubeconfig ? o->env_kubeconfig : getenv("KUBECONFIG");
        if (env && *env) {
            char *copy = xstrdup(env);
            char *save = NULL;
            for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
                cfg_add_path(&paths, &npaths, t);
            free(copy);
        } else {
            const char *home = o->home ? o->home : getenv("HOME");
            char *p = xasprintf("%s/.kube/config", home ? home : "");
            cfg_add_path(&paths, &npaths, p);
            free(p);
        }
    }
    *pathsp = paths;
    *npathsp = npaths;
    return explicit_file;
}

kc_rest_config *kc_config_load(const kc_config_opts *opts, kc_err *err)
{
    kc_config_opts none = {0};
    const kc_config_opts *o = opts ? opts : &none;
    kc_err_clear(err);
    char **paths = NULL;
    size_t npaths = 0;
    int explicit_file = cfg_paths(o, &paths, &npaths);
    cfg_merged m = {0};
    kc_rest_config *r = NULL;
    if (cfg_load_all(&m, paths, npaths, explicit_file, err) < 0) goto out;
    int empty = !m.clusters.n && !m.users.n && !m.contexts.n && !m.current_context;
    if (empty && !explicit_file && !(o->context && *o->context)) {
        char *host = cfg_env(o->service_host, "KUBERNETES_SERVICE_HOST");
        char *port = cfg_env(o->service_port, "KUBERNETES_SERVICE_PORT");
        if (host && port) {
            r = cfg_in_cluster(o, host, port, err);
        } else {
            kc_err_set(err, "no kubeconfig found in %s and not running in a cluster",
                       m.source_files);
        }
        free(host);
        free(port);
        goto out;
    }
    r = cfg_from_context(&m, o->context, err);
out:
    cfg_merged_free(&m);
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    /* names in messages come from files and flags: keep the message one printable line */
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return r;
}

static void cfg_exec_free(kc_exec_config *e)
{
    if (!e) return;
    free(e->command);
    for (size_t i = 0; i < e->nargs; i++) free(e->args[i]);
    free(e->args);
    for (size_t i = 0; i < e->nenv; i++) {
        free(e->env_names[i]);
        free(e->env_values[i]);
    }
    free(e->env_names);
    free(e->env_values);
    free(e->api_version);
    free(e->install_hint);
    free(e->interactive_mode);
    free(e->cluster_config);
    free(e);
}

static void cfg_wipe_free(void *p, size_t n)
{
    if (!p) return;
    memset(p, 0, n);
    free(p);
}

void kc_rest_config_free(kc_rest_config *r)
{
    if (!r) return;
    free(r->context);
    free(r->cluster);
    free(r->user);
    free(r->namespace);
    free(r->server);
    free(r->tls_server_name);
    free(r->proxy_url);
    free(r->ca_data);
    free(r->client_cert_data);
    cfg_wipe_free(r->client_key_data, r->client_key_len);
    if (r->token) cfg_wipe_free(r->token, strlen(r->token));
    free(r->token_file);
    free(r->username);
    if (r->password) cfg_wipe_free(r->password, strlen(r->password));
    free(r->as_user);
    free(r->as_uid);
    for (size_t i = 0; i < r->n_as_groups; i++) free(r->as_groups[i]);
    free(r->as_groups);
    for (size_t i = 0; i < r->n_as_extra; i++) {
        free(r->as_extra_keys[i]);
        free(r->as_extra_values[i]);
    }
    free(r->as_extra_keys);
    free(r->as_extra_values);
    cfg_exec_free(r->exec);
    free(r->source_files);
    free(r);
}

static unsigned char *cfg_dup_blob(const unsigned char *p, size_t n)
{
    if (!p) return NULL;
    unsigned char *d = xmalloc(n + 1);
    memcpy(d, p, n);
    d[n] = 0;
    return d;
}

static char **cfg_dup_strv(char *const *v, size_t n)
{
    if (!v) return NULL;
    char **d = xcalloc(n ? n : 1, sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = xstrdup(v[i]);
    return d;
}

kc_rest_config *kc_rest_config_dup(const kc_rest_config *s)
{
    if (!s) return NULL;
    kc_rest_config *d = xcalloc(1, sizeof *d);
    *d = *s; /* the scalars; every pointer is replaced below */
    d->context = xstrdup(s->context);
    d->cluster = xstrdup(s->cluster);
    d->user = xstrdup(s->user);
    d->namespace = xstrdup(s->namespace);
    d->server = xstrdup(s->server);
    d->tls_server_name = xstrdup(s->tls_server_name);
    d->proxy_url = xstrdup(s->proxy_url);
    d->ca_data = cfg_dup_blob(s->ca_data, s->ca_len);
    d->client_cert_data = cfg_dup_blob(s->client_cert_data, s->client_cert_len);
    d->client_key_data = cfg_dup_blob(s->client_key_data, s->client_key_len);
    d->token = xstrdup(s->token);
    d->token_file = xstrdup(s->token_file);
    d->username = xstrdup(s->username);
    d->password = xstrdup(s->password);
    d->source_files = xstrdup(s->source_files);
    d->as_user = xstrdup(s->as_user);
    d->as_uid = xstrdup(s->as_uid);
    d->as_groups = cfg_dup_strv(s->as_groups, s->n_as_groups);
    d->as_extra_keys = cfg_dup_strv(s->as_extra_keys, s->n_as_extra);
    d->as_extra_values = cfg_dup_strv(s->as_extra_values, s->n_as_extra);
    d->exec = NULL;
    if (s->exec) {
        const kc_exec_config *e = s->exec;
        kc_exec_config *x = xcalloc(1, sizeof *x);
        *x = *e;
        x->command = xstrdup(e->command);
        x->args = cfg_dup_strv(e->args, e->nargs);
        x->env_names = cfg_dup_strv(e->env_names, e->nenv);
        x->env_values = cfg_dup_strv(e->env_values, e->nenv);
        x->api_version = xstrdup(e->api_version);
        x->install_hint = xstrdup(e->install_hint);
        x->interactive_mode = xstrdup(e->interactive_mode);
        x->cluster_config = xstrdup(e->cluster_config);
        d->exec = x;
    }
    return d;
}

char *kc_config_current_context(const kc_config_opts *opts, kc_err *err)
{
    kc_config_opts none = {0};
    const kc_config_opts *o = opts ? opts : &none;
    kc_err_clear(err);
    char **paths = NULL, *cur = NULL;
    size_t npaths = 0;
    int explicit_file = cfg_paths(o, &paths, &npaths);
    cfg_merged m = {0};
    if (cfg_load_all(&m, paths, npaths, explicit_file, err) == 0 && m.current_context)
        cur = xstrdup(m.current_context);
    cfg_merged_free(&m);
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    return cur;
}

char **kc_config_contexts(const kc_config_opts *opts, size_t *n, kc_err *err)
{
    kc_config_opts none = {0};
    const kc_config_opts *o = opts ? opts : &none;
    kc_err_clear(err);
    *n = 0;
    char **paths = NULL, **names = NULL;
    size_t npaths = 0;
    int explicit_file = cfg_paths(o, &paths, &npaths);
    cfg_merged m = {0};
    if (cfg_load_all(&m, paths, npaths, explicit_file, err) == 0) {
        names = xcalloc(m.contexts.n + 1, sizeof *names);
        for (size_t i = 0; i < m.contexts.n; i++) names[i] = xstrdup(m.contexts.v[i].name);
        *n = m.contexts.n;
    }
    cfg_merged_free(&m);
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return names;
}
