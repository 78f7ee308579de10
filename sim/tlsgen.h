/* tlsgen.h: generates, in memory, the sim's CA, a server certificate for 127.0.0.1/localhost and
 * a client certificate (GnuTLS), all as PEM text. */
#pragma once
#include <stddef.h>

typedef struct tlsgen {
    char *ca_cert, *ca_key;
    char *server_cert, *server_key;
    char *client_cert, *client_key; /* CN=veltop-admin, O=system:masters */
} tlsgen;

/* 0 on success; -1 with err. host is the server's IP address or name (put in its SANs). */
int tlsgen_make(tlsgen *t, const char *host, char *err, size_t errlen);
void tlsgen_free(tlsgen *t); /* frees the strings, keeps t */
