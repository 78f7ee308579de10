/* restic.c: stub until the real restic runner lands. */
#include "restic.h"

#include <stdio.h>

restic_job *restic_job_start(int64_t size, uint64_t seed, char *err, size_t errlen)
{
    (void)size;
    (void)seed;
    snprintf(err, errlen, "restic runner not built");
    return NULL;
}

int restic_job_poll(restic_job *j, int64_t *total, int64_t *done, char *snapshot, size_t snaplen,
                    char *err, size_t errlen)
{
    (void)j;
    (void)total;
    (void)done;
    (void)snapshot;
    (void)snaplen;
    snprintf(err, errlen, "restic runner not built");
    return -1;
}

void restic_job_free(restic_job *j)
{
    (void)j;
}
