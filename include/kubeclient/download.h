/* download.h: fetches a Velero artifact (log, results, resource list) through a DownloadRequest:
 * create it, watch it until status.downloadURL appears, GET the URL (Accept-Encoding: identity),
 * gunzip as a stream, delete the request. All on the loop, never blocking. An expired signed URL
 * (S3: 403 "Request has expired") gets one new DownloadRequest; a store sending under
 * KC_CAP_DL_MIN_BPS (caps.h) is given up with a message. */
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
/* Cancels whatever is in flight (no callback after this). NULL is a no-op. A DownloadRequest that
 * exists (or whose create is on its way) is still deleted: that goes on from the loop on its own
 * (kc_download_pending counts them), so every path out (Esc, quit, a deadline, a signal) leaves
 * none behind. */
void kc_download_free(kc_download *d);
/* DownloadRequests of client c (NULL: any) let go by kc_download_free whose DELETE is still on its
 * way: the program runs its loop until 0, within a short deadline, before it exits. */
size_t kc_download_pending(const kc_client *c);
/* Drops them without waiting (before kc_client_free; Velero expires them in time). */
void kc_download_abandon(kc_client *c);
kc_dl_state kc_download_state(const kc_download *d);
const char *kc_download_state_name(kc_dl_state s);  /* "creating request", ... */
size_t kc_download_bytes_in(const kc_download *d);  /* compressed bytes received */
size_t kc_download_bytes_out(const kc_download *d); /* decompressed bytes delivered */
const char *kc_download_name(const kc_download *d); /* the DownloadRequest's name */

/* The error Velero's CLI gives when the URL does not come. */
#define KC_DL_URL_TIMEOUT_MSG                                                                      \
    "download request download url timeout, check velero server logs for errors. backup storage "  \
    "location may not be available"
