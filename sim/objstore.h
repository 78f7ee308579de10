/* objstore.h: the sim's object storage as an origin of its own: an HTTPS listener (its own
 * certificate, signed by its own CA) that serves only GET /download/<token>, the artifacts
 * DownloadRequests sign URLs for, as a self-signed MinIO on premises would. */
#pragma once
#include <stddef.h>

#include "server.h"

typedef struct objstore objstore;

/* Listens on host:0 (a free port) with the PEM certificate and key; fn serves the tokens.
 * NULL with err on failure. */
objstore *objstore_start(const char *host, const char *cert_pem, const char *key_pem,
                         simserver_download_fn fn, void *arg, char *err, size_t errlen);
void objstore_stop(objstore *o); /* NULL is a no-op */
int objstore_port(const objstore *o);
