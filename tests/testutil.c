/* testutil.c: small helpers shared by the Check suites. */
#include "testutil.h"
#include "kubeclient/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tu_mkdtemp(void)
{
    char *t = xstrdup("/tmp/veltop-test-XXXXXX");
    if (!mkdtemp(t)) abort();
    return t;
}

char *tu_write(const char *dir, const char *name, const char *content)
{
    char *p = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) abort();
    fputs(content, f);
    fclose(f);
    return p;
}

char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    kc_buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) kc_buf_append(&b, tmp, n);
    fclose(f);
    if (len) *len = b.len;
    return kc_buf_cstr(&b);
}

void tu_rmrf(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/veltop-test-", 17) != 0) return;
    char *cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0) { /* best effort */
    }
    free(cmd);
}
