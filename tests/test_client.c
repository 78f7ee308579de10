/* test_client.c: requests through the loop against a loopback server; Kubernetes Status errors
 * and connection failures become messages a person can act on. */
#include <check.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "kubeclient/caps.h"
#include "kubeclient/backoff.h"
#include "kubeclient/client.h"
#include "kubeclient/util.h"
#include "testutil.h"

/* ---- a canned-answer server: the path picks the answer ---- */

typedef struct {
    const char *path;
    unsigned status;
    const char *body;
    const char *retry_after;
} canned;

static const canned answers[] = {
    {"/apis/velero.io/v1/namespaces/velero/backups", 200, "{\"kind\":\"BackupList\",\"items\":[]}",
     NULL},
    {"/unauthorized", 401,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}",
     NULL},
    {"/apis/velero.io/v1/namespaces/velero/restores", 403,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"restores.velero.io is forbidden: User \\\"alice\\\" cannot list resource "
     "\\\"restores\\\" in API group \\\"velero.io\\\" in the namespace "
     "\\\"velero\\\"\",\"reason\":\"Forbidden\",\"details\":{\"group\":\"velero.io\",\"kind\":"
     "\"restores\"},\"code\":403}",
     NULL},
    {"/apis/velero.io/v1/schedules", 404,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"the server could not find the requested "
     "resource\",\"reason\":\"NotFound\",\"details\":{},\"code\":404}",
     NULL},
    {"/apis/velero.io/v1/namespaces/velero/backups/nightly", 404,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"backups.velero.io \\\"nightly\\\" not "
     "found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"nightly\",\"group\":\"velero.io\","
     "\"kind\":\"backups\"},\"code\":404}",
     NULL},
    {"/apis/velero.io/v1/backupstoragelocations", 500,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"etcdserver: request timed out\",\"reason\":\"InternalError\",\"code\":500}",
     NULL},
    {"/busy", 429,
     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
     "\"message\":\"too many requests, please try again "
     "later\",\"reason\":\"TooManyRequests\",\"code\":429}",
     "7"},
    {"/plain500", 500, "upstream connect error\nmore", NULL},
};

static volatile int hang_release;

/* /hang: an answer whose body never comes until the test ends (a quiet watch). */
static ssize_t hang_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    (void)pos;
    (void)buf;
    (void)max;
    if (hang_release) return MHD_CONTENT_READER_END_OF_STREAM;
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
    return 0;
}

/* /endless: a 200 whose body never ends (a LIST that is never done). */
static ssize_t endless_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    if (hang_release) return MHD_CONTENT_READER_END_OF_STREAM;
    memset(buf, ' ', max);
    if (pos == 0 && max > 10) memcpy(buf, "{\"items\":[", 10);
    return (ssize_t)max;
}

static volatile int redirect_hits;
static volatile int throttled_hits, throttled_left; /* /throttled: 429s left (-1: for ever) */
static const char *throttled_retry_after = "1";

static char last_method[16], last_body[256], last_ct[128], last_query[256], last_url[256];
static char last_ae[64]; /* Accept-Encoding of the last request ("-" when absent) */

/* The body /gz answers with; gzip'd when the request accepts gzip, as kube-apiserver does. */
static const char gz_body[] = "{\"kind\":\"BackupList\",\"metadata\":{\"resourceVersion\":\"7\"},"
                              "\"items\":[{\"metadata\":{\"name\":\"nightly\"}}]}";

static enum MHD_Result answer_gz(struct MHD_Connection *con, int gzip)
{
    unsigned char out[512];
    size_t len = sizeof gz_body - 1;
    const void *body = gz_body;
    if (gzip) {
        z_stream z = {0};
        ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = (unsigned char *)gz_body;
        z.avail_in = (uInt)len;
        z.next_out = out;
        z.avail_out = sizeof out;
        ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
        len = z.total_out;
        deflateEnd(&z);
        body = out;
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    if (gzip) MHD_add_response_header(resp, "Content-Encoding", "gzip");
    enum MHD_Result ret = MHD_queue_response(con, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *con, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)version;
    if (!*con_cls) { /* first call: headers only */
        *con_cls = (void *)1;
        last_body[0] = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t have = strlen(last_body), n = *upload_size;
        if (have + n >= sizeof last_body) n = sizeof last_body - have - 1;
        memcpy(last_body + have, upload, n);
        last_body[have + n] = 0;
        *upload_size = 0;
        return MHD_YES;
    }
    snprintf(last_method, sizeof last_method, "%s", method);
    snprintf(last_url, sizeof last_url, "%s", url);
    const char *ct = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Content-Type");
    snprintf(last_ct, sizeof last_ct, "%s", ct ? ct : "");
    const char *q = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "q");
    snprintf(last_query, sizeof last_query, "%s", q ? q : "");
    const char *ae = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Accept-Encoding");
    snprintf(last_ae, sizeof last_ae, "%s", ae ? ae : "-");
    if (strcmp(url, "/gz") == 0) return answer_gz(con, ae && strstr(ae, "gzip") != NULL);
    if (strcmp(url, "/throttled") == 0) { /* 429 + Retry-After until throttled_left runs out */
        throttled_hits++;
        int busy = throttled_left != 0;
        if (throttled_left > 0) throttled_left--;
        const char *body = busy ? "{\"kind\":\"Status\",\"message\":\"slow down\","
                                  "\"reason\":\"TooManyRequests\",\"code\":429}"
                                : "{\"kind\":\"BackupList\",\"items\":[]}";
        struct MHD_Response *resp =
            MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
        if (busy) MHD_add_response_header(resp, "Retry-After", throttled_retry_after);
        enum MHD_Result ret = MHD_queue_response(con, busy ? 429 : 200, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    if (strcmp(url, "/hang") == 0) {
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, hang_reader, NULL, NULL);
        enum MHD_Result ret = MHD_queue_response(con, 200, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    if (strcmp(url, "/endless") == 0) {
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, endless_reader, NULL, NULL);
        enum MHD_Result ret = MHD_queue_response(con, 200, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    if (strcmp(url, "/redirect-loop") == 0) { /* a download URL that redirects to itself */
        redirect_hits++;
        struct MHD_Response *resp =
            MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(resp, "Location", "/redirect-loop");
        enum MHD_Result ret = MHD_queue_response(con, 302, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    const canned *a = NULL;
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++)
        if (strcmp(answers[i].path, url) == 0) a = &answers[i];
    const char *body = a ? a->body : "{\"echo\":true}";
    unsigned status = a ? a->status : 200;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    if (a && a->retry_after) MHD_add_response_header(resp, "Retry-After", a->retry_after);
    enum MHD_Result ret = MHD_queue_response(con, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static struct MHD_Daemon *srv;
static int port;

static void setup(void)
{
    hang_release = 0;
    srv = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
        NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(srv);
    port = MHD_get_daemon_info(srv, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void teardown(void)
{
    hang_release = 1;
    MHD_stop_daemon(srv);
}

/* ---- a client on the loop ---- */

typedef struct {
    int done;
    long status;
    long retry_after;
    kc_err err;
    char *body;
    kc_buf streamed;
    int headers;
} result;

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    result *r = arg;
    r->done = 1;
    r->status = resp->status;
    r->retry_after = resp->retry_after;
    r->err = *err;
    r->body = xstrndup(resp->body ? resp->body : "", resp->body_len);
}

static void on_data(void *arg, const char *data, size_t n)
{
    kc_buf_append(&((result *)arg)->streamed, data, n);
}

static void on_headers(void *arg, long status)
{
    result *r = arg;
    ck_assert_int_eq(status, 200);
    ck_assert_uint_eq(r->streamed.len, 0);
    r->headers++;
}

static int is_done(void *arg)
{
    return ((result *)arg)->done;
}

static kc_client *mkclient(kc_loop *loop, int p)
{
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", p);
    kc_rest_config cfg = {.server = server, .user = "alice", .context = "test"};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(kc_client_server(c), server);
    return c;
}

/* Runs one GET and returns its result (body malloc'd). */
static result get(const char *path)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    result r = {0};
    kc_request_opts o = {.path = path};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    kc_client_free(c);
    kc_loop_free(loop);
    return r;
}

START_TEST(ok_answer_is_buffered)
{
    result r = get("/apis/velero.io/v1/namespaces/velero/backups?limit=500");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.err.msg, "");
    ck_assert_str_eq(r.body, "{\"kind\":\"BackupList\",\"items\":[]}");
    ck_assert_int_eq(r.retry_after, -1);
    free(r.body);
}
END_TEST

START_TEST(api_requests_ask_for_gzip_and_get_it_decoded)
{
    /* a server that compresses: the body arrives decoded */
    result r = get("/gz");
    ck_assert_str_eq(last_ae, "gzip");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.err.msg, "");
    ck_assert_str_eq(r.body, gz_body);
    ck_assert_uint_eq(strlen(r.body), sizeof gz_body - 1);
    free(r.body);
    /* a server that ignores the header: the identity body as it is */
    r = get("/apis/velero.io/v1/namespaces/velero/backups?limit=500");
    ck_assert_str_eq(last_ae, "gzip");
    ck_assert_str_eq(r.body, "{\"kind\":\"BackupList\",\"items\":[]}");
    free(r.body);
}
END_TEST

START_TEST(stream_and_download_encodings)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    /* a streamed answer (a watch) is decoded too before on_data sees it */
    result w = {0};
    kc_request_opts o = {.path = "/gz", .stream = 1};
    kc_client_request(c, &o, on_data, on_done, &w);
    ck_assert(kc_loop_run_until(loop, is_done, &w, 10000));
    ck_assert_str_eq(last_ae, "gzip");
    ck_assert_str_eq(kc_buf_cstr(&w.streamed), gz_body);
    kc_buf_free(&w.streamed);
    free(w.body);
    /* an artifact download (another host) asks for identity: the gzip file is veltop's to decode */
    char url[96];
    snprintf(url, sizeof url, "http://localhost:%d/gz", port);
    result d = {0};
    kc_request_opts od = {.path = url, .accept_encoding = "identity", .stream = 1};
    kc_client_request(c, &od, on_data, on_done, &d);
    ck_assert(kc_loop_run_until(loop, is_done, &d, 10000));
    ck_assert_str_eq(last_ae, "identity");
    ck_assert_str_eq(kc_buf_cstr(&d.streamed), gz_body);
    kc_buf_free(&d.streamed);
    free(d.body);
    /* another host without an explicit encoding: no header at all */
    result n = {0};
    kc_request_opts on = {.path = url};
    kc_client_request(c, &on, NULL, on_done, &n);
    ck_assert(kc_loop_run_until(loop, is_done, &n, 10000));
    ck_assert_str_eq(last_ae, "-");
    ck_assert_str_eq(n.body, gz_body);
    free(n.body);
    kc_client_free(c);
    /* the kubeconfig's disable-compression: no Accept-Encoding to the API server either */
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", port);
    kc_rest_config cfg = {.server = server, .disable_compression = 1};
    kc_err err;
    c = kc_client_new(loop, &cfg, &err);
    result p = {0};
    kc_request_opts op = {.path = "/gz"};
    kc_client_request(c, &op, NULL, on_done, &p);
    ck_assert(kc_loop_run_until(loop, is_done, &p, 10000));
    ck_assert_str_eq(last_ae, "-");
    ck_assert_str_eq(p.body, gz_body);
    free(p.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

START_TEST(unauthorized_names_the_user)
{
    result r = get("/unauthorized");
    ck_assert_int_eq(r.status, 401);
    ck_assert_int_eq(r.err.code, 401);
    ck_assert_str_eq(r.err.msg,
                     "unauthorized: the server rejected the credentials of user \"alice\"");
    free(r.body);
}
END_TEST

START_TEST(forbidden_gives_the_servers_message)
{
    result r = get("/apis/velero.io/v1/namespaces/velero/restores?limit=500");
    ck_assert_int_eq(r.err.code, 403);
    ck_assert_str_eq(r.err.msg,
                     "restores.velero.io is forbidden: User \"alice\" cannot list resource "
                     "\"restores\" in API group \"velero.io\" in the namespace \"velero\"");
    free(r.body);
}
END_TEST

START_TEST(not_found_on_velero_says_velero_is_not_installed)
{
    result r = get("/apis/velero.io/v1/schedules?limit=500");
    ck_assert_int_eq(r.err.code, 404);
    ck_assert_str_eq(
        r.err.msg, "Velero's resources are not installed in this cluster (no velero.io API group)");
    free(r.body);
    /* a missing object is not a missing API group */
    r = get("/apis/velero.io/v1/namespaces/velero/backups/nightly");
    ck_assert_int_eq(r.err.code, 404);
    ck_assert_str_eq(r.err.msg, "backups.velero.io \"nightly\" not found");
    free(r.body);
}
END_TEST

START_TEST(server_error_gives_message_and_code)
{
    result r = get("/apis/velero.io/v1/backupstoragelocations");
    ck_assert_int_eq(r.err.code, 500);
    ck_assert_str_eq(r.err.msg, "etcdserver: request timed out (HTTP 500 InternalError)");
    free(r.body);
    r = get("/plain500");
    ck_assert_int_eq(r.err.code, 500);
    ck_assert_str_eq(r.err.msg, "upstream connect error (HTTP 500)");
    free(r.body);
}
END_TEST

static int64_t no_retry(void *arg, const kc_err *err, long retry_after_s, int attempt)
{
    (void)arg;
    (void)err;
    (void)retry_after_s;
    (void)attempt;
    return -1;
}

/* Runs one GET with opts o (path filled in) and returns its result (body malloc'd). */
static result get_with(const char *path, kc_request_opts o, int64_t max_ms)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    result r = {0};
    o.path = path;
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, max_ms));
    kc_client_free(c);
    kc_loop_free(loop);
    return r;
}

/* A 429 with Retry-After, four times, then 200: tried again after each wait, as client-go's rest
 * client (rest/with_retry.go); the caller sees the 200. It used to get the first 429. */
START_TEST(retry_after_answers_are_tried_again)
{
    throttled_hits = 0;
    throttled_left = 4;
    throttled_retry_after = "1";
    int64_t t0 = kc_now_ms();
    result r = get_with("/throttled", (kc_request_opts){0}, 20000);
    int64_t took = kc_now_ms() - t0;
    ck_assert_str_eq(r.err.msg, "");
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(throttled_hits, 5);
    ck_assert_msg(took >= 4000 - 50 && took < 9000, "took %lld ms", (long long)took);
    free(r.body);
    /* for ever 429 (Retry-After: 0, so the test is quick): 1 + 10 tries, then the answer */
    throttled_hits = 0;
    throttled_left = -1;
    throttled_retry_after = "0";
    r = get_with("/throttled", (kc_request_opts){0}, 20000);
    ck_assert_int_eq(r.err.code, 429);
    ck_assert_str_eq(r.err.msg, "slow down (HTTP 429 TooManyRequests)");
    ck_assert_int_eq(throttled_hits, 1 + KC_BACKOFF_RETRY_AFTER_TRIES);
    free(r.body);
}
END_TEST

START_TEST(too_many_requests_carries_retry_after)
{
    /* the owner says no retry: the 429 and its Retry-After reach it */
    result r = get_with("/busy", (kc_request_opts){.on_retry = no_retry}, 10000);
    ck_assert_int_eq(r.err.code, 429);
    ck_assert_int_eq(r.retry_after, 7);
    ck_assert_str_eq(r.err.msg,
                     "too many requests, please try again later (HTTP 429 TooManyRequests)");
    free(r.body);
}
END_TEST

START_TEST(connection_refused_names_the_server)
{
    /* a port nobody listens on: the one of a server that was just stopped */
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler,
                                            NULL, MHD_OPTION_END);
    int dead = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    MHD_stop_daemon(d);
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, dead);
    result r = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/backups"};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.err.code, 0);
    char want[160];
    snprintf(want, sizeof want,
             "cannot connect to http://127.0.0.1:%d: connection refused or unreachable (is the "
             "API server running?)",
             dead);
    ck_assert_str_eq(r.err.msg, want);
    free(r.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

START_TEST(stream_delivers_body_through_on_data)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    result r = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/backups?watch=true",
                         .stream = 1,
                         .on_headers = on_headers};
    kc_client_request(c, &o, on_data, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_int_eq(r.headers, 1);
    ck_assert_str_eq(kc_buf_cstr(&r.streamed), "{\"kind\":\"BackupList\",\"items\":[]}");
    ck_assert_str_eq(r.body, "");
    /* a failed stream request keeps its body for the message, on_data sees nothing */
    result f = {0};
    kc_request_opts o2 = {.path = "/unauthorized", .stream = 1, .on_headers = on_headers};
    kc_client_request(c, &o2, on_data, on_done, &f);
    ck_assert(kc_loop_run_until(loop, is_done, &f, 10000));
    ck_assert_int_eq(f.err.code, 401);
    ck_assert_uint_eq(f.streamed.len, 0);
    ck_assert_int_eq(f.headers, 0);
    kc_buf_free(&r.streamed);
    free(r.body);
    free(f.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

START_TEST(post_sends_method_body_and_content_type)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    result r = {0};
    const char *body = "{\"kind\":\"DownloadRequest\"}";
    kc_request_opts o = {.method = "POST",
                         .path = "/apis/velero.io/v1/namespaces/velero/downloadrequests?q=x%20y",
                         .body = body,
                         .body_len = strlen(body),
                         .content_type = "application/json"};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(last_method, "POST");
    ck_assert_str_eq(last_body, body);
    ck_assert_str_eq(last_ct, "application/json");
    ck_assert_str_eq(last_query, "x y");
    free(r.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

static void must_not_run(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    (void)err;
    *(int *)arg = 1;
}

static void cancel_other(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    (void)err;
    kc_request **other = arg;
    kc_request_cancel(*other);
    *other = NULL;
}

static int is_null(void *arg)
{
    return *(kc_request **)arg == NULL;
}

START_TEST(cancelled_request_runs_no_callback)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    int ran = 0;
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/backups"};
    kc_request *r = kc_client_request(c, &o, NULL, must_not_run, &ran);
    kc_request_cancel(r);
    /* cancelling one request from another's callback */
    kc_request_opts hang = {.path = "/hang", .stream = 1};
    kc_request *victim = kc_client_request(c, &hang, on_data, must_not_run, &ran);
    kc_request *holder = victim;
    kc_client_request(c, &o, NULL, cancel_other, &holder);
    ck_assert(kc_loop_run_until(loop, is_null, &holder, 10000));
    /* give a cancelled transfer the time it would have needed */
    result done = {0};
    kc_client_request(c, &o, NULL, on_done, &done);
    ck_assert(kc_loop_run_until(loop, is_done, &done, 10000));
    ck_assert_int_eq(ran, 0);
    free(done.body);
    /* pending requests are freed with the client */
    kc_client_request(c, &o, NULL, must_not_run, &ran);
    kc_client_free(c);
    kc_loop_free(loop);
    ck_assert_int_eq(ran, 0);
}
END_TEST

START_TEST(proxy_url_carries_the_requests)
{
    /* the API server's name does not resolve; the kubeconfig's proxy-url (our server) gets the
     * request and answers it */
    kc_loop *loop = kc_loop_new();
    char proxy[64];
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%d", port);
    kc_rest_config cfg = {.server = "http://api.veltop-test.invalid:6443", .proxy_url = proxy};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    result r = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/backups"};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_msg(r.status == 200, "%ld %s", r.status, r.err.msg);
    ck_assert_str_eq(r.body, "{\"echo\":true}");
    /* a proxy is sent the absolute URL */
    ck_assert_str_eq(
        last_url,
        "http://api.veltop-test.invalid:6443/apis/velero.io/v1/namespaces/velero/backups");
    free(r.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

START_TEST(describe_error_for_tls_and_timeouts)
{
    kc_loop *loop = kc_loop_new();
    char ca[] = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n";
    kc_rest_config cfg = {.server = "https://10.0.0.1:6443",
                          .user = "alice",
                          .token = "s3cr3t-token",
                          .ca_data = (unsigned char *)ca,
                          .ca_len = sizeof ca - 1};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    kc_client_describe_error(c, 0, NULL, CURLE_PEER_FAILED_VERIFICATION, "/api", &err);
    ck_assert_str_eq(err.msg, "the server's certificate is not trusted by the configured "
                              "certificate authority, or does not match the host name "
                              "(https://10.0.0.1:6443)");
    kc_client_describe_error(c, 0, NULL, CURLE_SSL_CACERT_BADFILE, "/api", &err);
    ck_assert_str_eq(err.msg, "the certificate authority data in the kubeconfig cannot be read "
                              "as PEM (https://10.0.0.1:6443)");
    kc_client_describe_error(c, 0, NULL, CURLE_OPERATION_TIMEDOUT, "/api", &err);
    ck_assert_str_eq(err.msg, "timed out waiting for https://10.0.0.1:6443");
    kc_client_describe_error(c, 0, NULL, CURLE_COULDNT_RESOLVE_HOST, "/api", &err);
    ck_assert_str_eq(err.msg,
                     "cannot resolve the host name of https://10.0.0.1:6443 (DNS lookup failed)");
    /* a download URL is named without its (signed) query */
    kc_client_describe_error(c, 0, NULL, CURLE_COULDNT_CONNECT,
                             "https://s3.example.com/bucket/log.gz?X-Amz-Signature=abc", &err);
    ck_assert_ptr_null(strstr(err.msg, "Signature"));
    ck_assert_ptr_nonnull(strstr(err.msg, "https://s3.example.com/bucket/log.gz"));
    kc_client_describe_error(c, 401, "", CURLE_OK, "/api", &err);
    ck_assert_ptr_null(strstr(err.msg, "s3cr3t"));
    ck_assert_int_eq(err.code, 401);
    kc_client_free(c);
    kc_client_free(NULL);
    /* no CA in the kubeconfig and no system bundle (a machine without ca-certificates) */
    cfg.ca_data = NULL;
    cfg.ca_len = 0;
    c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    kc_client_describe_error(c, 0, NULL, CURLE_SSL_CACERT_BADFILE, "/api", &err);
    ck_assert_str_eq(err.msg, "the system's certificate authorities cannot be read "
                              "(https://10.0.0.1:6443); install the ca-certificates package or "
                              "set certificate-authority-data in the kubeconfig");
    kc_client_free(c);
    /* a server address that is not a URL */
    cfg.server = "10.0.0.1:6443";
    ck_assert_ptr_null(kc_client_new(loop, &cfg, &err));
    ck_assert_str_eq(err.msg,
                     "the API server address 10.0.0.1:6443 is not an http:// or https:// URL");
    kc_loop_free(loop);
}
END_TEST

/* A body that never ends is cut at KC_CAP_BODY_BYTES with a message saying so, instead of being
 * buffered until the timeout (12.5 GB after 41 s). */
START_TEST(endless_body_is_capped)
{
    result r = get("/endless");
    ck_assert_int_eq(r.err.code, KC_ERR_CAPPED);
    ck_assert_str_eq(r.err.msg, "the answer to /endless is larger than 64 MiB, veltop's limit for "
                                "one response: the server is misbehaving");
    ck_assert_uint_le(strlen(r.body), KC_CAP_BODY_BYTES);
    free(r.body);
}
END_TEST

/* A download URL redirecting to itself is followed KC_CAP_REDIRECTS times, not 5 000 times. */
START_TEST(redirect_loop_is_capped)
{
    kc_loop *loop = kc_loop_new();
    kc_client *c = mkclient(loop, port);
    result r = {0};
    char url[64];
    snprintf(url, sizeof url, "http://localhost:%d/redirect-loop", port); /* not the API server */
    redirect_hits = 0;
    kc_request_opts o = {.path = url};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_int_eq(redirect_hits, KC_CAP_REDIRECTS + 1);
    ck_assert_msg(strstr(r.err.msg, "redirect") != NULL, "%s", r.err.msg);
    free(r.body);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

/* Userinfo in the kubeconfig's server URL or in a download URL never reaches a message. */
START_TEST(messages_redact_userinfo)
{
    kc_loop *loop = kc_loop_new();
    kc_rest_config cfg = {.server = "http://admin:S3cretPass@127.0.0.1:1", .user = "alice"};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    result r = {0};
    kc_request_opts o = {.path = "/api"};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_str_eq(r.err.msg, "cannot connect to http://xxxxx@127.0.0.1:1: connection refused or "
                                "unreachable (is the API server running?)");
    free(r.body);
    memset(&r, 0, sizeof r);
    kc_request_opts d = {.path = "http://user:S3cretPass@127.0.0.1:1/log.gz?X-Amz-Signature=s"};
    kc_client_request(c, &d, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    ck_assert_str_eq(r.err.msg, "cannot connect to http://xxxxx@127.0.0.1:1/log.gz: connection "
                                "refused or unreachable (is the API server running?)");
    free(r.body);
    kc_client_free(c);
    kc_rest_config bad = {.server = "ftp://admin:S3cretPass@host"};
    ck_assert_ptr_null(kc_client_new(loop, &bad, &err));
    ck_assert_str_eq(err.msg, "the API server address ftp://xxxxx@host is not an http:// or "
                              "https:// URL");
    kc_loop_free(loop);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client");
    TCase *tc = tcase_create("client");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, ok_answer_is_buffered);
    tcase_add_test(tc, api_requests_ask_for_gzip_and_get_it_decoded);
    tcase_add_test(tc, stream_and_download_encodings);
    tcase_add_test(tc, unauthorized_names_the_user);
    tcase_add_test(tc, forbidden_gives_the_servers_message);
    tcase_add_test(tc, not_found_on_velero_says_velero_is_not_installed);
    tcase_add_test(tc, server_error_gives_message_and_code);
    tcase_add_test(tc, too_many_requests_carries_retry_after);
    tcase_add_test(tc, retry_after_answers_are_tried_again);
    tcase_add_test(tc, connection_refused_names_the_server);
    tcase_add_test(tc, stream_delivers_body_through_on_data);
    tcase_add_test(tc, post_sends_method_body_and_content_type);
    tcase_add_test(tc, cancelled_request_runs_no_callback);
    tcase_add_test(tc, describe_error_for_tls_and_timeouts);
    tcase_add_test(tc, proxy_url_carries_the_requests);
    tcase_add_test(tc, endless_body_is_capped);
    tcase_add_test(tc, redirect_loop_is_capped);
    tcase_add_test(tc, messages_redact_userinfo);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
