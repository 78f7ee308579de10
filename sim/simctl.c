/* simctl.c: the simulated Velero controller (stub until the controller lands). */
#include "simctl.h"

#include <stdlib.h>

#include "kubeclient/util.h"

struct simctl {
    simstore *store;
};

simctl *simctl_start(simstore *store, const simctl_opts *opts, char *err, size_t errlen)
{
    (void)opts;
    if (err && errlen) err[0] = '\0';
    simctl *c = xcalloc(1, sizeof *c);
    c->store = store;
    return c;
}

void simctl_stop(simctl *c)
{
    free(c);
}

int simctl_download(simctl *c, const char *token, unsigned char **data, size_t *len, int *status)
{
    (void)c;
    (void)token;
    *data = NULL;
    *len = 0;
    *status = 404;
    return -1;
}
