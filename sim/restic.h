/* restic.h: runs the real restic (`restic init`, `restic backup --json`) over generated data in a
 * temporary repository, as child processes read without blocking, for restic-real volumes. */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct restic_job restic_job;

/* Generates `size` bytes of random files and starts `restic init` with `bin` (NULL = restic from
 * PATH). NULL with err (e.g. "restic not found in PATH") when it cannot start. */
restic_job *restic_job_start(const char *bin, int64_t size, uint64_t seed, char *err,
                             size_t errlen);
/* Reads what the children wrote so far, without blocking, and advances init -> backup. Returns
 * 0 while running, 1 when the backup finished (totals final), -1 on failure (err filled).
 * *total and *done get the latest status line's total_bytes and bytes_done. */
int restic_job_poll(restic_job *j, int64_t *total, int64_t *done, char *snapshot, size_t snaplen,
                    char *err, size_t errlen);
/* Kills a running child, removes the temporary directories. NULL is a no-op. */
void restic_job_free(restic_job *j);
