/* replay.c: runs a fuzz target over files and directories of inputs (no libFuzzer needed), so
 * the seed corpora and every crash found are regression tests under the normal build. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "kubeclient/util.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    kc_buf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) kc_buf_append(&b, tmp, n);
    fclose(f);
    LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""), b.len);
    kc_buf_free(&b);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: no such input %s\n", argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= replay_file(argv[i]) < 0;
            count++;
            continue;
        }
        struct dirent **ents;
        int n = scandir(argv[i], &ents, NULL, by_name);
        for (int k = 0; k < n; k++) {
            if (ents[k]->d_name[0] != '.') {
                char *p = xasprintf("%s/%s", argv[i], ents[k]->d_name);
                bad |= replay_file(p) < 0;
                free(p);
                count++;
            }
            free(ents[k]);
        }
        free(ents);
    }
    printf("replayed %d inputs\n", count);
    return bad || count == 0 ? 1 : 0;
}
