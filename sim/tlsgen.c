/* tlsgen.c: the sim's certificates, generated at start with GnuTLS's x509 API (ECDSA P-256). */
#include "tlsgen.h"

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubeclient/util.h"

static char *export_crt(gnutls_x509_crt_t c)
{
    gnutls_datum_t d = {0};
    if (gnutls_x509_crt_export2(c, GNUTLS_X509_FMT_PEM, &d) < 0) return NULL;
    char *s = xstrndup((const char *)d.data, d.size);
    gnutls_free(d.data);
    return s;
}

static char *export_key(gnutls_x509_privkey_t k)
{
    gnutls_datum_t d = {0};
    if (gnutls_x509_privkey_export2(k, GNUTLS_X509_FMT_PEM, &d) < 0) return NULL;
    char *s = xstrndup((const char *)d.data, d.size);
    gnutls_free(d.data);
    return s;
}

static int new_key(gnutls_x509_privkey_t *k)
{
    if (gnutls_x509_privkey_init(k) < 0) return -1;
    return gnutls_x509_privkey_generate(*k, GNUTLS_PK_ECDSA,
                                        GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
}

/* One certificate: CA (self-signed) when issuer is NULL, else a leaf signed by issuer. */
static int make_cert(gnutls_x509_crt_t *out, gnutls_x509_privkey_t key, const char *cn,
                     const char *org, int serial, gnutls_x509_crt_t issuer,
                     gnutls_x509_privkey_t issuer_key, int server, const char *host)
{
    gnutls_x509_crt_t c;
    if (gnutls_x509_crt_init(&c) < 0) return -1;
    int rc = 0;
    unsigned char ser[4] = {0, 0, (unsigned char)(serial >> 8), (unsigned char)serial};
    time_t now = time(NULL);
    rc |= gnutls_x509_crt_set_version(c, 3);
    rc |= gnutls_x509_crt_set_serial(c, ser, sizeof ser);
    rc |= gnutls_x509_crt_set_activation_time(c, now - 3600);
    rc |= gnutls_x509_crt_set_expiration_time(c, now + 3650L * 86400);
    rc |= gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, cn, strlen(cn));
    if (org)
        rc |= gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, org,
                                            strlen(org));
    rc |= gnutls_x509_crt_set_key(c, key);
    unsigned char kid[64];
    size_t kidlen = sizeof kid;
    if (gnutls_x509_crt_get_key_id(c, 0, kid, &kidlen) >= 0)
        rc |= gnutls_x509_crt_set_subject_key_id(c, kid, kidlen);
    if (!issuer) {
        rc |= gnutls_x509_crt_set_basic_constraints(c, 1, -1);
        rc |= gnutls_x509_crt_set_key_usage(c, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
                                                   GNUTLS_KEY_DIGITAL_SIGNATURE);
    } else {
        rc |= gnutls_x509_crt_set_basic_constraints(c, 0, -1);
        rc |= gnutls_x509_crt_set_key_usage(c, GNUTLS_KEY_DIGITAL_SIGNATURE);
        rc |= gnutls_x509_crt_set_key_purpose_oid(
            c, server ? GNUTLS_KP_TLS_WWW_SERVER : GNUTLS_KP_TLS_WWW_CLIENT, 0);
        unsigned char akid[64];
        size_t akidlen = sizeof akid;
        if (gnutls_x509_crt_get_subject_key_id(issuer, akid, &akidlen, NULL) >= 0)
            rc |= gnutls_x509_crt_set_authority_key_id(c, akid, akidlen);
        if (server) {
            rc |= gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_DNSNAME, "localhost", 9,
                                                       GNUTLS_FSAN_APPEND);
            unsigned char ip[4];
            if (inet_pton(AF_INET, "127.0.0.1", ip) == 1)
                rc |= gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, ip, 4,
                                                           GNUTLS_FSAN_APPEND);
            if (host && strcmp(host, "127.0.0.1") && strcmp(host, "localhost")) {
                if (inet_pton(AF_INET, host, ip) == 1)
                    rc |= gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, ip, 4,
                                                               GNUTLS_FSAN_APPEND);
                else
                    rc |= gnutls_x509_crt_set_subject_alt_name(
                        c, GNUTLS_SAN_DNSNAME, host, (unsigned)strlen(host), GNUTLS_FSAN_APPEND);
            }
        }
    }
    if (rc < 0 || gnutls_x509_crt_sign2(c, issuer ? issuer : c, issuer ? issuer_key : key,
                                        GNUTLS_DIG_SHA256, 0) < 0) {
        gnutls_x509_crt_deinit(c);
        return -1;
    }
    *out = c;
    return 0;
}

int tlsgen_make(tlsgen *t, const char *host, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    gnutls_x509_privkey_t ck = NULL, sk = NULL, lk = NULL;
    gnutls_x509_crt_t ca = NULL, sc = NULL, lc = NULL;
    int ok = new_key(&ck) >= 0 && new_key(&sk) >= 0 && new_key(&lk) >= 0 &&
             make_cert(&ca, ck, "veltop-sim-ca", NULL, 1, NULL, NULL, 0, NULL) == 0 &&
             make_cert(&sc, sk, "veltop-sim", NULL, 2, ca, ck, 1, host) == 0 &&
             make_cert(&lc, lk, "veltop-admin", "system:masters", 3, ca, ck, 0, NULL) == 0;
    if (ok) {
        t->ca_cert = export_crt(ca);
        t->ca_key = export_key(ck);
        t->server_cert = export_crt(sc);
        t->server_key = export_key(sk);
        t->client_cert = export_crt(lc);
        t->client_key = export_key(lk);
        ok = t->ca_cert && t->ca_key && t->server_cert && t->server_key && t->client_cert &&
             t->client_key;
    }
    if (ca) gnutls_x509_crt_deinit(ca);
    if (sc) gnutls_x509_crt_deinit(sc);
    if (lc) gnutls_x509_crt_deinit(lc);
    if (ck) gnutls_x509_privkey_deinit(ck);
    if (sk) gnutls_x509_privkey_deinit(sk);
    if (lk) gnutls_x509_privkey_deinit(lk);
    if (!ok) {
        tlsgen_free(t);
        snprintf(err, errlen, "cannot generate the sim's certificates with gnutls");
        return -1;
    }
    return 0;
}

void tlsgen_free(tlsgen *t)
{
    if (!t) return;
    free(t->ca_cert);
    free(t->ca_key);
    free(t->server_cert);
    free(t->server_key);
    free(t->client_cert);
    free(t->client_key);
    memset(t, 0, sizeof *t);
}
