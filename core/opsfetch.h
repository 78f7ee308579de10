/* opsfetch.h: keeps the async plugin operations (itemops.h) of every run that waits on them read:
 * while a run is WaitingForPluginOperations(PartiallyFailed), its BackupItemOperations /
 * RestoreItemOperations artifact through a DownloadRequest (app_download: the one artifact
 * mechanism, which deletes every request it creates), at most every ITEMOPS_REFRESH_S per run,
 * failures retried on the client's backoff policy no sooner; a few at once, all from the loop,
 * never blocking it. What it read (or why it could not) is the run's item_ops. */
#pragma once
#include <stdint.h>

#include "app.h"

#define OPSFETCH_PARALLEL 2 /* reads in flight at once */

typedef struct opsfetch opsfetch;

/* Starts following a's runs (a timer on its loop; a->on_change is called after each read). */
opsfetch *opsfetch_new(app *a);
void opsfetch_free(opsfetch *f); /* NULL is a no-op; downloads in flight are let go (deleted) */
/* --once: reads the operations of every run waiting on them now, running a's loop until all are
 * in or timeout_ms passed (those not in are unknown: "not in before the --once deadline"). */
void opsfetch_once(app *a, int64_t timeout_ms);
/* Why a run's operations are not known when nothing tried to read them: "not fetched: ...". */
#define OPSFETCH_NOT_FETCHED                                                                       \
    "not fetched: --details reads them (a DownloadRequest per run waiting on them)"
