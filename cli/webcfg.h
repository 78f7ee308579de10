/* webcfg.h: --web-config FILE, the web configuration file of Prometheus' exporter-toolkit (the
 * format node_exporter takes with --web.config.file): TLS for --serve and HTTP basic auth with
 * bcrypt hashes. */
#pragma once
#include <stddef.h>

typedef struct webcfg_user {
    char *name, *hash; /* hash: bcrypt, as `htpasswd -nBC 10` prints it ($2y$ / $2b$ / $2a$) */
} webcfg_user;

typedef struct webcfg {
    char *cert_pem, *key_pem; /* tls_server_config's cert_file and key_file, read; NULL: plain */
    webcfg_user *users;       /* basic_auth_users; none: no authentication */
    size_t n_users;
    /* verified (user, password) pairs: SHA-256 of both, so bcrypt is paid once per pair */
    unsigned char (*ok)[32];
    size_t n_ok;
} webcfg;

/* Reads path. Returns NULL with a message in err (naming the file and the key) when it cannot be
 * read or holds what veltop does not serve (client certificates, an unknown key). */
webcfg *webcfg_load(const char *path, char *err, size_t errn);
void webcfg_free(webcfg *w);

/* 1 when user and password match a basic_auth_users entry (bcrypt through crypt_r; a pair once
 * verified is remembered; compared in constant time), else 0. An unknown user costs a bcrypt too,
 * so that the time does not tell which users exist. */
int webcfg_check(webcfg *w, const char *user, const char *password);
