/* main.c: the veltop-sim program: parses options and runs the simulated cluster until killed. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "veltop-sim: not built yet\n");
    return 2;
}
