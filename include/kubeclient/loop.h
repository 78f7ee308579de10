/* loop.h: the one-thread event loop: curl multi transfers (curl_multi_socket_action over epoll),
 * file descriptors and timers, all waited on in one poll(). Nothing here blocks except
 * kc_loop_run_once's wait. */
#pragma once
#include <curl/curl.h>
#include <stdint.h>

typedef struct kc_loop kc_loop;

kc_loop *kc_loop_new(void);
void kc_loop_free(kc_loop *loop); /* NULL is a no-op; pending transfers are removed, not finished */
CURLM *kc_loop_multi(kc_loop *loop);

/* File descriptors (POLLIN/POLLOUT). The callback may unwatch any fd, including its own. */
typedef void (*kc_fd_fn)(void *arg, int fd, short revents);
int kc_loop_watch_fd(kc_loop *loop, int fd, short events, kc_fd_fn fn, void *arg); /* returns id */
void kc_loop_unwatch_fd(kc_loop *loop, int id);

/* One-shot timers on the monotonic clock. Ids are never 0. Cancelling a fired id is a no-op. */
typedef void (*kc_timer_fn)(void *arg);
uint64_t kc_loop_timer(kc_loop *loop, int64_t delay_ms, kc_timer_fn fn, void *arg);
void kc_loop_cancel(kc_loop *loop, uint64_t id);

/* Transfers: the loop adds the easy handle to its multi handle and calls done once it finishes,
 * after removing it from the multi handle (the caller still owns and cleans up the easy handle).
 * kc_loop_remove_transfer cancels one without calling done. */
typedef void (*kc_xfer_done_fn)(void *arg, CURL *easy, CURLcode res);
void kc_loop_add_transfer(kc_loop *loop, CURL *easy, kc_xfer_done_fn done, void *arg);
void kc_loop_remove_transfer(kc_loop *loop, CURL *easy);

/* Waits at most max_wait_ms (less if a timer is due) and dispatches what happened. */
void kc_loop_run_once(kc_loop *loop, int max_wait_ms);
/* Runs until cond(arg) is true or timeout_ms passes; returns 1 if cond became true. For tests and
 * for --once, which wait for a condition instead of sleeping. */
int kc_loop_run_until(kc_loop *loop, int (*cond)(void *arg), void *arg, int64_t timeout_ms);
/* Interrupts a wait from another thread or a signal handler (an eventfd write). */
void kc_loop_wakeup(kc_loop *loop);
