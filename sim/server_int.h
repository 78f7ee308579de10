/* server_int.h: what the files of veltop-sim's API server (server.h) share and nothing else
 * includes: the server's state, the faults in force, a request and the resource it names, and the
 * helpers one file offers the others (the srv_ prefix). server.c holds the lifecycle, the faults'
 * parsing, auth and dispatch (with /debug, /version and the artifact downloads); server_http.c
 * the answers (bodies, JSON, Status) and the reading of a request (query arguments, the target);
 * server_discovery.c /api, /apis and their resource lists; server_tables.c the as=Table answers;
 * server_watch.c watch streams; server_logs.c pods/log; server_lists.c list, get and the writes. */
#pragma once
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "kubeclient/util.h"
#include "link.h"
#include "server.h"
#include "simstore.h"

#define MAX_FORBID 16

enum fault_kind {
    F_ERROR500,
    F_ERROR429,
    F_CLOSE_WATCH,
    F_EXPIRE,
    F_STALL,
    F_MALFORMED,
    F_FORBID,
    F_BOOKMARK_CLOSE,
    F_CLOSE_LOGS,
    F_EXPIRE_ALWAYS,
    F_DL_DRIP,
    F_DL_HANG,
    F_DL_EXPIRED,
    F_THROTTLE,
    F_LOG_DELAY,
    F_LOG_STALL,
    F_COUNT
};

typedef struct faults {
    int error500, error429; /* every Nth request */
    int close_watch_s;      /* close every watch after N s */
    int expire_once;        /* the first resumed watch gets 410 */
    int expire_every_s;     /* expire the history every N s */
    int stall_ms;
    int malformed;
    int bookmark_close;  /* every watch ends at once (after one BOOKMARK when allowed) */
    int close_logs;      /* every followed log ends after what it had */
    int log_delay_ms;    /* every pod log answers this late (a slow kubelet behind the server) */
    int log_stall;       /* every pod log: this many lines, then nothing until the client goes */
    int expire_always;   /* every watch from a resourceVersion gets 410 Expired at once */
    int dl_drip;         /* the object store sends artifacts at this many bytes a second */
    int dl_hang;         /* the object store answers 200 and then sends nothing */
    int dl_expired;      /* the first N artifact GETs answer S3's 403 "Request has expired" */
    char *retry_after;   /* Retry-After of an injected 429, as given (NULL: "1") */
    char *slow;          /* requests on this resource (plural) answer 1.5 s late */
    int slow_history_ms; /* whole lists (no labelSelector) of the four volume resources answer
                            this late: a big history next to a few runs in flight */
    char *forbid[MAX_FORBID];
    int nforbid;
    int throttle_list, throttle_watch; /* the first N lists / watches of each path get 429 */
} faults;

#define MAX_THROTTLED 64
typedef struct {
    char path[192];
    int lists, watches;
} throttled_path;

struct simserver {
    simserver_opts o;
    faults f;
    struct MHD_Daemon *d;
    int port;
    int tls;
    int auth; /* 0 none, 1 token, 2 client-cert */
    char *host;
    atomic_int stopping;
    atomic_long requests, watches, api_requests;
    atomic_int rv0_limit;       /* resourceVersion=0 lists honour limit */
    atomic_long dr_created;     /* DownloadRequests created (GET /debug/stats) */
    atomic_long rbac_denied;    /* requests --rbac's rules did not allow (GET /debug/stats) */
    atomic_int dl_expired_done; /* artifact GETs answered 403 expired so far */
    atomic_long fired[F_COUNT];
    atomic_int malformed_done, expire_done;
    atomic_int faults_off; /* POST /debug/faults-off: behave from now on as without --faults */
    faults nofaults;       /* all zero: what FA gives once faults are off */
    pthread_mutex_t mu;
    throttled_path throttled[MAX_THROTTLED]; /* under mu */
    int nthrottled;
    int64_t last_expire_ms;
    simlink *link; /* gzip and the emulated link (link.c) */
};

/* The faults in force (none once switched off). */
#define FA(s) (atomic_load(&(s)->faults_off) ? &(s)->nofaults : &(s)->f)

/* The cluster's clock: simulated time when the sim runs faster than real time. */
static inline double server_now(const simserver *s)
{
    return s->o.now ? s->o.now(s->o.now_arg) : kc_wall_now();
}

typedef struct req {
    kc_buf body;
    int done;
} req;

typedef struct target {
    const sim_resource *res;
    char *ns, *name, *sub;
} target;

/* server.c: auth */
int srv_forbidden_resource(simserver *s, const target *t);
enum MHD_Result srv_send_forbidden(simserver *s, struct MHD_Connection *c, const target *t,
                                   const char *user, const char *verb);

/* server_http.c: responses */
enum MHD_Result srv_queue_body(struct MHD_Connection *c, int code, const char *ctype, char *body,
                               size_t len, int may_gzip, const char *retry_after);
enum MHD_Result srv_queue(struct MHD_Connection *c, int code, const char *ctype, char *body,
                          size_t len);
enum MHD_Result srv_send_json(struct MHD_Connection *c, int code, cJSON *j);
const char *srv_reason_for(int code);
cJSON *srv_status_obj(int code, const char *reason, const char *msg, const target *t);
enum MHD_Result srv_send_status(struct MHD_Connection *c, int code, const char *msg,
                                const target *t);
enum MHD_Result srv_not_found(struct MHD_Connection *c);

/* server_http.c: request parsing */
const char *srv_arg(struct MHD_Connection *c, const char *k);
int srv_arg_true(struct MHD_Connection *c, const char *k);
void srv_target_free(target *t);
int srv_parse_target(const char *url, target *t);

/* server_discovery.c */
cJSON *srv_str_array(const char **v, size_t n);
cJSON *srv_resource_list(const char *group, const char *version);
cJSON *srv_velero_group(void);
int srv_discovery_other(struct MHD_Connection *c, const char *url, enum MHD_Result *r);
int srv_empty_list(simserver *s, struct MHD_Connection *c, const char *url, enum MHD_Result *r);

/* server_tables.c */
const cJSON *srv_path(const cJSON *o, const char *a, const char *b, const char *c);
cJSON *srv_make_table(const sim_resource *r, const cJSON *objs, uint64_t rv, const char *cont,
                      long remaining, int with_cols, double now);
int srv_wants_table(struct MHD_Connection *c);

/* server_watch.c */
int srv_peer_closed(struct MHD_Connection *c);
enum MHD_Result srv_stream(struct MHD_Connection *c, const char *ctype,
                           MHD_ContentReaderCallback fn, void *cls,
                           MHD_ContentReaderFreeCallback fr);
void srv_maybe_expire(simserver *s);
enum MHD_Result srv_do_watch(simserver *s, struct MHD_Connection *c, const target *t);

/* server_logs.c */
enum MHD_Result srv_do_log(simserver *s, struct MHD_Connection *c, const target *t);

/* server_lists.c */
enum MHD_Result srv_do_resource(simserver *s, struct MHD_Connection *c, const char *method,
                                const target *t, req *rq, const char *user);
