/* clockoff.c: the API server's clock against ours from the Date header of its answers
 * (clockoff.h): the median offset of the tightest recent samples. */
#include "kubeclient/clockoff.h"

#include <stdlib.h>
#include <string.h>

static int co_cmp_span(const void *a, const void *b)
{
    const kc_clockoff_sample *x = a, *y = b;
    return x->span < y->span ? -1 : x->span > y->span;
}

static int co_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The tightest half of the samples (an odd count), but never fewer than three when there are
 * three, so that fast outliers (a proxy answering with its own clock) are outvoted as long as the
 * server's own answers are most of them; their median offset. */
static double co_estimate(const kc_clockoff *c)
{
    kc_clockoff_sample s[KC_CLOCKOFF_SAMPLES];
    memcpy(s, c->s, c->n * sizeof *s);
    qsort(s, c->n, sizeof *s, co_cmp_span);
    size_t k = (c->n + 1) / 2;
    if (k < 3) k = c->n < 3 ? c->n : 3;
    if (k % 2 == 0 && k < c->n) k++; /* an odd count: a median of samples, not a mean of two */
    double off[KC_CLOCKOFF_SAMPLES];
    for (size_t i = 0; i < k; i++) off[i] = s[i].offset;
    qsort(off, k, sizeof *off, co_cmp_double);
    return k % 2 ? off[k / 2] : (off[k / 2 - 1] + off[k / 2]) / 2;
}

void kc_clockoff_add(kc_clockoff *c, double sent, double received, double date)
{
    double span = received - sent;
    if (!(span >= 0) || !(date > 0)) return;
    /* the server stamped Date somewhere in [sent, received] on our clock, and truncated it to the
     * second: its clock then read date + [0, 1) */
    kc_clockoff_sample *x = &c->s[c->next];
    x->offset = date + 0.5 - (sent + received) / 2;
    x->span = span;
    c->next = (c->next + 1) % KC_CLOCKOFF_SAMPLES;
    if (c->n < KC_CLOCKOFF_SAMPLES) c->n++;
    c->offset = co_estimate(c);
    c->known = 1;
}

double kc_clockoff_get(const kc_clockoff *c, int *known)
{
    if (known) *known = c->known;
    return c->known ? c->offset : 0;
}
