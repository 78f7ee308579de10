/* cron.h: Velero Schedule cron expressions with robfig/cron v3's semantics (cron.ParseStandard,
 * as Velero's schedule controller parses spec.schedule): 5 fields, names, ranges, steps, lists,
 * `?`, descriptors (@yearly ... @hourly, @every <duration>) and a `CRON_TZ=`/`TZ=` zone prefix
 * resolved in the system tz database; next-run computation and the overdue rule. Pure: no I/O but
 * reading the zone file through the C library. */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct cron_spec {
    uint64_t minute, hour, dom, month, dow; /* bit sets; CRON_STAR marks `*` / `?` */
    double every;                           /* @every: seconds (>= 1), else 0 */
    char tz[64]; /* zone name from CRON_TZ=/TZ=; "" = UTC (the Velero server's zone) */
} cron_spec;

#define CRON_STAR (1ULL << 63)

/* Parses spec; 0 on success, -1 with a message in err (as robfig words it, lowercase). */
int cron_parse(const char *spec, cron_spec *out, char *err, size_t errlen);
/* The first firing strictly after t (unix seconds), as robfig's Schedule.Next; 0 when none
 * within five years (e.g. "0 0 30 2 *"). */
double cron_next(const cron_spec *c, double t);

/* A schedule's state for the health screen and --once --json. */
typedef struct cron_due {
    double next;     /* when Velero will fire next: Next(last fire, else creation); 0 unknown */
    double interval; /* seconds between the next two firings (0 unknown) */
    double due_by;   /* the second expected firing after the last success, + grace */
    int overdue;     /* no successful backup within two intervals */
} cron_due;

/* last_fire: status.lastBackup (or lastSkipped if later); created: creationTimestamp;
 * last_success: the start of the newest Completed backup of the schedule (0: none, then creation
 * counts); grace: seconds a run takes (typical duration) before its success can land; now: unix.
 * Paused schedules are never overdue. */
void cron_due_eval(const cron_spec *c, int paused, double last_fire, double created,
                   double last_success, double grace, double now, cron_due *out);
/* Go's time.ParseDuration ("90s", "10m", "1h30m", "1.5h"; as kubectl's --timeout): seconds into
 * *out; 0 ok, -1 not a duration. */
int cron_parse_duration(const char *s, double *out);
