/* artifacts.c: gzip via zlib and the results JSON shape of Velero's stored artifacts. */
#include "artifacts.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kubeclient/util.h"

unsigned char *artifacts_gzip(const void *data, size_t len, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: zlib writes a gzip header and trailer */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    size_t cap = deflateBound(&z, (uLong)len) + 32;
    unsigned char *out = xmalloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    if (rc != Z_STREAM_END) abort(); /* cannot happen with deflateBound's size */
    *outlen = z.total_out;
    deflateEnd(&z);
    return out;
}

char *artifacts_gunzip(const unsigned char *data, size_t len, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return NULL;
    kc_buf b = {0};
    unsigned char chunk[16384];
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    int rc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            inflateEnd(&z);
            kc_buf_free(&b);
            return NULL;
        }
        kc_buf_append(&b, chunk, sizeof chunk - z.avail_out);
    } while (rc != Z_STREAM_END && (z.avail_in > 0 || z.avail_out == 0));
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        kc_buf_free(&b);
        return NULL;
    }
    if (outlen) *outlen = b.len;
    return kc_buf_cstr(&b);
}

static cJSON *result(const artifacts_result_entry *e, size_t n)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *velero = cJSON_AddArrayToObject(r, "velero");
    cJSON *cluster = cJSON_AddArrayToObject(r, "cluster");
    cJSON *nss = cJSON_AddObjectToObject(r, "namespaces");
    for (size_t i = 0; i < n; i++) {
        cJSON *arr;
        if (!strcmp(e[i].scope, "velero"))
            arr = velero;
        else if (!strcmp(e[i].scope, "cluster"))
            arr = cluster;
        else {
            arr = cJSON_GetObjectItemCaseSensitive(nss, e[i].scope);
            if (!arr) arr = cJSON_AddArrayToObject(nss, e[i].scope);
        }
        cJSON_AddItemToArray(arr, cJSON_CreateString(e[i].msg));
    }
    return r;
}

cJSON *artifacts_results(const artifacts_result_entry *errors, size_t nerr,
                         const artifacts_result_entry *warnings, size_t nwarn)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "errors", result(errors, nerr));
    cJSON_AddItemToObject(o, "warnings", result(warnings, nwarn));
    return o;
}
