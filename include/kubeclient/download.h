/* download.h: fetches a Velero artifact (log, results, resource list) through a DownloadRequest:
 * create it, watch it until status.downloadURL appears, GET the URL (Accept-Encoding: identity),
 * gunzip as a stream, delete the request. All on the loop, never blocking. */
#pragma once
#include <stddef.h>

#include "kubeclient/client.h"
#include "kubeclient/util.h"

typedef struct kc_download kc_download;

typedef enum {
    KC_DL_CREATING,    /* POST of the DownloadRequest */
    KC_DL_WAITING_URL, /* watching it for status.downloadURL */
    KC_DL_FETCHING,    /* GET of the URL */
    KC_DL_CLEANING,    /* DELETE of the DownloadRequest */
    KC_DL_DONE,
    KC_DL_FAILED
} kc_dl_state;

typedef struct kc_download_opts {
    const char *ns;      /* Velero namespace ("velero") */
    const char *kind;    /* target kind: "BackupLog", "RestoreResults", ... */
    const char *target;  /* the Backup's or Restore's name */
    long url_timeout_ms; /* waiting for the URL; 0 = 60 s (as `velero backup logs`) */
    size_t max_bytes;    /* decompressed cap; 0 = KC_CAP_BODY_BYTES (caps.h): past it the bytes
                            that fit are delivered, then done() with err->code KC_ERR_CAPPED */
    /* PEM certificates the object store's TLS is also trusted with, beside the system roots (the
     * BSL's spec.objectStorage.caCert, --cacert), as the velero CLI does; copied. NULL: none.
     * No cluster credential is ever sent to the object store. */
    const char *ca_pem;
    size_t ca_pem_len;
} kc_download_opts;

/* data: decompressed bytes as they arrive. done: once, err->msg empty on success. Both run from
 * the loop; done may free the download. */
typedef void (*kc_download_data_fn)(void *arg, const char *data, size_t n);
typedef void (*kc_download_done_fn)(void *arg, const kc_err *err);

kc_download *kc_download_start(kc_client *c, const kc_download_opts *o, kc_download_data_fn data,
                               kc_download_done_fn done, void *arg);
/* Cancels whatever is in flight (no callback after this). NULL is a no-op. */
void kc_download_free(kc_download *d);
kc_dl_state kc_download_state(const kc_download *d);
const char *kc_download_state_name(kc_dl_state s);  /* "creating request", ... */
size_t kc_download_bytes_in(const kc_download *d);  /* compressed bytes received */
size_t kc_download_bytes_out(const kc_download *d); /* decompressed bytes delivered */
const char *kc_download_name(const kc_download *d); /* the DownloadRequest's name */

/* The error Velero's CLI gives when the URL does not come. */
#define KC_DL_URL_TIMEOUT_MSG                                                                      \
    "download request download url timeout, check velero server logs for errors. backup storage "  \
    "location may not be available"
