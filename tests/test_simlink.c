/* test_simlink.c: how the sim's answers travel (sim/link.c): gzip as kube-apiserver (lists over
 * 128 KiB when the request accepts gzip; never watches; --no-gzip), list semantics of
 * resourceVersion=0 (the watch cache ignores limit), the emulated link (latency, bandwidth), and
 * veltop's client against it: asks for gzip, gets the same objects in fewer bytes. */
#include <check.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "kubeclient/client.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/reflector.h"
#include "kubeclient/util.h"
#include "link.h"
#include "vsim.h"
#include "testutil.h"

#define NSP      "/apis/velero.io/v1/namespaces/velero/backups"
#define NBACKUPS 600 /* ~400 KB of list: over the gzip threshold */

static vsim *sim;
static char base[256];

static void start(const vsim_opts *extra)
{
    char err[256];
    vsim_opts o = extra ? *extra : (vsim_opts){0};
    o.scenario = "empty";
    o.quiet = 1;
    o.passive = 1;
    sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(sim != NULL, "%s", err);
    snprintf(base, sizeof base, "%s", vsim_url(sim));
    for (int i = 0; i < NBACKUPS; i++) {
        char body[768];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                 "\"nightly-%05d\",\"namespace\":\"velero\",\"labels\":{\"velero.io/"
                 "schedule-name\":\"nightly\"}},\"spec\":{\"includedNamespaces\":[\"shop\"],"
                 "\"storageLocation\":\"default\",\"ttl\":\"720h0m0s\"},\"status\":{\"phase\":"
                 "\"Completed\",\"startTimestamp\":\"2026-11-30T10:%02d:00Z\",\"progress\":{"
                 "\"totalItems\":%d,\"itemsBackedUp\":%d}}}",
                 i, i % 60, 1000 + i, 1000 + i);
        cJSON *obj = cJSON_Parse(body);
        ck_assert_ptr_nonnull(obj);
        cJSON_Delete(simstore_create(vsim_store(sim), "backups", "velero", obj, NULL, NULL));
    }
}

static void setup(void)
{
    start(NULL);
}

static void teardown(void)
{
    vsim_stop(sim);
    sim = NULL;
}

static size_t collect(char *p, size_t sz, size_t n, void *ud)
{
    kc_buf_append(ud, p, sz * n);
    return sz * n;
}

typedef struct {
    long code;
    kc_buf body, hdr;
    double secs;
} answer;

static void answer_free(answer *a)
{
    kc_buf_free(&a->body);
    kc_buf_free(&a->hdr);
}

/* GET path with the raw Accept-Encoding header ae (NULL = none): the body as it came (curl does
 * not decode), its headers. With a reused handle, the connection is reused. */
static answer get_on(CURL *c, const char *path, const char *ae)
{
    answer a = {0};
    char url[1024], h[128];
    snprintf(url, sizeof url, "%s%s", base, path);
    struct curl_slist *hl = NULL;
    if (ae) {
        snprintf(h, sizeof h, "Accept-Encoding: %s", ae);
        hl = curl_slist_append(hl, h);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &a.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &a.hdr);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    int64_t t0 = kc_now_ms();
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    a.secs = (double)(kc_now_ms() - t0) / 1000.0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.code);
    curl_slist_free_all(hl);
    kc_buf_cstr(&a.hdr);
    kc_buf_cstr(&a.body);
    return a;
}

static answer get(const char *path, const char *ae)
{
    CURL *c = curl_easy_init();
    answer a = get_on(c, path, ae);
    curl_easy_cleanup(c);
    return a;
}

static int has_header(const answer *a, const char *line)
{
    return strcasestr(a->hdr.data, line) != NULL;
}

static char *gunzip_all(const kc_buf *in, size_t *out_len)
{
    z_stream z = {0};
    ck_assert_int_eq(inflateInit2(&z, 16 + 15), Z_OK);
    size_t cap = in->len * 40 + 1024;
    char *out = xmalloc(cap);
    z.next_in = (Bytef *)in->data;
    z.avail_in = (uInt)in->len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    inflateEnd(&z);
    return out;
}

static double stat_of(const char *key)
{
    char *s = vsim_stats(sim);
    cJSON *j = cJSON_Parse(s);
    free(s);
    const cJSON *v = cJSON_GetObjectItem(j, key);
    ck_assert_msg(cJSON_IsNumber(v), "no %s in the stats", key);
    double d = v->valuedouble;
    cJSON_Delete(j);
    return d;
}

static int item_count(const char *json, int *has_continue)
{
    cJSON *j = cJSON_Parse(json);
    ck_assert_ptr_nonnull(j);
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(j, "items"));
    *has_continue = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "continue") != NULL;
    cJSON_Delete(j);
    return n;
}

START_TEST(gzip_as_kube_apiserver)
{
    /* identity without the header */
    answer plain = get(NSP, NULL);
    ck_assert_int_eq(plain.code, 200);
    ck_assert(!has_header(&plain, "Content-Encoding"));
    ck_assert_uint_gt(plain.body.len, SIMLINK_GZIP_THRESHOLD);
    ck_assert_double_eq(stat_of("gzipped"), 0);
    /* gzip when asked: the same bytes once decoded, far fewer on the wire */
    answer gz = get(NSP, "gzip");
    ck_assert_int_eq(gz.code, 200);
    ck_assert(has_header(&gz, "Content-Encoding: gzip\r\n"));
    ck_assert(has_header(&gz, "Vary: Accept-Encoding\r\n"));
    ck_assert(has_header(&gz, "Content-Type: application/json\r\n"));
    size_t n;
    char *dec = gunzip_all(&gz.body, &n);
    ck_assert_uint_eq(n, plain.body.len);
    ck_assert(memcmp(dec, plain.body.data, n) == 0);
    ck_assert_uint_lt(gz.body.len * 5, plain.body.len);
    ck_assert_double_eq(stat_of("gzipped"), 1);
    free(dec);
    answer_free(&gz);
    /* kube-apiserver reads comma-separated tokens, exactly "gzip" once trimmed */
    gz = get(NSP, "deflate,  gzip ");
    ck_assert(has_header(&gz, "Content-Encoding: gzip"));
    answer_free(&gz);
    gz = get(NSP, "gzip;q=1.0");
    ck_assert(!has_header(&gz, "Content-Encoding"));
    ck_assert_uint_eq(gz.body.len, plain.body.len);
    answer_free(&gz);
    gz = get(NSP, "br, identity");
    ck_assert(!has_header(&gz, "Content-Encoding"));
    answer_free(&gz);
    /* a body at or under 128 KiB stays identity */
    gz = get(NSP "?limit=20", "gzip");
    ck_assert(!has_header(&gz, "Content-Encoding"));
    ck_assert_str_eq(gz.body.data + gz.body.len - 2, "]}");
    answer_free(&gz);
    /* a watch is never compressed, even with its 600 initial events */
    gz = get(NSP "?watch=true&timeoutSeconds=1", "gzip");
    ck_assert_int_eq(gz.code, 200);
    ck_assert(!has_header(&gz, "Content-Encoding"));
    ck_assert_uint_gt(gz.body.len, plain.body.len);
    ck_assert_int_eq(strncmp(gz.body.data, "{\"type\":\"ADDED\"", 15), 0);
    answer_free(&gz);
    ck_assert_double_eq(stat_of("gzipped"), 2);
    ck_assert_uint_eq(simlink_accepts_gzip("gzip"), 1);
    ck_assert_uint_eq(simlink_accepts_gzip("x-gzip"), 0);
    ck_assert_uint_eq(simlink_accepts_gzip(""), 0);
    ck_assert_uint_eq(simlink_accepts_gzip(NULL), 0);
    ck_assert_uint_eq(simlink_accepts_gzip(",,gzip,"), 1);
    answer_free(&plain);
    /* --no-gzip: identity whatever the client accepts */
    teardown();
    start(&(vsim_opts){.no_gzip = 1});
    gz = get(NSP, "gzip");
    ck_assert(!has_header(&gz, "Content-Encoding"));
    ck_assert_uint_gt(gz.body.len, SIMLINK_GZIP_THRESHOLD);
    answer_free(&gz);
}
END_TEST

/* The List the sim's store holds, printed whole by cJSON (what the server sent before it
 * streamed its answers): kind, apiVersion, metadata (resourceVersion, continue and
 * remainingItemCount as given), the items. */
static char *list_printed_whole(const char *ls, size_t limit, const char *after, const char *cont,
                                long remaining)
{
    uint64_t rv = 0;
    char *nns = NULL, *nname = NULL;
    cJSON *items =
        simstore_list_page(vsim_store(sim), "backups", "velero", ls, NULL, limit,
                           after ? "velero" : NULL, after, &rv, &nns, &nname, NULL, NULL, NULL);
    ck_assert_ptr_nonnull(items);
    free(nns);
    free(nname);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "kind", "BackupList");
    cJSON_AddStringToObject(out, "apiVersion", "velero.io/v1");
    cJSON *md = cJSON_AddObjectToObject(out, "metadata");
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
    cJSON_AddStringToObject(md, "resourceVersion", buf);
    if (cont) cJSON_AddStringToObject(md, "continue", cont);
    if (cont && remaining > 0) cJSON_AddNumberToObject(md, "remainingItemCount", remaining);
    cJSON_AddItemToObject(out, "items", items);
    char *s = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    return s;
}

static char *continue_of(const char *body)
{
    cJSON *j = cJSON_Parse(body);
    ck_assert_ptr_nonnull(j);
    const char *c =
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "continue"));
    char *r = c ? xstrdup(c) : NULL;
    cJSON_Delete(j);
    return r;
}

START_TEST(streamed_list_is_the_list_printed_whole)
{
    /* the whole list, identity: the same bytes as printing it whole, with its length up front */
    char *want = list_printed_whole(NULL, 0, NULL, NULL, 0);
    answer a = get(NSP "?resourceVersion=0", NULL);
    ck_assert_int_eq(a.code, 200);
    ck_assert_uint_eq(a.body.len, strlen(want));
    ck_assert(memcmp(a.body.data, want, a.body.len) == 0);
    char cl[64];
    snprintf(cl, sizeof cl, "Content-Length: %zu\r\n", strlen(want));
    ck_assert_msg(has_header(&a, cl), "no %s in %s", cl, a.hdr.data);
    ck_assert(has_header(&a, "Content-Type: application/json\r\n"));
    ck_assert(has_header(&a, "Cache-Control: no-cache, private\r\n"));
    answer_free(&a);
    /* gzip negotiated: the same bytes once decoded */
    a = get(NSP "?resourceVersion=0", "gzip");
    ck_assert(has_header(&a, "Content-Encoding: gzip\r\n"));
    size_t n;
    char *dec = gunzip_all(&a.body, &n);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert(memcmp(dec, want, n) == 0);
    free(dec);
    answer_free(&a);
    free(want);
    /* pages with continue: each page the page printed whole, every item once, in order */
    char *cont = NULL, *after = NULL;
    int pages = 0, items = 0;
    do {
        char path[1024];
        snprintf(path, sizeof path, NSP "?limit=250%s%s", cont ? "&continue=" : "",
                 cont ? cont : "");
        a = get(path, NULL);
        ck_assert_int_eq(a.code, 200);
        char *next = continue_of(a.body.data);
        int more = items + 250 < NBACKUPS;
        ck_assert_int_eq(next != NULL, more);
        want = list_printed_whole(NULL, 250, after, next, more ? NBACKUPS - items - 250 : 0);
        ck_assert_str_eq(a.body.data, want);
        int c;
        items += item_count(a.body.data, &c);
        free(want);
        free(after);
        after = xasprintf("nightly-%05d", items - 1);
        answer_free(&a);
        free(cont);
        cont = next;
        if (cont) { /* as a client sends it: URL-escaped */
            char *e = curl_easy_escape(NULL, cont, 0);
            free(cont);
            cont = xstrdup(e);
            curl_free(e);
        }
        pages++;
    } while (cont);
    free(after);
    ck_assert_int_eq(pages, 3);
    ck_assert_int_eq(items, NBACKUPS);
    /* a label selector, and an empty answer */
    want = list_printed_whole("velero.io/schedule-name=nightly", 0, NULL, NULL, 0);
    a = get(NSP "?labelSelector=velero.io%2Fschedule-name%3Dnightly", NULL);
    ck_assert_str_eq(a.body.data, want);
    answer_free(&a);
    free(want);
    want = list_printed_whole("velero.io/schedule-name=none", 0, NULL, NULL, 0);
    a = get(NSP "?labelSelector=velero.io%2Fschedule-name%3Dnone", NULL);
    ck_assert_str_eq(a.body.data, want);
    ck_assert_ptr_nonnull(strstr(a.body.data, "\"items\":[]}"));
    answer_free(&a);
    free(want);
}
END_TEST

/* An answer is the list as it was when asked for, whatever the store does while it is sent: the
 * objects are deleted while the client reads slowly (a small receive window, as a client that
 * holds its answer back), and the answer still brings every one of them, whole. */
START_TEST(streamed_list_is_a_snapshot)
{
    char *want = list_printed_whole(NULL, 0, NULL, NULL, 0);
    const char *url = strstr(base, "//") + 2;
    int port = atoi(strchr(url, ':') + 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    const char *req = "GET " NSP "?resourceVersion=0 HTTP/1.1\r\nHost: x\r\nConnection: "
                      "close\r\n\r\n";
    ck_assert_int_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    kc_buf got = {0};
    char buf[4096];
    while (got.len < 1024) {
        ssize_t k = read(fd, buf, sizeof buf);
        ck_assert_int_gt(k, 0);
        kc_buf_append(&got, buf, (size_t)k);
    }
    for (int i = 0; i < NBACKUPS; i++) {
        char name[32];
        snprintf(name, sizeof name, "nightly-%05d", i);
        cJSON_Delete(simstore_delete(vsim_store(sim), "backups", "velero", name, NULL, NULL));
    }
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        ck_assert_int_ge(k, 0);
        if (!k) break;
        kc_buf_append(&got, buf, (size_t)k);
    }
    close(fd);
    const char *body = strstr(kc_buf_cstr(&got), "\r\n\r\n");
    ck_assert_ptr_nonnull(body);
    ck_assert_str_eq(body + 4, want);
    free(want);
    kc_buf_free(&got);
    /* and the store has none of them now */
    want = list_printed_whole(NULL, 0, NULL, NULL, 0);
    ck_assert_ptr_nonnull(strstr(want, "\"items\":[]}"));
    free(want);
}
END_TEST

START_TEST(resource_version_0_lists_ignore_limit)
{
    int cont;
    /* resourceVersion=0: from the watch cache, which ignores limit */
    answer a = get(NSP "?limit=100&resourceVersion=0", NULL);
    ck_assert_int_eq(a.code, 200);
    ck_assert_int_eq(item_count(a.body.data, &cont), NBACKUPS);
    ck_assert_int_eq(cont, 0);
    answer_free(&a);
    /* a consistent read pages */
    a = get(NSP "?limit=100", NULL);
    ck_assert_int_eq(item_count(a.body.data, &cont), 100);
    ck_assert_int_eq(cont, 1);
    answer_free(&a);
    /* so does a list at a resourceVersion other than 0 */
    char path[256];
    snprintf(path, sizeof path, NSP "?limit=100&resourceVersion=%.0f", stat_of("resourceVersion"));
    a = get(path, NULL);
    ck_assert_int_eq(item_count(a.body.data, &cont), 100);
    ck_assert_int_eq(cont, 1);
    answer_free(&a);
    /* --rv0-limit: a server listing from storage pages resourceVersion=0 too */
    teardown();
    start(&(vsim_opts){.rv0_limit = 1});
    a = get(NSP "?limit=100&resourceVersion=0", NULL);
    ck_assert_int_eq(item_count(a.body.data, &cont), 100);
    ck_assert_int_eq(cont, 1);
    answer_free(&a);
    /* without a limit: everything, either way (veltop's first list asks so) */
    a = get(NSP "?resourceVersion=0", NULL);
    ck_assert_int_eq(item_count(a.body.data, &cont), NBACKUPS);
    ck_assert_int_eq(cont, 0);
    answer_free(&a);
}
END_TEST

START_TEST(emulated_latency_and_bandwidth)
{
    /* off: answers at once */
    answer a = get(NSP "?limit=1", NULL);
    ck_assert_msg(a.secs < 0.15, "%.3f s without a link", a.secs);
    answer_free(&a);
    teardown();
    start(&(vsim_opts){.latency_ms = 100});
    CURL *c = curl_easy_init();
    /* a new connection: the handshake's round trip, then the request's */
    a = get_on(c, NSP "?limit=1", NULL);
    ck_assert_msg(a.secs >= 0.4 && a.secs < 0.8, "first answer after %.3f s", a.secs);
    answer_free(&a);
    /* the same connection again: one round trip */
    a = get_on(c, NSP "?limit=1", NULL);
    ck_assert_msg(a.secs >= 0.2 && a.secs < 0.4, "second answer after %.3f s", a.secs);
    answer_free(&a);
    curl_easy_cleanup(c);
    teardown();
    /* 1 MB/s: the ~400 KB list takes its time; gzip'd, a fraction of it */
    start(&(vsim_opts){.bandwidth = 1000000});
    a = get(NSP, NULL);
    double want = (double)a.body.len / 1e6;
    ck_assert_msg(a.secs >= want * 0.95 && a.secs < want + 0.4, "%zu bytes in %.3f s", a.body.len,
                  a.secs);
    double before = stat_of("bodyBytes");
    answer z = get(NSP, "gzip");
    ck_assert(has_header(&z, "Content-Encoding: gzip"));
    /* (a bound relative to the plain answer: under valgrind deflating takes its own time) */
    ck_assert_msg(z.secs < a.secs * 0.75, "gzip'd in %.3f s, plain %.3f s", z.secs, a.secs);
    ck_assert_double_eq(stat_of("bodyBytes") - before, (double)z.body.len);
    answer_free(&z);
    answer_free(&a);
    /* a paced watch still streams every event */
    a = get(NSP "?watch=true&timeoutSeconds=1", NULL);
    const char *p = a.body.data;
    int events = 0;
    while ((p = strstr(p, "{\"type\":\"ADDED\"")) != NULL) {
        events++;
        p++;
    }
    ck_assert_int_eq(events, NBACKUPS);
    answer_free(&a);
}
END_TEST

static void *get_in_thread(void *arg)
{
    (void)arg;
    CURL *c = curl_easy_init();
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, NSP "?limit=1");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    kc_buf b = {0};
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_perform(c); /* fails when the sim goes away: that is the point */
    curl_easy_cleanup(c);
    kc_buf_free(&b);
    return NULL;
}

START_TEST(stopping_does_not_wait_out_the_latency)
{
    teardown();
    start(&(vsim_opts){.latency_ms = 5000});
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, get_in_thread, NULL), 0);
    /* the request's connection thread is asleep in a 20 s emulated round trip: stop now */
    for (int i = 0; i < 100 && stat_of("connections") < 1; i++) usleep(10000);
    usleep(100000);
    int64_t t0 = kc_now_ms();
    vsim_stop(sim);
    sim = NULL;
    int64_t took = kc_now_ms() - t0;
    ck_assert_msg(took < 1500, "stopping took %lld ms", (long long)took);
    pthread_join(th, NULL);
}
END_TEST

/* ---- veltop's client against the compressing sim ---- */

typedef struct {
    int done;
    long status;
    char *body;
    size_t len;
} result;

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    result *r = arg;
    ck_assert_msg(!err->msg[0], "%s", err->msg);
    r->done = 1;
    r->status = resp->status;
    r->body = xmalloc(resp->body_len + 1);
    memcpy(r->body, resp->body, resp->body_len + 1);
    r->len = resp->body_len;
}

static int is_done(void *arg)
{
    return ((result *)arg)->done;
}

static result client_get(const char *path, int disable_compression)
{
    kc_loop *loop = kc_loop_new();
    kc_rest_config cfg = {.server = base, .disable_compression = disable_compression};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    result r = {0};
    kc_request_opts o = {.path = path};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 20000));
    kc_client_free(c);
    kc_loop_free(loop);
    return r;
}

START_TEST(client_gets_the_same_objects_in_fewer_bytes)
{
    double b0 = stat_of("bodyBytes");
    result plain = client_get(NSP "?limit=500&resourceVersion=0", 1);
    double b1 = stat_of("bodyBytes");
    ck_assert_double_eq(stat_of("gzipped"), 0);
    result gz = client_get(NSP "?limit=500&resourceVersion=0", 0);
    double b2 = stat_of("bodyBytes");
    ck_assert_double_eq(stat_of("gzipped"), 1);
    ck_assert_int_eq(gz.status, 200);
    /* byte for byte the same list, so the same objects */
    ck_assert_uint_eq(gz.len, plain.len);
    ck_assert(memcmp(gz.body, plain.body, gz.len) == 0);
    int cont;
    ck_assert_int_eq(item_count(gz.body, &cont), NBACKUPS);
    ck_assert_double_eq(b1 - b0, (double)plain.len);
    ck_assert_msg((b2 - b1) * 5 < (b1 - b0), "gzip'd %.0f bytes, plain %.0f", b2 - b1, b1 - b0);
    free(plain.body);
    free(gz.body);
}
END_TEST

/* ---- reflectors over TLS: HTTP/2 asked for, the HTTP/1.1 sim still serves them all ---- */

static void *count_decode(const cJSON *obj)
{
    (void)obj;
    return xstrdup("x");
}

static int all_live(void *arg)
{
    kc_reflector **r = arg;
    for (int i = 0; i < 4; i++)
        if (kc_reflector_status(r[i])->state != KC_REFL_LIVE) return 0;
    return 1;
}

START_TEST(reflectors_over_tls_each_get_their_list)
{
    teardown();
    start(&(vsim_opts){.tls = 1, .auth = "token", .latency_ms = 20});
    ck_assert_int_eq(strncmp(base, "https://", 8), 0);
    for (int i = 0; i < 30; i++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":{"
                 "\"name\":\"pvb-%02d\",\"namespace\":\"velero\"},\"spec\":{}}",
                 i);
        cJSON_Delete(simstore_create(vsim_store(sim), "podvolumebackups", "velero",
                                     cJSON_Parse(body), NULL, NULL));
    }
    char path[] = "/tmp/veltop-simlink-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char *kc = vsim_kubeconfig(sim);
    ck_assert_int_eq(write(fd, kc, strlen(kc)), (ssize_t)strlen(kc));
    close(fd);
    free(kc);
    kc_err err;
    kc_rest_config *cfg = kc_config_load(&(kc_config_opts){.kubeconfig = path}, &err);
    unlink(path);
    ck_assert_msg(cfg != NULL, "%s", err.msg);
    kc_loop *loop = kc_loop_new();
    kc_client *c = kc_client_new(loop, cfg, &err);
    ck_assert_ptr_nonnull(c);
    const char *res[4][2] = {{"/apis/velero.io/v1", "backups"},
                             {"/apis/velero.io/v1", "podvolumebackups"},
                             {"/apis/velero.io/v1", "restores"},
                             {"/apis/velero.io/v2alpha1", "datauploads"}};
    kc_store *st[4];
    kc_reflector *r[4];
    double conns = stat_of("connections");
    for (int i = 0; i < 4; i++) {
        st[i] = kc_store_new(count_decode, free);
        kc_reflector_opts o = {.api_path = res[i][0], .resource = res[i][1], .ns = "velero"};
        r[i] = kc_reflector_new(c, &o, st[i]);
        kc_reflector_start(r[i]);
    }
    ck_assert_msg(kc_loop_run_until(loop, all_live, r, 20000), "%s",
                  kc_reflector_status(r[0])->last_error);
    ck_assert_uint_eq(kc_store_len(st[0]), NBACKUPS);
    ck_assert_uint_eq(kc_store_len(st[1]), 30);
    ck_assert_uint_eq(kc_store_len(st[2]), 0);
    ck_assert_uint_eq(kc_store_len(st[3]), 0);
    /* HTTP/1.1 only: the four watches need a connection each */
    ck_assert_double_ge(stat_of("connections") - conns, 4);
    for (int i = 0; i < 4; i++) {
        kc_reflector_free(r[i]);
        kc_store_free(st[i]);
    }
    kc_client_free(c);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    Suite *s = suite_create("simlink");
    TCase *tc = tcase_create("simlink");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, gzip_as_kube_apiserver);
    tcase_add_test(tc, streamed_list_is_the_list_printed_whole);
    tcase_add_test(tc, streamed_list_is_a_snapshot);
    tcase_add_test(tc, resource_version_0_lists_ignore_limit);
    tcase_add_test(tc, emulated_latency_and_bandwidth);
    tcase_add_test(tc, stopping_does_not_wait_out_the_latency);
    tcase_add_test(tc, client_gets_the_same_objects_in_fewer_bytes);
    tcase_add_test(tc, reflectors_over_tls_each_get_their_list);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    curl_global_cleanup();
    return rc;
}
