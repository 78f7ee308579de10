/* link.h: how veltop-sim's answers travel to the client. As kube-apiserver: a buffered body
 * (a list, an object) over 128 KiB is gzip'd (level 1) when the request's Accept-Encoding names
 * gzip; watches and log streams are never compressed (they do not go through its
 * deferredResponseWriter). For tests and benchmarks, an emulated slow link: a one-way latency
 * (every answer starts a round trip after its request; a new connection's first answer one more
 * round trip later for the TCP handshake, two with TLS) and a bandwidth per connection (the
 * body is paced). Off by default and then free: no sleeping, no wrapping. */
#pragma once
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#define SIMLINK_GZIP_THRESHOLD (128u * 1024u) /* kube-apiserver's defaultGzipThresholdBytes */

typedef struct simlink simlink;

typedef struct simlink_opts {
    int latency_ms; /* one-way delay; 0 = none */
    long bandwidth; /* bytes per second per connection; 0 = unlimited */
    int no_gzip;    /* never compress (kube-apiserver with APIResponseCompression=false) */
    int tls;        /* the connections are TLS (one more round trip to set up) */
    /* The server's clock minus the real one (s): every answer's Date header says so (the sim's
     * timestamps are off as much: simctl_opts.clock_skew). */
    double clock_skew;
} simlink_opts;

typedef struct simlink_stats {
    uint64_t body_bytes; /* bytes of response bodies sent (after compression) */
    uint64_t gzipped;    /* responses compressed */
    uint64_t connections;
} simlink_stats;

simlink *simlink_new(const simlink_opts *o);
void simlink_free(simlink *l); /* after the daemon stopped; NULL is a no-op */
/* From now on nothing waits (the server is stopping: its threads must end). */
void simlink_stop(simlink *l);
simlink_stats simlink_get_stats(const simlink *l);

/* For MHD_OPTION_NOTIFY_CONNECTION with the simlink as cls: every connection's own state. */
void simlink_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                               enum MHD_ConnectionNotificationCode toe);
/* Waits, in the connection's thread, as long as the link makes a request wait for the start of
 * its answer. Returns at once when there is no latency. */
void simlink_before_answer(struct MHD_Connection *c);
/* A response for a buffered body (taken, free()d by it; NULL with len 0 for none): gzip'd when
 * may_gzip, the body is over the threshold and the request accepts gzip (Content-Encoding and
 * Vary are then set); paced when the link has a bandwidth. */
struct MHD_Response *simlink_buffer_response(struct MHD_Connection *c, char *body, size_t len,
                                             int may_gzip);
/* A body made as it is sent: fn puts its next bytes into buf (at most max) and returns how many,
 * 0 at its end; fr(cls) when the response goes. len is the whole body's length (fn must make
 * exactly that many bytes): sent as Content-Length, or gzip'd as simlink_buffer_response decides,
 * taking SIMLINK_SOURCE_BLOCK bytes at a time as the client reads (a client that does not read
 * holds the server's work up, as TCP's back-pressure holds kube-apiserver's encoder). */
#define SIMLINK_SOURCE_BLOCK (64u * 1024u)
typedef size_t (*simlink_source_fn)(void *cls, char *buf, size_t max);
struct MHD_Response *simlink_source_response(struct MHD_Connection *c, size_t len,
                                             simlink_source_fn fn, void *cls, void (*fr)(void *),
                                             int may_gzip);
/* A streamed response of unknown size (watch, log): the reader paced when the link has a
 * bandwidth. */
struct MHD_Response *simlink_stream_response(struct MHD_Connection *c, size_t block,
                                             MHD_ContentReaderCallback fn, void *cls,
                                             MHD_ContentReaderFreeCallback fr);
/* Does an Accept-Encoding value ask for gzip, as kube-apiserver reads it (negotiateContentEncoding:
 * comma-separated tokens, one of them exactly "gzip" once trimmed)? */
int simlink_accepts_gzip(const char *accept_encoding);
