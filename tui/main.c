/* main.c: the veltop program's entry point: options, then the event loop. */
#include <stdio.h>
#include <string.h>

#include "veltop_version.h"

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("veltop %s\n", VELTOP_VERSION);
            return 0;
        }
    }
    printf("usage: veltop [--help]\n");
    return 0;
}
