/* fdbudget.h: the open-file limit as a budget. veltop raises its soft RLIMIT_NOFILE to the hard
 * limit at start (as every Go program does since Go 1.19), gives the programs it starts the limit
 * it was started with, and counts what each context's connections cost, so that a fleet that does
 * not fit is said to be so, never reported as unreachable clusters. */
#pragma once
#include <stddef.h>

/* Descriptors kept aside for what is not a context: stdio, the loop's own, the terminal, the
 * listen socket, a log pager's file, downloads, an exec plugin's pipes, the resolver. */
#define KC_FD_RESERVE 64

/* At start: the soft limit to the hard one (or the kernel's nr_open when the hard limit is
 * unlimited). Remembers the limit veltop was started with. Returns the soft limit now. */
long kc_fd_raise(void);
/* The soft open-file limit now (kc_fd_raise's result, or the inherited one before it). */
long kc_fd_limit(void);
/* The soft limit veltop was started with (kc_fd_limit() before kc_fd_raise). */
long kc_fd_original(void);

/* Around starting a child with posix_spawn (which takes no rlimit): _begin puts the original soft
 * limit back, _end raises it again. A select()-based program breaks above 1024 descriptors, which
 * is why Go does this too. */
void kc_fd_child_begin(void);
void kc_fd_child_end(void);
/* In a child between fork() and exec (async-signal-safe): the original soft limit. */
void kc_fd_child_restore(void);

/* 1 when errno err says the descriptors ran out (EMFILE: this process; ENFILE: the system). */
int kc_fd_exhausted(int err);

/* Descriptors one context watching server may hold at once: over HTTP/2 (https, ALPN h2) every
 * list, watch and log stream shares one connection (two while one is replaced); over HTTP/1.1
 * (plain http) each open watch holds its own. */
unsigned kc_fd_context_cost(const char *server);

/* How many descriptors --serve may spend on its connections out of limit. */
unsigned kc_fd_serve_conns(long limit);

/* How many of the contexts, in order, fit in limit after the reserve and serve_conns: the
 * largest k with reserve + serve_conns + cost[0] + ... + cost[k-1] <= limit. */
size_t kc_fd_contexts_fit(long limit, unsigned serve_conns, const unsigned *cost, size_t n);
