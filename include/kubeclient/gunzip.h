/* gunzip.h: streaming gzip decoder (zlib inflate) for downloaded Velero artifacts: bytes in as
 * they arrive, decompressed bytes out through a callback; plain (non-gzip) input passes through. */
#pragma once
#include <stddef.h>

#include "kubeclient/util.h"

typedef struct kc_gunzip kc_gunzip;
typedef void (*kc_gunzip_out_fn)(void *arg, const char *data, size_t n);

/* max_out caps the decompressed size (0 = 1 GiB, as Velero's CLI): past it the bytes that fit
 * are delivered, then the feed fails with err->code KC_ERR_CAPPED (caps.h). */
kc_gunzip *kc_gunzip_new(size_t max_out, kc_gunzip_out_fn out, void *arg);
void kc_gunzip_free(kc_gunzip *g);
/* Feeds input bytes, any split. The first two bytes decide: 1f 8b is gzip (concatenated members
 * allowed), anything else is passed through as plain text. Returns 0, or -1 with err (corrupt
 * data, size cap); after an error further feeds fail. */
int kc_gunzip_feed(kc_gunzip *g, const void *data, size_t n, kc_err *err);
/* The input ended: -1 with err when a gzip stream is truncated. */
int kc_gunzip_finish(kc_gunzip *g, kc_err *err);
int kc_gunzip_is_gzip(const kc_gunzip *g); /* 1 gzip, 0 plain, -1 not yet known */
size_t kc_gunzip_in_bytes(const kc_gunzip *g);
size_t kc_gunzip_out_bytes(const kc_gunzip *g);
