/* objstore.c: the object store's HTTPS origin (libmicrohttpd with GnuTLS): GET /download/<token>
 * answers the artifact's gzip bytes, 404 or 410 as the API server's /download does; anything else
 * is 404. No credentials are asked for: the URL is the signature, as a presigned S3 URL. */
#include "objstore.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

struct objstore {
    struct MHD_Daemon *d;
    simserver_download_fn fn;
    void *arg;
    int port;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *ctype, void *body,
                             size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    MHD_add_response_header(r, "Content-Type", ctype);
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_len, void **state)
{
    (void)version;
    (void)upload;
    objstore *o = cls;
    if (!*state) { /* first call: headers only */
        *state = o;
        return MHD_YES;
    }
    *upload_len = 0;
    static const char nf[] = "file not found";
    if (strcmp(method, "GET") || strncmp(url, "/download/", 10))
        return reply(c, 404, "text/plain", (void *)nf, sizeof nf - 1, MHD_RESPMEM_PERSISTENT);
    unsigned char *data = NULL;
    size_t len = 0;
    int status = 404;
    if (o->fn(o->arg, url + 10, &data, &len, &status) < 0 || !data) {
        free(data);
        static const char gone[] = "the download URL has expired";
        return status == 410
                   ? reply(c, 410, "text/plain", (void *)gone, sizeof gone - 1,
                           MHD_RESPMEM_PERSISTENT)
                   : reply(c, 404, "text/plain", (void *)nf, sizeof nf - 1, MHD_RESPMEM_PERSISTENT);
    }
    return reply(c, 200, "application/octet-stream", data, len, MHD_RESPMEM_MUST_FREE);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    (void)fmt;
    (void)ap; /* library code never prints */
}

objstore *objstore_start(const char *host, const char *cert_pem, const char *key_pem,
                         simserver_download_fn fn, void *arg, char *err, size_t errlen)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        snprintf(err, errlen, "bad object store address '%s': expected an IPv4 address", host);
        return NULL;
    }
    objstore *o = xcalloc(1, sizeof *o);
    o->fn = fn;
    o->arg = arg;
    o->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                MHD_USE_TLS | MHD_USE_ERROR_LOG,
                            0, NULL, NULL, handler, o, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_HTTPS_MEM_CERT, cert_pem, MHD_OPTION_HTTPS_MEM_KEY, key_pem,
                            MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
    if (!o->d) {
        snprintf(err, errlen, "cannot start the object store on %s: %s", host,
                 errno ? strerror(errno) : "libmicrohttpd failed to start");
        free(o);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(o->d, MHD_DAEMON_INFO_BIND_PORT);
    o->port = di ? di->port : 0;
    return o;
}

void objstore_stop(objstore *o)
{
    if (!o) return;
    MHD_stop_daemon(o->d);
    free(o);
}

int objstore_port(const objstore *o)
{
    return o->port;
}
