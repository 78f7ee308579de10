/* clockoff.h: how far the API server's clock is from ours, estimated from the Date header of its
 * answers. A Date has 1 s resolution (the server truncates) and was stamped somewhere between
 * our sending the request and the header arriving, so one answer says: the server's clock minus
 * ours is (Date + 0.5) - (midpoint of the request's span), give or take half the span plus half a
 * second. The estimate is the median of the tightest of the recent samples (smallest span), so a
 * slow answer, one outlier or a proxy's own Date cannot swing it. Pure: times are passed in. */
#pragma once
#include <stddef.h>

#define KC_CLOCKOFF_SAMPLES 32 /* recent samples kept */

typedef struct kc_clockoff_sample {
    double offset; /* the server's clock minus ours, seconds */
    double span;   /* the request's round trip (s): the sample's uncertainty */
} kc_clockoff_sample;

typedef struct kc_clockoff {
    kc_clockoff_sample s[KC_CLOCKOFF_SAMPLES]; /* ring */
    size_t n, next;
    double offset; /* current estimate (kc_clockoff_get) */
    int known;
} kc_clockoff;

/* One answer: sent and received are our wall clock (unix seconds) when the request went out and
 * when its headers arrived; date is the answer's Date (unix seconds, whole). Samples with a
 * negative span are dropped. */
void kc_clockoff_add(kc_clockoff *c, double sent, double received, double date);
/* The estimate (seconds; > 0: the server's clock is ahead of ours); 0 and *known = 0 before any
 * sample. known may be NULL. */
double kc_clockoff_get(const kc_clockoff *c, int *known);
