/* bench_watch.c: watch events decoded and applied per second, through the real client, reflector,
 * NDJSON framer, Velero decoder and store, from a loopback server streaming MODIFIED events. */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/client.h"
#include "kubeclient/reflector.h"
#include "kubeclient/store.h"
#include "kubeclient/util.h"
#include "kubeclient/velero.h"

static char *g_stream;
static size_t g_stream_len;
static int g_events;

static ssize_t stream_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    if (pos >= g_stream_len) return MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = g_stream_len - pos;
    if (n > max) n = max;
    memcpy(buf, g_stream + pos, n);
    return (ssize_t)n;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_len, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload, (void)upload_len;
    (void)con_cls;
    const char *watch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
    struct MHD_Response *r;
    if (watch) {
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 256 * 1024, stream_cb, NULL, NULL);
    } else {
        static const char list[] =
            "{\"kind\":\"PodVolumeBackupList\",\"apiVersion\":\"velero.io/v1\",\"metadata\":"
            "{\"resourceVersion\":\"1\"},\"items\":[]}";
        r = MHD_create_response_from_buffer(sizeof list - 1, (void *)list, MHD_RESPMEM_PERSISTENT);
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

/* The managedFields kube-apiserver sends with a PodVolumeBackup the server created and the
 * node-agent updates (doc/managedfields.md); BENCH_NO_MANAGED_FIELDS=1 leaves them out. */
static const char mf_fmt[] =
    "\"managedFields\":[{\"manager\":\"velero-server\",\"operation\":\"Update\",\"apiVersion\":"
    "\"velero.io/v1\",\"time\":\"2026-11-30T10:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
    "\"f:metadata\":{\"f:generateName\":{},\"f:labels\":{\".\":{},\"f:velero.io/backup-name\":{},"
    "\"f:velero.io/backup-uid\":{}},\"f:ownerReferences\":{}},\"f:spec\":{\".\":{},\"f:node\":{},"
    "\"f:pod\":{},\"f:uploaderType\":{},\"f:volume\":{}},\"f:status\":{\".\":{},\"f:progress\":{}}}"
    "},"
    "{\"manager\":\"node-agent-server\",\"operation\":\"Update\",\"apiVersion\":\"velero.io/v1\","
    "\"time\":\"2026-11-30T10:%02d:%02dZ\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{"
    "\"f:phase\":{},\"f:progress\":{\"f:bytesDone\":{},\"f:totalBytes\":{}},\"f:startTimestamp\":{}"
    "}}}],";

static void build_stream(int n, int objects)
{
    kc_buf b = {0};
    int mf = getenv("BENCH_NO_MANAGED_FIELDS") == NULL;
    for (int i = 0; i < n; i++) {
        int k = i % objects;
        kc_buf_printf(&b,
                      "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":"
                      "\"PodVolumeBackup\",\"metadata\":{");
        if (mf) kc_buf_printf(&b, mf_fmt, (i / 60) % 60, i % 60);
        kc_buf_printf(
            &b,
            "\"name\":\"nightly-20261130-%05d\","
            "\"namespace\":\"velero\",\"uid\":\"0c7a4e1e-%08d\",\"resourceVersion\":\"%d\","
            "\"labels\":{\"velero.io/backup-name\":\"nightly-20261130\","
            "\"velero.io/backup-uid\":\"5f1d\"}},\"spec\":{\"node\":\"worker-%d\","
            "\"pod\":{\"kind\":\"Pod\",\"namespace\":\"shop\",\"name\":\"db-%d\"},"
            "\"volume\":\"data\",\"uploaderType\":\"kopia\"},\"status\":{\"phase\":"
            "\"InProgress\",\"startTimestamp\":\"2026-11-30T10:00:00Z\",\"progress\":{"
            "\"totalBytes\":10737418240,\"bytesDone\":%d}}}}\n",
            k, k, i + 2, k % 8, k, i * 1000);
    }
    g_stream = b.data;
    g_stream_len = b.len;
}

static void on_change(void *arg, kc_event_type t, const char *key, void *obj)
{
    (void)arg, (void)t, (void)key, (void)obj;
    g_events++;
}

static int done_cond(void *arg)
{
    return g_events >= *(int *)arg;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300000;
    int objects = 5000;
    build_stream(n, objects);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler,
                                            NULL, MHD_OPTION_END);
    if (!d) return 1;
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;

    kc_loop *loop = kc_loop_new();
    kc_rest_config cfg = {0};
    cfg.server = xasprintf("http://127.0.0.1:%d", port);
    kc_err err = {0};
    kc_client *c = kc_client_new(loop, &cfg, &err);
    kc_store *st = kc_store_new(vl_decode_pvb, vl_release_volume);
    kc_store_on_change(st, on_change, NULL);
    kc_reflector_opts ro = {
        .api_path = "/apis/velero.io/v1", .resource = "podvolumebackups", .ns = "velero"};
    kc_reflector *r = kc_reflector_new(c, &ro, st);
    int64_t t0 = kc_now_ms();
    kc_reflector_start(r);
    int ok = kc_loop_run_until(loop, done_cond, &n, 120000);
    int64_t t1 = kc_now_ms();
    double secs = (double)(t1 - t0) / 1000.0;
    printf("watch events: %d applied in %.3f s = %.0f events/s (%zu objects, %.1f MB streamed)%s\n",
           g_events, secs, g_events / secs, kc_store_len(st), (double)g_stream_len / 1e6,
           ok ? "" : " [TIMED OUT]");
    kc_reflector_free(r);
    kc_store_free(st);
    kc_client_free(c);
    kc_loop_free(loop);
    MHD_stop_daemon(d);
    free(cfg.server);
    free(g_stream);
    return ok ? 0 : 1;
}
