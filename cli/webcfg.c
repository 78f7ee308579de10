/* webcfg.c: exporter-toolkit's web configuration file for --serve (webcfg.h). */
#include "webcfg.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kubeclient/caps.h"
#include "kubeclient/util.h"

#define WEBCFG_OK_MAX 64 /* verified pairs remembered (then the oldest goes) */

/* A bcrypt hash of no password anyone has, for unknown users (the same cost as a real one). */
static const char webcfg_dummy[] = "$2b$10$veltopdummysaltveltopu7E4I0/P2i5qIhuai8yHdHzoczw1GiDy";

static const char *webcfg_scalar(yaml_document_t *d, yaml_node_t *n)
{
    (void)d;
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static char *webcfg_read(const char *base, const char *file, const char *key, char *err,
                         size_t errn)
{
    char path[4096];
    /* relative to the web config's own directory, as exporter-toolkit resolves them */
    const char *slash = strrchr(base, '/');
    if (file[0] != '/' && slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - base), base, file);
    else
        snprintf(path, sizeof path, "%s", file);
    size_t len;
    char *data = kc_read_file(path, KC_CAP_FILE_BYTES, &len);
    if (!data) snprintf(err, errn, "--web-config %s: %s: cannot read %s", base, key, path);
    return data;
}

webcfg *webcfg_load(const char *path, char *err, size_t errn)
{
    size_t len;
    char *text = kc_read_file(path, KC_CAP_FILE_BYTES, &len);
    if (!text) {
        snprintf(err, errn, "--web-config %s: cannot read the file", path);
        return NULL;
    }
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&p, &d);
    if (!ok) {
        snprintf(err, errn, "--web-config %s: not YAML: %s (line %zu)", path,
                 p.problem ? p.problem : "?", p.problem_mark.line + 1);
        yaml_parser_delete(&p);
        free(text);
        return NULL;
    }
    webcfg *w = xcalloc(1, sizeof *w);
    const char *cert = NULL, *key = NULL;
    err[0] = 0;
    yaml_node_t *root = yaml_document_get_root_node(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
             pr < root->data.mapping.pairs.top && !err[0]; pr++) {
            const char *k = webcfg_scalar(&d, yaml_document_get_node(&d, pr->key));
            yaml_node_t *v = yaml_document_get_node(&d, pr->value);
            if (!k) continue;
            if (!strcmp(k, "tls_server_config") && v->type == YAML_MAPPING_NODE) {
                for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
                     q < v->data.mapping.pairs.top && !err[0]; q++) {
                    const char *tk = webcfg_scalar(&d, yaml_document_get_node(&d, q->key));
                    const char *tv = webcfg_scalar(&d, yaml_document_get_node(&d, q->value));
                    if (!tk) continue;
                    if (!strcmp(tk, "cert_file"))
                        cert = tv;
                    else if (!strcmp(tk, "key_file"))
                        key = tv;
                    else if (!strcmp(tk, "min_version") || !strcmp(tk, "max_version") ||
                             !strcmp(tk, "cipher_suites") || !strcmp(tk, "curve_preferences") ||
                             !strcmp(tk, "prefer_server_cipher_suites") ||
                             (!strcmp(tk, "client_auth_type") && tv && !strcmp(tv, "NoClientCert")))
                        ; /* GnuTLS's defaults (TLS 1.2 and up) */
                    else
                        snprintf(err, errn,
                                 "--web-config %s: tls_server_config.%s is not supported "
                                 "(veltop serves cert_file and key_file)",
                                 path, tk);
                }
            } else if (!strcmp(k, "basic_auth_users") && v->type == YAML_MAPPING_NODE) {
                for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
                     q < v->data.mapping.pairs.top; q++) {
                    const char *u = webcfg_scalar(&d, yaml_document_get_node(&d, q->key));
                    const char *h = webcfg_scalar(&d, yaml_document_get_node(&d, q->value));
                    if (!u || !h || strncmp(h, "$2", 2)) {
                        snprintf(err, errn,
                                 "--web-config %s: basic_auth_users.%s: not a bcrypt hash "
                                 "(htpasswd -nBC 10 USER prints one)",
                                 path, u ? u : "?");
                        break;
                    }
                    w->users = xrealloc(w->users, (w->n_users + 1) * sizeof *w->users);
                    w->users[w->n_users].name = xstrdup(u);
                    w->users[w->n_users].hash = xstrdup(h);
                    w->n_users++;
                }
            } else if (!strcmp(k, "http_server_config") || !strcmp(k, "rate_limit")) {
                ; /* HTTP/2 and rate limits: not served, and harmless to ignore */
            } else if (strcmp(k, "tls_server_config") && strcmp(k, "basic_auth_users")) {
                snprintf(err, errn, "--web-config %s: unknown key %s", path, k);
            } else if (v->type != YAML_MAPPING_NODE &&
                       !(v->type == YAML_SCALAR_NODE && !v->data.scalar.length)) {
                snprintf(err, errn, "--web-config %s: %s is not a mapping", path, k);
            }
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
        snprintf(err, errn, "--web-config %s: not a mapping of settings", path);
    }
    if (!err[0] && (!cert) != (!key))
        snprintf(err, errn, "--web-config %s: tls_server_config needs both cert_file and key_file",
                 path);
    if (!err[0] && cert) {
        w->cert_pem = webcfg_read(path, cert, "cert_file", err, errn);
        if (w->cert_pem) w->key_pem = webcfg_read(path, key, "key_file", err, errn);
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    free(text);
    if (err[0]) {
        webcfg_free(w);
        return NULL;
    }
    return w;
}

void webcfg_free(webcfg *w)
{
    if (!w) return;
    free(w->cert_pem);
    if (w->key_pem) OPENSSL_cleanse(w->key_pem, strlen(w->key_pem));
    free(w->key_pem);
    for (size_t i = 0; i < w->n_users; i++) {
        free(w->users[i].name);
        free(w->users[i].hash);
    }
    free(w->users);
    free(w->ok);
    free(w);
}

int webcfg_check(webcfg *w, const char *user, const char *password)
{
    /* the pair's digest: a remembered one is accepted without bcrypt */
    unsigned char dg[32];
    size_t ul = strlen(user), pl = strlen(password);
    unsigned char *pair = xmalloc(ul + 1 + pl);
    memcpy(pair, user, ul + 1);
    memcpy(pair + ul + 1, password, pl);
    EVP_Digest(pair, ul + 1 + pl, dg, NULL, EVP_sha256(), NULL);
    OPENSSL_cleanse(pair, ul + 1 + pl);
    free(pair);
    for (size_t i = 0; i < w->n_ok; i++)
        if (!CRYPTO_memcmp(w->ok[i], dg, sizeof dg)) return 1;
    const char *hash = webcfg_dummy;
    int known = 0;
    for (size_t i = 0; i < w->n_users; i++)
        if (!strcmp(w->users[i].name, user)) {
            hash = w->users[i].hash;
            known = 1;
        }
    struct crypt_data *cd = xcalloc(1, sizeof *cd);
    const char *out = crypt_r(password, hash, cd);
    size_t hl = strlen(hash);
    int ok = known && out && out[0] != '*' && strlen(out) == hl && !CRYPTO_memcmp(out, hash, hl);
    OPENSSL_cleanse(cd, sizeof *cd);
    free(cd);
    if (ok) {
        if (w->n_ok == WEBCFG_OK_MAX) {
            memmove(w->ok, w->ok + 1, (WEBCFG_OK_MAX - 1) * sizeof *w->ok);
            w->n_ok--;
        }
        w->ok = xrealloc(w->ok, (w->n_ok + 1) * sizeof *w->ok);
        memcpy(w->ok[w->n_ok++], dg, sizeof dg);
    }
    return ok;
}
